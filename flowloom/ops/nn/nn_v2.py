"""TF 1.15's `_v2` neural-network functions (TF2's `tf.nn` signatures, also in TF 1.15 as
`tf.nn.max_pool_v2`, `nn_ops.softmax_v2`, ...), the rank-dispatching pool and transposed
convolution, and the data-format ops DataFormatDimMap / DataFormatVecPermute / MaxPoolV2.

Each `_v2` function builds the same ops as its TF1 counterpart with TF2's argument order and
defaults (`rate` instead of `keep_prob`, `keepdims`, `filters`, no `partition_strategy`).
"""

import collections.abc

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape
from flowloom.framework.tensor_util import constant_value


def _get_sequence(value, n, channel_index, name):
    """A full-rank ksize/strides/dilations list (TF's nn_ops._get_sequence)."""
    if value is None:
        value = [1]
    elif not isinstance(value, collections.abc.Sized):
        value = [value]
    current_n = len(value)
    if current_n == n + 2:
        return value
    if current_n == 1:
        value = list((value[0],) * n)
    elif current_n == n:
        value = list(value)
    else:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2} but was {current_n}")
    return [1, 1] + value if channel_index == 1 else [1] + value + [1]


# -- Softmax, normalisation, moments, dropout ---------------------------------------------------
def softmax_v2(logits, axis=None, name=None):
    """Softmax along `axis` (default the last): exp(logits) / reduce_sum(exp(logits), axis)."""
    from flowloom.ops.nn.activation_ops import softmax

    return softmax(logits, axis=-1 if axis is None else axis, name=name)


def log_softmax_v2(logits, axis=None, name=None):
    """Log-softmax along `axis` (default the last): logits - log(reduce_sum(exp(logits)))."""
    from flowloom.ops.nn.activation_ops import log_softmax

    return log_softmax(logits, axis=-1 if axis is None else axis, name=name)


def l2_normalize_v2(x, axis=None, epsilon=1e-12, name=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon)) (TF2 signature of tf.nn.l2_normalize)."""
    from flowloom.ops.nn.nn_impl import l2_normalize

    return l2_normalize(x, axis=axis, epsilon=epsilon, name=name)


def moments_v2(x, axes, shift=None, keepdims=False, name=None):
    """(mean, variance) of `x` over `axes` (TF2 signature of tf.nn.moments)."""
    from flowloom.ops.nn.nn_impl import moments

    return moments(x, axes, shift=shift, name=name, keepdims=keepdims)


def dropout_v2(x, rate, noise_shape=None, seed=None, name=None):
    """Drops entries of `x` with probability `rate` and scales the rest by 1 / (1 - rate).

    Args:
      x: a floating-point tensor.
      rate: the drop probability: a float in [0, 1) or a scalar tensor.
      noise_shape: the shape of the keep/drop mask (broadcast against `x`).
      seed: op seed.
      name: op name.

    Returns:
      A tensor shaped like `x` (`x` itself when rate is 0).

    Raises:
      ValueError: `x` not floating point, or `rate` outside [0, 1) or not a scalar.
    """
    from flowloom.ops.nn.nn_impl import dropout

    return dropout(x, noise_shape=noise_shape, seed=seed, name=name, rate=rate)


# -- Pooling ------------------------------------------------------------------------------------
def _pool_rank(input, data_format):  # noqa: A002
    shape = getattr(input, "shape", None)
    if shape is not None and not isinstance(shape, TensorShape):
        shape = TensorShape(shape)
    if shape is not None and shape.ndims is not None:
        n = shape.ndims - 2
    elif data_format is not None:
        n = len(data_format) - 2
    else:
        raise ValueError("The input must have a rank or a data format must be given.")
    if not 1 <= n <= 3:
        raise ValueError(f"Input tensor must be of rank 3, 4 or 5 but was {n + 2}.")
    channel_index = n + 1 if data_format is None else (
        1 if data_format.startswith("NC") else n + 1)
    return n, channel_index


def _pool_v2(kind):
    def pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
        from flowloom.ops.nn import conv3d_ops, nn_extras, nn_ops

        n, channel_index = _pool_rank(input, data_format)
        ksize = _get_sequence(ksize, n, channel_index, "ksize")
        strides = _get_sequence(strides, n, channel_index, "strides")
        op = {1: getattr(nn_extras, f"{kind}_pool1d"), 2: getattr(nn_ops, f"{kind}_pool"),
              3: getattr(conv3d_ops, f"{kind}_pool3d")}[n]
        kwargs = {} if data_format is None else {"data_format": data_format}
        return op(input, ksize=ksize, strides=strides, padding=padding, name=name, **kwargs)
    pool.__name__ = f"{kind}_pool_v2"
    pool.__doc__ = (f"{kind.capitalize()} pooling of a 3-, 4- or 5-D input (1-, 2- or 3-D "
                    "windows, chosen by the input's rank); ksize/strides: 1, N or N+2 ints.")
    return pool


max_pool_v2 = _pool_v2("max")
avg_pool_v2 = _pool_v2("avg")

_POOL_V2_ATTRS = {"padding": None, "data_format": "NHWC", "T": dtypes.float32}
MaxPoolV2 = defop("MaxPoolV2", inputs=["input: T", "ksize: int32", "strides: int32"],
                  outputs=["output: T"], attrs=_POOL_V2_ATTRS)


def _static_list(t):
    value = constant_value(t)
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


class _StaticAttrsView:
    """An op seen with its ksize/strides inputs as attrs (MaxPool's shape function reads
    attrs)."""

    def __init__(self, op, ksize, strides):
        self._inputs, self.name = op._inputs, op.name
        self._attrs = dict(op._attrs, ksize=ksize, strides=strides)


@MaxPoolV2.shape
def _(op):
    from flowloom.ops.nn.nn_ops import MaxPool

    s = op._inputs[0]._shape
    if s.ndims is not None and s.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {s.ndims}")
    ksize, strides = _static_list(op._inputs[1]), _static_list(op._inputs[2])
    if ksize is None or strides is None or s.ndims is None:
        return TensorShape([None] * 4)
    for what, v in (("ksize", ksize), ("strides", strides)):
        if len(v) != 4:
            raise ValueError(f"{what} must have 4 elements, got {len(v)}")
    return MaxPool.shape_fn(_StaticAttrsView(op, ksize, strides))


@MaxPoolV2.kernel
def _(xp, x, ksize, strides, *, padding, data_format):
    from flowloom.ops.nn.nn_ops import MaxPool

    ksize, strides = [int(v) for v in ksize.reshape(-1)], [int(v) for v in strides.reshape(-1)]
    for what, v in (("ksize", ksize), ("strides", strides)):
        if len(v) != 4:
            raise errors.InvalidArgumentError(
                None, None, f"Sliding window {what} field must specify 4 dimensions")
    return MaxPool.kernel_fn(xp, x, ksize=ksize, strides=strides, padding=padding,
                             data_format=data_format)


def max_pool_v2_op(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """The MaxPoolV2 op (gen_nn_ops.max_pool_v2): max pooling with `ksize` and `strides` as
    int32 tensors (4 values each, in `data_format` order)."""
    return apply_op("MaxPoolV2", (input, convert_to_tensor(ksize, dtype=dtypes.int32),
                                  convert_to_tensor(strides, dtype=dtypes.int32)),
                    name=name, padding=padding, data_format=data_format).outputs[0]


# -- Transposed convolution ------------------------------------------------------------------
def conv2d_transpose_v2(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                        data_format="NHWC", dilations=None, name=None):
    """The transpose (gradient) of conv2d: Conv2DBackpropInput of `input` by `filters`
    ([h, w, out_channels, in_channels]); strides/dilations: 1, 2 or 4 ints."""
    from flowloom.ops.nn.nn_ops import conv2d_backprop_input

    with name_scope(name, "conv2d_transpose", [input, filters, output_shape]) as scope:
        data_format = data_format or "NHWC"
        channel_index = 1 if data_format.startswith("NC") else 3
        strides = _get_sequence(strides, 2, channel_index, "strides")
        dilations = _get_sequence(dilations, 2, channel_index, "dilations")
        return conv2d_backprop_input(output_shape, filters, input, strides, padding,
                                     data_format=data_format, dilations=dilations, name=scope)


def conv3d_transpose_v2(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                        data_format="NDHWC", dilations=None, name=None):
    """The transpose of conv3d: Conv3DBackpropInputV2 of `input` by `filters`
    ([d, h, w, out_channels, in_channels]); strides/dilations: 1, 3 or 5 ints."""
    with name_scope(name, "conv3d_transpose", [input, filters, output_shape]) as scope:
        data_format = data_format or "NDHWC"
        channel_index = 1 if data_format.startswith("NC") else 4
        strides = _get_sequence(strides, 3, channel_index, "strides")
        dilations = _get_sequence(dilations, 3, channel_index, "dilations")
        shape = convert_to_tensor(output_shape, dtype=dtypes.int32, name="input_sizes")
        return apply_op("Conv3DBackpropInputV2", (shape, filters, input), name=scope,
                        strides=strides, padding=padding, data_format=data_format,
                        dilations=dilations).outputs[0]


def conv_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                   data_format=None, dilations=None, name=None):
    """The transpose of `convolution`, 1-, 2- or 3-D by the length of `output_shape`.

    Raises:
      ValueError: `output_shape` not a tensor or sized collection, or not of length 3-5.
    """
    from flowloom.ops.nn.nn_extras import conv1d_transpose

    with name_scope(name, "conv_transpose", [input, filters, output_shape]) as scope:
        if isinstance(output_shape, Tensor):
            n = output_shape.shape[0].value - 2
        elif isinstance(output_shape, collections.abc.Sized):
            n = len(output_shape) - 2
        else:
            raise ValueError("output_shape must be a tensor or sized collection.")
        if not 1 <= n <= 3:
            raise ValueError(f"output_shape must be of length 3, 4 or 5 but was {n + 2}.")
        op = (conv1d_transpose, conv2d_transpose_v2, conv3d_transpose_v2)[n - 1]
        return op(input, filters, output_shape, strides, padding=padding,
                  data_format=data_format, dilations=dilations, name=scope)


# -- Sampled losses -----------------------------------------------------------------------------
def nce_loss_v2(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                sampled_values=None, remove_accidental_hits=False, name="nce_loss"):
    """Noise-contrastive estimation loss with TF2's signature (shards split "div")."""
    from flowloom.ops.nn.sampled_losses import nce_loss

    return nce_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                    num_true=num_true, sampled_values=sampled_values,
                    remove_accidental_hits=remove_accidental_hits, partition_strategy="div",
                    name=name)


def sampled_softmax_loss_v2(weights, biases, labels, inputs, num_sampled, num_classes,
                            num_true=1, sampled_values=None, remove_accidental_hits=True,
                            seed=None, name="sampled_softmax_loss"):
    """Sampled softmax loss with TF2's signature (shards split "div")."""
    from flowloom.ops.nn.sampled_losses import sampled_softmax_loss

    return sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                                num_true=num_true, sampled_values=sampled_values,
                                remove_accidental_hits=remove_accidental_hits,
                                partition_strategy="div", name=name, seed=seed)


# -- Data-format ops ----------------------------------------------------------------------------
_FORMAT_ATTRS = {"T": dtypes.int32, "src_format": "NHWC", "dst_format": "NCHW"}
DataFormatDimMap = defop("DataFormatDimMap", inputs=["x: T"], outputs=["y: T"],
                         attrs=_FORMAT_ATTRS)
DataFormatDimMap.shape(lambda op: op._inputs[0]._shape)


def _formats(src_format, dst_format):
    src = src_format.decode() if isinstance(src_format, bytes) else src_format
    dst = dst_format.decode() if isinstance(dst_format, bytes) else dst_format
    if len(src) != 4 or len(dst) != 4 or sorted(src) != sorted(dst):
        raise errors.InvalidArgumentError(
            None, None, f"Source format must of length 4, and destination format must be a "
            f"permutation of it, got {src!r} and {dst!r}")
    return src, dst


@DataFormatDimMap.kernel
def _(xp, x, *, src_format, dst_format):
    src, dst = _formats(src_format, dst_format)
    table = np.array([dst.index(c) for c in src], dtype=x.dtype)
    return table[np.mod(x, 4)].astype(x.dtype)


DataFormatVecPermute = defop("DataFormatVecPermute", inputs=["x: T"], outputs=["y: T"],
                             attrs=_FORMAT_ATTRS)
DataFormatVecPermute.shape(lambda op: op._inputs[0]._shape)


@DataFormatVecPermute.kernel
def _(xp, x, *, src_format, dst_format):
    src, dst = _formats(src_format, dst_format)
    if x.ndim not in (1, 2):
        raise errors.InvalidArgumentError(
            None, None, f"input must be a vector or 2D tensor, but got shape {list(x.shape)}")
    if x.ndim == 1 and x.shape[0] != 4:
        raise errors.InvalidArgumentError(
            None, None, f"1D input must be of size 4, but got shape {list(x.shape)}")
    if x.ndim == 2 and (x.shape[0] != 4 or x.shape[1] != 2):
        raise errors.InvalidArgumentError(
            None, None, "2D input must be of size 4 x 2, but got shape " + str(list(x.shape)))
    return x[[src.index(c) for c in dst]]


def data_format_dim_map(x, src_format="NHWC", dst_format="NCHW", name=None):
    """The index in `dst_format` of each dimension index `x` (in [-4, 4)) of `src_format`."""
    return apply_op("DataFormatDimMap", (x,), name=name, src_format=src_format,
                    dst_format=dst_format).outputs[0]


def data_format_vec_permute(x, src_format="NHWC", dst_format="NCHW", name=None):
    """Permutes a 4-vector (or the rows of a [4, 2] tensor) from `src_format` order to
    `dst_format` order."""
    return apply_op("DataFormatVecPermute", (x,), name=name, src_format=src_format,
                    dst_format=dst_format).outputs[0]
