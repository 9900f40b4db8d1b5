"""tf.nn functions TF composes from other ops: crelu, swish, log_poisson_loss, 1-D pools,
conv1d_transpose, atrous_conv2d, convolution/pool dispatch, moments helpers,
embedding_lookup_sparse."""

import math

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops, unary_ops
from flowloom.ops.math.reduction_ops import reduce_sum


def crelu(features, name=None, axis=-1):
    """Concatenated ReLU: relu(concat([x, -x], axis)); the depth doubles."""
    from flowloom.ops.nn.nn_ops import relu

    with name_scope(name, "CRelu", [features]) as scope:
        features = convert_to_tensor(features, name="features")
        c = array_ops.concat([features, -features], axis, name=scope)
        return relu(c)


def swish(features):
    """x * sigmoid(x), with the memory-light gradient TF defines for it."""
    from flowloom.framework.custom_gradient import custom_gradient
    from flowloom.framework.graph import control_dependencies

    @custom_gradient
    def _swish(x):
        def grad(dy):
            with control_dependencies([dy]):
                sig = unary_ops.sigmoid(x)
            return dy * (sig * (1.0 + x * (1.0 - sig)))
        return x * unary_ops.sigmoid(x), grad

    return _swish(convert_to_tensor(features, name="features"))


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - log_input * targets (+ Stirling's term for targets > 1 if
    compute_full_loss)."""
    with name_scope(name, "log_poisson_loss", [targets, log_input]):
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, name="targets")
        if not targets._shape.is_compatible_with(log_input._shape):
            raise ValueError(f"log_input and targets must have the same shape "
                             f"({log_input._shape} vs {targets._shape})")
        result = unary_ops.exp(log_input) - log_input * targets
        if compute_full_loss:
            point_five = array_ops.constant(0.5, dtype=targets.dtype)
            two_pi = array_ops.constant(2 * math.pi, dtype=targets.dtype)
            stirling = (targets * unary_ops.log(targets)) - targets + (
                point_five * unary_ops.log(two_pi * targets))
            zeros = array_ops.zeros_like(targets, dtype=targets.dtype)
            ones = array_ops.ones_like(targets, dtype=targets.dtype)
            cond = math_ops.logical_and(targets >= zeros, targets <= ones)
            result += array_ops.where(cond, zeros, stirling)
        return result


def _sequence(value, n, channel_index, what):
    """TF's _get_sequence: a full-rank stride/ksize list with 1 at batch and channels."""
    if value is None:
        value = 1
    values = [value] if isinstance(value, (int, np.integer)) else list(value)
    if len(values) == 1:
        values = values * n
    elif len(values) == n + 2:
        return values
    elif len(values) != n:
        raise ValueError(f"{what} should be of length 1, {n} or {n + 2} but was {len(values)}")
    return [1] + values + [1] if channel_index != 1 else [1, 1] + values


def _pool1d(op_type, default_name):
    def pool(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
        with name_scope(name, default_name, [input]) as scope:
            data_format = data_format or "NWC"
            channel_index = 1 if data_format.startswith("NC") else 2
            ksize = [1] + _sequence(ksize, 1, channel_index, "ksize")
            strides = [1] + _sequence(strides, 1, channel_index, "strides")
            expanding_dim = 1 if data_format == "NWC" else 2
            data_format = "NHWC" if data_format == "NWC" else "NCHW"
            x = array_ops.expand_dims(input, expanding_dim)
            result = apply_op(op_type, (x,), name=scope, ksize=ksize, strides=strides,
                              padding=padding, data_format=data_format).outputs[0]
            return array_ops.squeeze(result, [expanding_dim])
    pool.__name__ = default_name.lower()
    pool.__doc__ = (f"1-D {op_type[:3].lower()} pooling of [batch, width, channels] (NWC) or "
                    f"NCW, as TF builds it: ExpandDims, {op_type}, Squeeze.")
    return pool


max_pool1d = _pool1d("MaxPool", "MaxPool1d")
avg_pool1d = _pool1d("AvgPool", "AvgPool1D")


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NWC", dilations=None, name=None):
    """The transpose (gradient) of conv1d: ExpandDims, Conv2DBackpropInput, Squeeze."""
    with name_scope(name, "conv1d_transpose", [input, filters, output_shape]) as scope:
        if data_format is None or data_format == "NWC":
            data_format, spatial_start_dim, channel_index = "NHWC", 1, 2
        elif data_format == "NCW":
            data_format, spatial_start_dim, channel_index = "NCHW", 2, 1
        else:
            raise ValueError("data_format must be \"NWC\" or \"NCW\".")
        strides = [1] + _sequence(strides, 1, channel_index, "stride")
        dilations = [1] + _sequence(dilations, 1, channel_index, "dilations")
        x = array_ops.expand_dims(input, spatial_start_dim)
        filters = array_ops.expand_dims(filters, 0)
        if not isinstance(output_shape, Tensor):
            output_shape = list(output_shape)
        shape = convert_to_tensor(output_shape, dtype=dtypes.int32)
        shape = array_ops.concat([shape[:spatial_start_dim], [1], shape[spatial_start_dim:]], 0)
        result = apply_op("Conv2DBackpropInput", (shape, filters, x), name=scope,
                          strides=strides, padding=padding, data_format=data_format,
                          dilations=dilations).outputs[0]
        return array_ops.squeeze(result, [spatial_start_dim])


def atrous_conv2d(value, filters, rate, padding, name=None):
    """2-D convolution with holes (dilation `rate` in height and width)."""
    from flowloom.ops.nn.nn_ops import conv2d

    with name_scope(name, "convolution", [value, filters]) as scope:
        return conv2d(value, filters, strides=[1, 1, 1, 1], padding=padding,
                      dilations=[1, rate, rate, 1], name=scope)


def convolution(input, filter, padding, strides=None, dilation_rate=None,  # noqa: A002
                name=None, data_format=None, filters=None, dilations=None):
    """N-D convolution (N = 1, 2, 3 spatial dims, from the filter's rank)."""
    from flowloom.ops.nn import conv3d_ops, nn_ops

    filter = filters if filter is None else filter  # noqa: A001
    dilation_rate = dilations if dilation_rate is None else dilation_rate
    rank = convert_to_tensor(filter)._shape.ndims
    if rank is None:
        raise ValueError("the filter of tf.nn.convolution needs a known rank")
    n = rank - 2
    strides = [1] * n if strides is None else list(np.broadcast_to(strides, (n,)))
    rate = [1] * n if dilation_rate is None else list(np.broadcast_to(dilation_rate, (n,)))
    channels_first = data_format is not None and data_format.startswith("NC")
    full = (lambda v: [1, 1] + v) if channels_first else (lambda v: [1] + v + [1])
    with name_scope(name, "convolution", [input, filter]) as scope:
        if n == 1:
            return nn_ops.conv1d(input, filter, stride=strides, padding=padding,
                                 data_format="NCW" if channels_first else "NWC",
                                 dilations=rate, name=scope)
        if n == 2:
            return nn_ops.conv2d(input, filter, strides=full(strides), padding=padding,
                                 data_format="NCHW" if channels_first else "NHWC",
                                 dilations=full(rate), name=scope)
        if n == 3:
            return conv3d_ops.conv3d(input, filter, strides=full(strides), padding=padding,
                                     data_format="NCDHW" if channels_first else "NDHWC",
                                     dilations=full(rate), name=scope)
        raise ValueError(f"tf.nn.convolution supports 1 to 3 spatial dimensions, got {n}")


def pool(input, window_shape, pooling_type, padding, dilation_rate=None,  # noqa: A002
         strides=None, name=None, data_format=None, dilations=None):
    """N-D max or average pooling (N = 1, 2, 3)."""
    from flowloom.ops.nn import conv3d_ops, nn_ops

    dilation_rate = dilations if dilation_rate is None else dilation_rate
    n = len(window_shape)
    if dilation_rate is not None and any(int(r) != 1 for r in np.ravel(dilation_rate)):
        raise NotImplementedError("tf.nn.pool with dilation_rate > 1")
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"Invalid pooling_type: {pooling_type}")
    strides = list(window_shape) if strides is None else list(strides)
    strides = [1] * n if strides is None else strides
    channels_first = data_format is not None and data_format.startswith("NC")
    full = (lambda v: [1, 1] + list(v)) if channels_first else (lambda v: [1] + list(v) + [1])
    kind = "max" if pooling_type == "MAX" else "avg"
    with name_scope(name, f"{kind}_pool", [input]) as scope:
        if n == 1:
            fn = max_pool1d if kind == "max" else avg_pool1d
            return fn(input, window_shape, strides, padding,
                      data_format="NCW" if channels_first else "NWC", name=scope)
        if n == 2:
            fn = nn_ops.max_pool if kind == "max" else nn_ops.avg_pool
            return fn(input, full(window_shape), full(strides), padding,
                      data_format="NCHW" if channels_first else "NHWC", name=scope)
        if n == 3:
            fn = conv3d_ops.max_pool3d if kind == "max" else conv3d_ops.avg_pool3d
            return fn(input, full(window_shape), full(strides), padding,
                      data_format="NCDHW" if channels_first else "NDHWC", name=scope)
        raise ValueError(f"tf.nn.pool supports 1 to 3 spatial dimensions, got {n}")


# -- moments helpers --------------------------------------------------------------------------
def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """(count, sum of x - shift, sum of squares of x - shift, shift) over `axes`."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    axes = list(set(axes))
    with name_scope(name, "sufficient_statistics", [x, shift]):
        x = convert_to_tensor(x, name="x")
        x_shape = x._shape
        dims = x_shape.as_list() if x_shape.ndims is not None else None
        if dims is not None and all(dims[d] is not None for d in axes):
            counts = 1
            for d in axes:
                counts *= dims[d]
            counts = array_ops.constant(counts, dtype=x.dtype)
        else:
            x_dims = array_ops.gather(math_ops.cast(array_ops.shape(x), x.dtype), axes)
            from flowloom.ops.math.reduction_ops import reduce_prod

            counts = reduce_prod(x_dims, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, name="shift")
            m_ss = math_ops.subtract(x, shift)
            v_ss = math_ops.squared_difference(x, shift)
        else:
            m_ss, v_ss = x, unary_ops.square(x)
        m_ss = reduce_sum(m_ss, axes, keepdims=keep, name="mean_ss")
        v_ss = reduce_sum(v_ss, axes, keepdims=keep, name="var_ss")
    return counts, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics."""
    with name_scope(name, "normalize", [counts, mean_ss, variance_ss, shift]):
        divisor = math_ops.reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="shifted_mean")
            mean = math_ops.add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="mean")
            mean = shifted_mean
        variance = math_ops.subtract(math_ops.multiply(variance_ss, divisor),
                                     unary_ops.square(shifted_mean), name="variance")
    return mean, variance


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """Frequency-weighted mean and variance of `x` over `axes` (as TF 1.15: float16 computed
    in float32, divided by multiplying with the reciprocal of the weights' sum)."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope(name, "weighted_moments", [x, frequency_weights, axes]):
        x = convert_to_tensor(x, name="x")
        w = convert_to_tensor(frequency_weights, name="frequency_weights")
        needs_cast = x.dtype.base_dtype == dtypes.float16
        if needs_cast:
            x = math_ops.cast(x, dtypes.float32)
        w = math_ops.cast(w, x.dtype) if w.dtype != x.dtype else w
        weighted_input_sum = reduce_sum(w * x, axes, name="weighted_input_sum", keepdims=True)
        broadcasted_weights = w + array_ops.zeros_like(x)
        sum_of_weights = reduce_sum(broadcasted_weights, axes, name="sum_of_weights",
                                    keepdims=True)
        divisor = math_ops.reciprocal(sum_of_weights, name="inv_weight_sum")
        weighted_mean = math_ops.multiply(weighted_input_sum, divisor)
        weighted_distsq = reduce_sum(w * math_ops.squared_difference(x, weighted_mean), axes,
                                     name="weighted_distsq", keepdims=True)
        weighted_variance = math_ops.multiply(weighted_distsq, divisor)
        if not keep:
            weighted_mean = array_ops.squeeze(weighted_mean, axis=axes)
            weighted_variance = array_ops.squeeze(weighted_variance, axis=axes)
        if needs_cast:
            weighted_mean = math_ops.cast(weighted_mean, dtypes.float16)
            weighted_variance = math_ops.cast(weighted_variance, dtypes.float16)
        return weighted_mean, weighted_variance


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None,
                            combiner=None, max_norm=None):
    """Combines ("sum", "mean" (default), "sqrtn") the embeddings of each row's sparse ids,
    optionally weighted by `sp_weights`.

    Returns:
      A dense [rows, dim] tensor (rows = sp_ids.dense_shape[0], up to the last non-empty).
    """
    from flowloom.framework.sparse_tensor import SparseTensor
    from flowloom.ops.math.segment_reduction_ops import segment_mean, segment_sum
    from flowloom.ops.math.segment_ops import unique
    from flowloom.ops.nn.embedding_ops import _shard_list, embedding_lookup

    combiner = combiner or "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'")
    params = _shard_list(params)
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError("sp_ids must be SparseTensor")
    if sp_weights is not None:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError("sp_weights must be either None or SparseTensor")
        sp_ids.values.get_shape().assert_is_compatible_with(sp_weights.values.get_shape())
        sp_ids.indices.get_shape().assert_is_compatible_with(sp_weights.indices.get_shape())
        sp_ids.dense_shape.get_shape().assert_is_compatible_with(
            sp_weights.dense_shape.get_shape())
    with name_scope(name, "embedding_lookup_sparse", params + [sp_ids]) as scope:
        segment_ids = sp_ids.indices[:, 0]
        if segment_ids.dtype != dtypes.int32:
            segment_ids = math_ops.cast(segment_ids, dtypes.int32)
        ids, idx = unique(sp_ids.values)
        embeddings = embedding_lookup(params, ids, partition_strategy=partition_strategy,
                                      max_norm=max_norm)
        if embeddings.dtype.base_dtype in (dtypes.float16, dtypes.bfloat16):
            embeddings = math_ops.cast(embeddings, dtypes.float32)  # combined in float32, as TF
        embeddings = array_ops.gather(embeddings, idx)
        if sp_weights is None:
            if combiner == "mean":
                return segment_mean(embeddings, segment_ids, name=scope)
            weights = array_ops.ones_like(math_ops.cast(segment_ids, embeddings.dtype))
            values_shape = segment_ids._shape
        else:
            weights = sp_weights.values
            if weights.dtype != embeddings.dtype:
                weights = math_ops.cast(weights, embeddings.dtype)
            values_shape = sp_weights.values._shape
        # Weights broadcast over the embedding's dimensions.
        rank = embeddings._shape.ndims
        weights = array_ops.reshape(weights, array_ops.concat(
            [array_ops.shape(weights), array_ops.fill(
                array_ops.expand_dims(array_ops.rank(embeddings) - 1, 0), 1)], 0))
        if rank is not None:
            weights.set_shape(values_shape.concatenate([1] * (rank - 1)))
        if sp_weights is not None:
            embeddings *= weights
        if combiner == "sum":
            return segment_sum(embeddings, segment_ids, name=scope)
        summed = segment_sum(embeddings, segment_ids)
        if sp_weights is None:  # TF's SparseSegmentSqrtN: empty rows give 0
            return math_ops.div_no_nan(summed, unary_ops.sqrt(segment_sum(weights, segment_ids)),
                                       name=scope)
        if combiner == "mean":
            return math_ops.div(summed, segment_sum(weights, segment_ids), name=scope)
        return math_ops.div(summed, unary_ops.sqrt(segment_sum(math_ops.pow(weights, 2),
                                                                segment_ids)), name=scope)
