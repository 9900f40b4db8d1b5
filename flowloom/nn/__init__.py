"""`tf.nn`: neural-network ops."""

from flowloom.ops.math.math_ops import sigmoid, softplus, softsign, tanh  # noqa: F401
from flowloom.ops.math.math_ops import top_k  # noqa: F401
from flowloom.ops.nn.nn_ops import (avg_pool, bias_add, conv1d, conv2d,  # noqa: F401
                                 conv2d_backprop_filter, conv2d_backprop_input,
                                 conv2d_transpose, depthwise_conv2d, depthwise_conv2d_native,
                                 max_pool, relu)
from flowloom.ops.nn.activation_ops import (elu, leaky_relu, local_response_normalization,  # noqa
                                         log_softmax, lrn, relu6, selu, softmax)
from flowloom.ops.nn.nn_loss_ops import (in_top_k, l2_loss,  # noqa: F401
                                      softmax_cross_entropy_with_logits,
                                      softmax_cross_entropy_with_logits_v2,
                                      sparse_softmax_cross_entropy_with_logits)
from flowloom.ops.nn.nn_impl import (batch_normalization, dropout, fused_batch_norm,  # noqa
                                  l2_normalize, moments, sigmoid_cross_entropy_with_logits,
                                  relu_layer, separable_conv2d, weighted_cross_entropy_with_logits,
                                  xw_plus_b, zero_fraction)
from flowloom.ops.nn.embedding_ops import embedding_lookup  # noqa: F401

max_pool2d = max_pool
avg_pool2d = avg_pool
from flowloom.ops.rnn.rnn import (bidirectional_dynamic_rnn, dynamic_rnn,  # noqa: F401,E402
                              raw_rnn, static_bidirectional_rnn, static_rnn,
                              static_state_saving_rnn)
from flowloom.nn import rnn_cell  # noqa: F401,E402

# -- the rest of tf.nn (branch `api`) --------------------------------------------------------------
from flowloom.ops.nn.candidate_sampling_ops import (all_candidate_sampler,  # noqa: F401,E402
                                                    compute_accidental_hits,
                                                    log_uniform_candidate_sampler,
                                                    uniform_candidate_sampler)
from flowloom.ops.nn.sampled_losses import nce_loss, sampled_softmax_loss  # noqa: F401,E402
from flowloom.ops.nn.nn_extras import (atrous_conv2d, avg_pool1d, conv1d_transpose,  # noqa
                                       convolution, crelu, embedding_lookup_sparse,
                                       log_poisson_loss, max_pool1d, normalize_moments, pool,
                                       sufficient_statistics, swish, weighted_moments)
from flowloom.ops.nn.conv3d_ops import (avg_pool3d, conv3d, conv3d_transpose,  # noqa: F401,E402
                                        max_pool3d)
from flowloom.ops.nn.pool_argmax_ops import max_pool_with_argmax  # noqa: F401,E402
from flowloom.ops.math.composite_math import log_sigmoid  # noqa: F401,E402
from flowloom.ops.nn.safe_embedding import safe_embedding_lookup_sparse  # noqa: F401,E402
