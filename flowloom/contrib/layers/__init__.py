"""`tf.contrib.layers`: TF1's functional layers (fully_connected, conv2d, batch_norm, ...),
initializers, regularizers, summaries and optimize_loss, with TF 1.15's names."""

from flowloom.contrib.framework.arg_scope import add_arg_scope, arg_scope  # noqa: F401
from flowloom.contrib.layers.encoders import embed_sequence  # noqa: F401
from flowloom.contrib.layers.initializers import (  # noqa: F401
    variance_scaling_initializer, xavier_initializer, xavier_initializer_conv2d)
from flowloom.contrib.layers.layers import (  # noqa: F401
    avg_pool2d, bias_add, conv2d, conv2d_transpose, convolution, convolution2d,
    convolution2d_transpose, dropout, flatten, fully_connected, linear, max_pool2d,
    one_hot_encoding, relu, relu6, repeat, softmax, stack, unit_norm)
from flowloom.contrib.layers.normalization import batch_norm, layer_norm  # noqa: F401
from flowloom.contrib.layers.regularizers import (  # noqa: F401
    apply_regularization, l1_l2_regularizer, l1_regularizer, l2_regularizer, sum_regularizer)
from flowloom.contrib.layers.utils import convert_collection_to_dict  # noqa: F401
from flowloom.contrib.layers.optimizers import (OPTIMIZER_CLS_NAMES,  # noqa: F401
                                                OPTIMIZER_SUMMARIES, adaptive_clipping_fn,
                                                optimize_loss)
from flowloom.contrib.layers.summaries import (  # noqa: F401
    summarize_activation, summarize_activations, summarize_biases, summarize_collection,
    summarize_tensor, summarize_tensors, summarize_variables, summarize_weights)
