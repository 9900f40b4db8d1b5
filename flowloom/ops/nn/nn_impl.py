"""`tf.nn` functions built from other ops: sigmoid cross-entropy, l2_normalize, moments,
batch normalisation, dropout."""

import numbers

from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.nn import batch_norm_ops  # noqa: F401 - registers FusedBatchNormV3
from flowloom.ops.math import math_ops
from flowloom.ops.nn import nn_ops
from flowloom.ops.random import random_ops


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """Logistic loss, computed stably: max(x, 0) - x * z + log(1 + exp(-|x|)).

    Args:
      labels: tensor of the same shape and type as `logits`, values in [0, 1].
      logits: float tensor.

    Returns:
      The elementwise loss (named `logistic_loss` by default).

    Raises:
      ValueError: if the shapes of `logits` and `labels` differ.
    """
    if _sentinel is not None:
        raise ValueError("Only call `sigmoid_cross_entropy_with_logits` with named arguments "
                         "(labels=..., logits=..., ...). Received unnamed argument: "
                         f"{_sentinel}")
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        if not logits._shape.is_compatible_with(labels._shape):
            raise ValueError(f"`logits` and `labels` must have the same shape, received "
                             f"({logits._shape} vs {labels._shape}).")
        zeros = array_ops.zeros_like(logits, dtype=logits.dtype)
        cond = logits >= zeros
        relu_logits = array_ops.where(cond, logits, zeros)
        neg_abs_logits = array_ops.where(cond, -logits, logits)
        return math_ops.add(relu_logits - logits * labels,
                            math_ops.log1p(math_ops.exp(neg_abs_logits)), name=scope)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None,
                                       targets=None):
    """Sigmoid cross-entropy with positive examples weighted by `pos_weight`."""
    labels = targets if labels is None else labels
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        if not logits._shape.is_compatible_with(labels._shape):
            raise ValueError(f"`logits` and `labels` must have the same shape, received "
                             f"({logits._shape} vs {labels._shape}).")
        log_weight = 1 + (pos_weight - 1) * labels
        return math_ops.add(
            (1 - labels) * logits,
            log_weight * (math_ops.log1p(math_ops.exp(-math_ops.abs(logits))) +
                          _relu(-logits)), name=scope)


def _relu(x):
    from flowloom.ops.nn import nn_ops

    return nn_ops.relu(x)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon)).

    Args:
      x: a float tensor.
      axis: the dimension(s) to normalise along.
      epsilon: lower bound on the squared norm.

    Returns:
      A tensor shaped like `x`.
    """
    axis = dim if axis is None else axis
    with name_scope(name, "l2_normalize", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        square_sum = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        x_inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, epsilon))
        return math_ops.multiply(x, x_inv_norm, name=scope)


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """Mean and variance of `x` over `axes`.

    Args:
      x: a tensor.
      axes: the dimensions to reduce.
      keep_dims/keepdims: keep the reduced dimensions with size 1.

    Returns:
      (mean, variance).
    """
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope(name, "moments", [x, axes]):
        x = convert_to_tensor(x)
        y = math_ops.cast(x, dtypes.float32) if x.dtype.base_dtype == dtypes.float16 else x
        mean = math_ops.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = math_ops.reduce_mean(
            math_ops.squared_difference(y, array_ops.stop_gradient(mean)), axes, keepdims=True,
            name="variance")
        if not keep:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        if x.dtype.base_dtype == dtypes.float16:
            return math_ops.cast(mean, dtypes.float16), math_ops.cast(variance, dtypes.float16)
        return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset.

    Args:
      x: the input.
      mean, variance: broadcastable statistics.
      offset, scale: broadcastable β and γ, or None.
      variance_epsilon: small float added to the variance.

    Returns:
      The normalised tensor.
    """
    with name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv = inv * scale
        x = convert_to_tensor(x)
        shift = offset - mean * inv if offset is not None else -mean * inv
        return x * math_ops.cast(inv, x.dtype.base_dtype) + math_ops.cast(
            shift, x.dtype.base_dtype)


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001,
                     data_format="NHWC", is_training=True, name=None,
                     exponential_avg_factor=1.0):
    """Batch normalisation in one op (`FusedBatchNormV3`).

    Args:
      x: 4-D input tensor.
      scale, offset: 1-D per-channel γ and β.
      mean, variance: population statistics (required when not training).
      epsilon: added to the variance (at least 1.001e-5, as in TF).
      data_format: "NHWC" or "NCHW".
      is_training: normalise with the batch statistics.
      exponential_avg_factor: running-average factor for the returned statistics.

    Returns:
      (y, batch_mean or running mean, batch_variance or running variance).

    Raises:
      ValueError: when mean/variance are missing at inference.
    """
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or
                                                                variance is None):
        raise ValueError("Both `mean` and `variance` must be a 1D tensor when is_training is "
                         f"False or exponential_avg_factor != 1.0. Received: `mean` {mean!r} "
                         f"and `variance` {variance!r}")
    with name_scope(name, "FusedBatchNormV3", [x, scale, offset]) as scope:
        x = convert_to_tensor(x, name="input")
        scale = convert_to_tensor(scale, name="scale")
        offset = convert_to_tensor(offset, name="offset")
        if mean is None:
            mean = array_ops.constant([], dtype=scale.dtype.base_dtype)
        if variance is None:
            variance = array_ops.constant([], dtype=scale.dtype.base_dtype)
        min_epsilon = 1.001e-5
        epsilon = epsilon if epsilon > min_epsilon else min_epsilon
        y, m, v, _, _, _ = apply_op(
            "FusedBatchNormV3", (x, scale, offset, mean, variance), name=scope,
            epsilon=float(epsilon), exponential_avg_factor=float(exponential_avg_factor),
            data_format=data_format, is_training=is_training).outputs
        return y, m, v


def _noise_shape(x, noise_shape):
    if noise_shape is None:
        return array_ops.shape(x)
    try:
        given = [None if isinstance(d, Tensor) else d for d in noise_shape]
    except TypeError:
        return noise_shape
    if x._shape.ndims is not None and len(given) == x._shape.ndims:
        # None entries take the size of x there, as TF allows.
        dims = x._shape.as_list()
        if all(g is not None or d is not None for g, d in zip(given, dims)):
            return [d if g is None else g for g, d in zip(given, dims)]
    return noise_shape


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Zeroes entries of `x` with probability `rate` and scales the rest by 1 / (1 - rate).

    Args:
      x: a float tensor.
      keep_prob: TF1's argument: 1 - rate (deprecated there, accepted here).
      noise_shape: the shape of the keep/drop mask, broadcast against `x`.
      seed: op seed (TF's seed rules).
      rate: the drop probability, in [0, 1).

    Returns:
      A tensor shaped like `x`.

    Raises:
      ValueError: for a rate outside [0, 1) or both/neither of keep_prob and rate.
    """
    if keep_prob is not None and rate is not None:
        raise ValueError("Cannot specify both 'keep_prob' and 'rate' at the same time.")
    if keep_prob is not None:
        if isinstance(keep_prob, numbers.Real) and not 0 < keep_prob <= 1:
            raise ValueError(f"`keep_prob` must be a floating point number in the range "
                             f"(0, 1]. Received: keep_prob={keep_prob}")
        try:
            rate = 1 - keep_prob
        except TypeError:
            raise ValueError(f"keep_prob must be a floating point number or Tensor "
                             f"(got {keep_prob!r})") from None
    if rate is None:
        raise ValueError("rate must be specified")
    with name_scope(name, "dropout", [x]):
        x = convert_to_tensor(x, name="x")
        dtype = x.dtype.base_dtype
        if not dtype.is_floating:
            raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                             f"Received: x_dtype={dtype}")
        is_number = isinstance(rate, numbers.Real)
        if is_number and (rate < 0 or rate >= 1):
            raise ValueError("`rate` must be a scalar tensor or a float in the range [0, 1). "
                             f"Received: rate={rate}")
        if is_number and rate == 0:
            return x
        if random_ops.seed_rules() == "1":
            return _dropout_tf1_graph(x, rate, noise_shape, seed)
        if is_number:
            scale = convert_to_tensor(1 / (1 - rate), dtype=dtype)
            ret = apply_op("Mul", (x, scale)).outputs[0]
            rate_t = rate
        else:
            rate_t = convert_to_tensor(rate, name="rate")
            if rate_t._shape.ndims not in (None, 0):
                raise ValueError(f"Shape must be rank 0 but is rank {rate_t._shape.ndims}")
            if rate_t.dtype.base_dtype != dtype:
                # TF 1.15 converts rate with x's dtype; TF 2 checks compatibility: both fail.
                raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor "
                                 f"with dtype {rate_t.dtype.base_dtype.name}: {rate_t}")
            one = array_ops.constant(1, dtype=dtype)
            ret = apply_op("RealDiv", (x, apply_op("Sub", (one, rate_t)).outputs[0])).outputs[0]
        shape = _noise_shape(x, noise_shape)
        random_tensor = random_ops.random_uniform(shape, seed=seed, dtype=dtype)
        keep_mask = random_tensor >= rate_t
        zero = array_ops.constant(0, dtype=dtype)
        ret = array_ops.where_v2(keep_mask, ret, zero)
        ret.set_shape(x._shape)
        return ret


def _dropout_tf1_graph(x, rate, noise_shape, seed):
    """Dropout built from TF 1.15's ops, in its order (`x * (1 / (1 - rate)) * cast(mask)`).

    Under TF 1.15's seed rule a default op seed is the number of ops made so far, so a seeded
    TF1 program gets TF's masks only when the ops before the RandomUniform are TF's.
    """
    dtype = x.dtype.base_dtype
    rate = convert_to_tensor(rate, dtype=dtype, name="rate")
    if rate._shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {rate._shape.ndims}")
    random_tensor = random_ops.random_uniform(_noise_shape(x, noise_shape), seed=seed,
                                              dtype=dtype)
    scale = 1 / (1 - rate)
    keep_mask = random_tensor >= rate
    ret = x * scale * math_ops.cast(keep_mask, dtype)
    ret.set_shape(x._shape)
    return ret


def zero_fraction(value, name=None):
    """The fraction of zeros in `value` (float32 scalar named `fraction`).

    TF counts in int32 or int64 under a `cond` on the size; flowloom counts in int64 always
    (same value, no control flow).
    """
    with name_scope(name, "zero_fraction", [value]):
        value = convert_to_tensor(value, name="value")
        size = array_ops.size(value, out_type=dtypes.int64)
        zero = array_ops.zeros([], dtype=value.dtype.base_dtype)
        num_nonzero = math_ops.reduce_sum(
            math_ops.cast(math_ops.not_equal(value, zero), dtypes.int64))
        with name_scope("counts_to_fraction"):
            num_zero = size - num_nonzero
            fraction = math_ops.cast(num_zero, dtypes.float32) / math_ops.cast(
                size, dtypes.float32)
        return array_ops.identity(fraction, "fraction")


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,  # noqa: A002
                     rate=None, name=None, data_format=None, dilations=None):
    """A depthwise convolution followed by a 1x1 convolution mixing channels.

    Raises:
      ValueError: when the pointwise filter is not 1x1.
    """
    rate = dilations if rate is None else rate
    data_format = data_format or "NHWC"
    with name_scope(name, "separable_conv2d",
                    [input, depthwise_filter, pointwise_filter]) as scope:
        input = convert_to_tensor(input, name="tensor_in")
        depthwise_filter = convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pointwise_filter = convert_to_tensor(pointwise_filter, name="pointwise_filter")
        ps = pointwise_filter._shape
        if ps.ndims is not None and (ps.ndims != 4 or ps.as_list()[0] not in (1, None) or
                                     ps.as_list()[1] not in (1, None)):
            raise ValueError(f"Dimensions must be equal, but are {ps.as_list()[:2]} and "
                             "[1, 1] (pointwise filter)")
        depthwise = nn_ops.depthwise_conv2d_native(
            input, depthwise_filter, strides, padding, data_format=data_format,
            dilations=nn_ops._four([1, 1] if rate is None else list(rate), data_format),
            name="depthwise")
        return apply_op("Conv2D", (depthwise, pointwise_filter), name=scope,
                        strides=[1, 1, 1, 1], padding="VALID", data_format=data_format,
                        dilations=[1, 1, 1, 1]).outputs[0]


def xw_plus_b(x, weights, biases, name=None):
    """matmul(x, weights) + biases (ops MatMul and BiasAdd, scope `xw_plus_b`)."""
    with name_scope(name, "xw_plus_b", [x, weights, biases]) as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        mm = math_ops.matmul(x, weights)
        return nn_ops.bias_add(mm, biases, name=scope)


def relu_layer(x, weights, biases, name=None):
    """relu(matmul(x, weights) + biases) (scope `relu_layer`)."""
    with name_scope(name, "relu_layer", [x, weights, biases]) as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        xw_plus_b_v1 = nn_ops.bias_add(math_ops.matmul(x, weights), biases)
        return nn_ops.relu(xw_plus_b_v1, name=scope)
