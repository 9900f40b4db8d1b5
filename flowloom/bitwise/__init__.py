"""`tf.bitwise`: bitwise operations on integer tensors."""

from flowloom.ops.math.math_ops import (bitwise_and, bitwise_or, bitwise_xor, invert,  # noqa: F401
                                   left_shift, right_shift)
