"""`tf.nn`: neural-network ops."""

from flowloom.ops.math_ops import sigmoid, tanh  # noqa: F401
from flowloom.ops.nn_ops import bias_add, conv2d, relu  # noqa: F401
