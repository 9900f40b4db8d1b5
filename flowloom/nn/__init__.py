"""`tf.nn`: neural-network ops."""

from flowloom.ops.activation_ops import (  # noqa
                                 elu,
                                 leaky_relu,
                                 local_response_normalization,
                                 log_softmax,
                                 lrn,
                                 relu6,
                                 selu,
                                 softmax,
)
from flowloom.ops.embedding_ops import embedding_lookup  # noqa: F401
from flowloom.ops.math_ops import (  # noqa: F401
                                 sigmoid,
                                 softplus,
                                 softsign,
                                 tanh,
                                 top_k,
)
from flowloom.ops.nn_impl import (  # noqa
                                 batch_normalization,
                                 dropout,
                                 fused_batch_norm,
                                 l2_normalize,
                                 moments,
                                 sigmoid_cross_entropy_with_logits,
                                 weighted_cross_entropy_with_logits,
                                 zero_fraction,
)
from flowloom.ops.nn_loss_ops import (  # noqa: F401
                                 in_top_k,
                                 l2_loss,
                                 softmax_cross_entropy_with_logits,
                                 softmax_cross_entropy_with_logits_v2,
                                 sparse_softmax_cross_entropy_with_logits,
)
from flowloom.ops.nn_ops import (  # noqa
                                 avg_pool,
                                 bias_add,
                                 conv2d,
                                 conv2d_backprop_filter,
                                 conv2d_backprop_input,
                                 conv2d_transpose,
                                 depthwise_conv2d,
                                 depthwise_conv2d_native,
                                 max_pool,
                                 relu,
)

max_pool2d = max_pool
avg_pool2d = avg_pool
from flowloom.nn import rnn_cell  # noqa: F401
from flowloom.ops.rnn import (  # noqa: F401
                                 bidirectional_dynamic_rnn,
                                 dynamic_rnn,
                                 static_bidirectional_rnn,
                                 static_rnn,
)
