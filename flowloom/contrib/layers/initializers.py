"""`tf.contrib.layers` initializers: Xavier/Glorot and contrib's variance scaling."""

import math

from flowloom.framework import dtypes
from flowloom.ops.random import random_ops


def xavier_initializer(uniform=True, seed=None, dtype=dtypes.float32):
    """Glorot & Bengio's initializer: variance scaling with factor 1 over the fans' average.

    Args:
      uniform: uniform in [-limit, limit] with limit = sqrt(6 / (fan_in + fan_out)); otherwise
        truncated normal with stddev sqrt(1.3 * 2 / (fan_in + fan_out)).
      seed: the op seed.
      dtype: a floating-point dtype.
    Returns:
      An initializer for a weight matrix.
    """
    return variance_scaling_initializer(factor=1.0, mode="FAN_AVG", uniform=uniform,
                                        seed=seed, dtype=dtype)


xavier_initializer_conv2d = xavier_initializer


def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None,
                                 dtype=dtypes.float32):
    """An initializer whose variance is `factor / n`, n being a fan of the shape.

    Args:
      factor: the variance multiplier (2.0: He et al.'s initializer for ReLU networks).
      mode: 'FAN_IN', 'FAN_OUT' or 'FAN_AVG'.
      uniform: uniform in [-sqrt(3 factor / n), +...]; otherwise truncated normal with
        stddev sqrt(1.3 factor / n).
      seed: the op seed.
      dtype: a floating-point dtype.
    Raises:
      TypeError: `dtype` is not floating point, or `mode` is unknown.
    """
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError("Cannot create initializer for non-floating point type.")
    if mode not in ["FAN_IN", "FAN_OUT", "FAN_AVG"]:
        raise TypeError("Unknown mode %s [FAN_IN, FAN_OUT, FAN_AVG]" % mode)

    def _initializer(shape, dtype=dtype, partition_info=None):
        dtype = dtypes.as_dtype(dtype)
        if not dtype.is_floating:
            raise TypeError("Cannot create initializer for non-floating point type.")
        shape = list(shape)
        if shape:
            fan_in = float(shape[-2]) if len(shape) > 1 else float(shape[-1])
            fan_out = float(shape[-1])
        else:
            fan_in = fan_out = 1.0
        for dim in shape[:-2]:
            fan_in *= float(dim)
            fan_out *= float(dim)
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[mode]
        if uniform:
            limit = math.sqrt(3.0 * factor / n)
            return random_ops.random_uniform(shape, -limit, limit, dtype, seed=seed)
        stddev = math.sqrt(1.3 * factor / n)
        return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=seed)

    return _initializer
