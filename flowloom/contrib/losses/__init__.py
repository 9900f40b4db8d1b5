"""`tf.contrib.losses` (also `slim.losses`): TF1's first losses API."""

from flowloom.contrib.losses.loss_ops import (  # noqa: F401
    absolute_difference, add_loss, compute_weighted_loss, cosine_distance, get_losses,
    get_regularization_losses, get_total_loss, hinge_loss, log_loss, mean_pairwise_squared_error,
    mean_squared_error, sigmoid_cross_entropy, softmax_cross_entropy,
    sparse_softmax_cross_entropy)
