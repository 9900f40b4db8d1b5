"""`tf.losses` (TF1): weighted losses collected in GraphKeys.LOSSES."""

from flowloom.losses.losses_impl import (Reduction, absolute_difference,  # noqa: F401
                                         compute_weighted_loss, huber_loss, log_loss,
                                         mean_squared_error, sigmoid_cross_entropy,
                                         softmax_cross_entropy, sparse_softmax_cross_entropy)
from flowloom.losses.util import (add_loss, get_losses, get_regularization_loss,  # noqa: F401
                                  get_regularization_losses, get_total_loss)
from flowloom.losses.pairwise_losses import (cosine_distance, hinge_loss,  # noqa: F401
                                             mean_pairwise_squared_error)
