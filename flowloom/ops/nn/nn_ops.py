"""Neural-network ops: Relu, BiasAdd, convolutions (Conv2D, its transpose, depthwise) and
pooling. The NumPy kernels are in nn_kernels.py; Conv2D's backprop ops in conv_grad_ops.py."""

import numpy as np

from flowloom.framework import common_shapes, dtypes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.ops.nn import kernel_threads, nn_kernels

Relu = defop("Relu", inputs=["features: T"], outputs=["activations: T"])
Relu.shape(common_shapes.unchanged)


@Relu.kernel
def _(xp, x):
    if xp is np and x.ndim:  # large activations in row blocks on the kernels' workers
        out = np.empty_like(x)
        kernel_threads.over_batch(lambda s: np.maximum(x[s], 0, out=out[s]), x.shape[0],
                                  x.nbytes)
        return out
    return xp.maximum(x, 0).astype(x.dtype, copy=False)


@Relu.gradient
def _(op, grad):
    return apply_op("ReluGrad", (grad, op._outputs[0])).outputs[0]


ReluGrad = defop("ReluGrad", inputs=["gradients: T", "features: T"], outputs=["backprops: T"])
ReluGrad.shape(common_shapes.unchanged)


@ReluGrad.kernel
def _relu_grad(xp, gradients, features):
    # A multiply by the mask is ~20x faster than np.where with a broadcast zero.
    if xp is np and gradients.ndim and gradients.shape == features.shape:
        out = np.empty(gradients.shape, np.result_type(gradients, np.bool_))
        if gradients.nbytes < kernel_threads.PARALLEL_MIN_BYTES:  # one block: no slicing
            return np.multiply(gradients, features > 0, out=out)
        kernel_threads.over_batch(
            lambda s: np.multiply(gradients[s], features[s] > 0, out=out[s]),
            gradients.shape[0], gradients.nbytes)
        return out
    return gradients * (features > 0)


def _relu_grad_into(xp, gradients, features):
    """ReluGrad written into `gradients` (the memory_optimization rewrite, when the incoming
    gradient dies here): the same products, and masks of a few rows at a time instead of
    one the size of the input."""
    if not (gradients.ndim and gradients.shape == features.shape and
            np.result_type(gradients, np.bool_) == gradients.dtype):
        return _relu_grad(xp, gradients, features)
    rows = max(1, (1 << 20) // max(1, features[0].size))  # ~1 MiB of mask per multiply

    def block(s):
        for a in range(s.start, s.stop, rows):
            part = slice(a, min(a + rows, s.stop))
            np.multiply(gradients[part], features[part] > 0, out=gradients[part])

    kernel_threads.over_batch(block, gradients.shape[0], gradients.nbytes)
    return gradients


_relu_grad.into = (0, _relu_grad_into)


@ReluGrad.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops

    x = op._inputs[1]
    return apply_op("ReluGrad", (grad, x)).outputs[0], array_ops.zeros_like(x)


def relu(features, name=None):
    """max(features, 0), elementwise."""
    return apply_op("Relu", (features,), name=name)._outputs[0]


BiasAdd = defop("BiasAdd", inputs=["value: T", "bias: T"], outputs=["output: T"],
                attrs={"data_format": "NHWC"})


@BiasAdd.shape
def _(op):
    v, b = (t._shape for t in op._inputs)
    if b.ndims is not None and b.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {b.ndims}")
    if v.ndims is None:
        return unknown_shape()
    dims = v.as_list()
    c = 1 if op._attrs["data_format"] == "NCHW" else -1
    if b.ndims == 1 and dims[c] is not None and b.as_list()[0] is not None and \
            dims[c] != b.as_list()[0]:
        raise ValueError(f"Dimensions must be equal, but are {dims[c]} and {b.as_list()[0]}")
    return v


@BiasAdd.kernel
def _(xp, value, bias, *, data_format):
    if data_format == "NCHW":
        return value + bias.reshape((-1,) + (1,) * (value.ndim - 2))
    if xp is np and value.ndim > 1:
        out = np.empty(value.shape, np.result_type(value, bias))
        kernel_threads.over_batch(lambda s: np.add(value[s], bias, out=out[s]),
                                  value.shape[0], value.nbytes)
        return out
    return value + bias


@BiasAdd.gradient
def _(op, grad):
    return grad, apply_op("BiasAddGrad", (grad,),
                          data_format=op._attrs["data_format"]).outputs[0]


BiasAddGrad = defop("BiasAddGrad", inputs=["out_backprop: T"], outputs=["output: T"],
                    attrs={"data_format": "NHWC"})


@BiasAddGrad.shape
def _(op):
    s = op._inputs[0]._shape
    if s.ndims is None:
        return unknown_shape(1)
    return TensorShape([s.as_list()[1 if op._attrs["data_format"] == "NCHW" else -1]])


@BiasAddGrad.kernel
def _(xp, dy, *, data_format):
    if data_format == "NCHW":
        return dy.sum(axis=tuple(i for i in range(dy.ndim) if i != 1))
    if dy.size == 0:  # reshape(-1, 0) is ambiguous
        return dy.sum(axis=tuple(range(dy.ndim - 1)))
    if xp is np:  # what ndarray.sum calls, without its Python wrapper
        return np.add.reduce(dy.reshape(-1, dy.shape[-1]), axis=0)
    return dy.reshape(-1, dy.shape[-1]).sum(axis=0)


@BiasAddGrad.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops
    from flowloom.ops.array import broadcast_ops

    shape = array_ops.shape(op._inputs[0])
    bias_shape = array_ops.shape(grad)
    if op._attrs["data_format"] == "NCHW":
        expanded = array_ops.concat([array_ops.ones_like(shape[:1]), bias_shape,
                                     array_ops.ones_like(shape[2:])], 0)
        multiples = array_ops.concat([shape[:1], [1], shape[2:]], 0)
    else:
        expanded = array_ops.concat([array_ops.ones_like(shape[:-1]), bias_shape], 0)
        multiples = array_ops.concat([shape[:-1], [1]], 0)
    return broadcast_ops.tile(array_ops.reshape(grad, expanded), multiples)


def bias_add(value, bias, data_format=None, name=None):
    """Adds the 1-D `bias` along the channel dimension of `value`."""
    with name_scope(name, "BiasAdd", [value, bias]) as scope:
        return apply_op("BiasAdd", (value, bias), name=scope,
                        data_format=data_format or "NHWC").outputs[0]


Conv2D = defop("Conv2D", inputs=["input: T", "filter: T"], outputs=["output: T"],
               attrs={"strides": None, "padding": None, "use_cudnn_on_gpu": True,
                      "explicit_paddings": [], "data_format": "NHWC",
                      "dilations": [1, 1, 1, 1]})


def check_explicit_paddings(op):
    """TF's checks of an EXPLICIT padding attr (ValueError at graph construction)."""
    a = op._attrs
    pads = list(a.get("explicit_paddings") or [])
    if a.get("padding") != "EXPLICIT":
        if pads:
            raise ValueError(f"explicit_paddings must be empty unless padding is EXPLICIT for "
                             f"'{op._name}' (op: '{op.type}')")
        return
    if len(pads) != 8:
        raise ValueError(f"explicit_paddings attribute must contain 8 values, but got: "
                         f"{len(pads)} for '{op._name}' (op: '{op.type}')")
    if any(p < 0 for p in pads):
        raise ValueError(f"All elements of explicit_paddings must be nonnegative for "
                         f"'{op._name}' (op: '{op.type}')")
    batch, depth = (0, 1) if a.get("data_format") == "NCHW" else (0, 3)
    if any(pads[2 * d] or pads[2 * d + 1] for d in (batch, depth)):
        raise ValueError(f"Nonzero explicit padding in the batch or depth dimensions is not "
                         f"supported for '{op._name}' (op: '{op.type}')")


@Conv2D.shape
def _(op):
    check_explicit_paddings(op)
    x, w = (t._shape for t in op._inputs)
    a = op._attrs
    if x.ndims is not None and x.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.ndims}")
    if w.ndims is not None and w.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {w.ndims}")
    if x.ndims is None or w.ndims is None:
        return unknown_shape(4)
    nchw = a["data_format"] == "NCHW"
    n, c, h, wd = (x.as_list()[i] for i in ((0, 1, 2, 3) if nchw else (0, 3, 1, 2)))
    kh, kw, ci, co = w.as_list()
    if c is not None and ci is not None and c % ci:
        raise ValueError(f"Depth of input ({c}) is not a multiple of input depth of filter "
                         f"({ci})")
    g = _conv_attrs(op)
    pads = g["explicit"]
    oh = nn_kernels.out_size(h, kh, g["strides"][0], g["dilations"][0], g["padding"], pads[0])
    ow = nn_kernels.out_size(wd, kw, g["strides"][1], g["dilations"][1], g["padding"],
                             pads[1])
    return TensorShape([n, co, oh, ow] if nchw else [n, oh, ow, co])


def conv2d_nhwc(xp, x, w, strides, dilations, padding, explicit=((0, 0), (0, 0))):
    """NHWC convolution as one matmul over a patches view (see nn_kernels)."""
    return nn_kernels.conv2d(x, w, tuple(strides), tuple(dilations), padding, explicit)


@Conv2D.kernel
def _(xp, x, w, *, strides, padding, data_format, dilations, explicit_paddings):
    _check_padding(padding)
    y = conv2d_nhwc(xp, nn_kernels.to_nhwc(x, data_format), w,
                    nn_kernels.spatial(strides, data_format),
                    nn_kernels.spatial(dilations, data_format), padding,
                    nn_kernels.explicit_pairs(explicit_paddings, data_format))
    return nn_kernels.from_nhwc(y, data_format)


def _check_padding(padding):
    if padding not in ("SAME", "VALID", "EXPLICIT"):
        raise errors.InvalidArgumentError(None, None, f"Invalid padding: {padding}")


@Conv2D.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops
    from flowloom.ops.nn import conv_grad_ops

    x, w = op._inputs
    attrs = {k: op._attrs[k] for k in ("strides", "padding", "use_cudnn_on_gpu",
                                       "explicit_paddings", "data_format", "dilations")}
    x_shape, w_shape = array_ops.shape_n([x, w])
    return [conv_grad_ops.conv2d_backprop_input(x_shape, w, grad, **attrs),
            conv_grad_ops.conv2d_backprop_filter(x, w_shape, grad, **attrs)]


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=(1, 1, 1, 1), name=None, filters=None):
    """2-D convolution of a 4-D `input` with a [h, w, in, out] `filter`."""
    filter = filters if filter is None else filter
    padding, explicit = _padding_attrs(padding)
    return apply_op("Conv2D", (input, filter), name=name, strides=_four(strides, data_format),
                    padding=padding, use_cudnn_on_gpu=use_cudnn_on_gpu,
                    explicit_paddings=explicit, data_format=data_format,
                    dilations=_four(dilations, data_format)).outputs[0]


def _padding_attrs(padding):
    """TF's `padding` argument: "SAME"/"VALID", or explicit [[before, after]] * 4."""
    if isinstance(padding, str):
        padding = padding.upper()
        if padding not in ("SAME", "VALID"):
            raise ValueError(f"padding should be one of SAME, VALID or EXPLICIT, got {padding}")
        return padding, []
    if any(not isinstance(p, (list, tuple)) for p in padding):
        raise ValueError(f"When padding is explicit, each element of it must be a list of two "
                         f"integers. Got padding {padding}")
    pairs = [list(p) for p in padding]
    if len(pairs) != 4 or any(len(p) != 2 for p in pairs):
        raise ValueError(f"When padding is explicit, it must be a list of size 4. Got "
                         f"padding {padding}")
    return "EXPLICIT", [int(v) for p in pairs for v in p]


def _four(values, data_format="NHWC"):
    """Strides/dilations/ksize as TF's 4-element attr (an int or 2 values are expanded)."""
    if values is None:
        raise ValueError("strides must be given")
    if isinstance(values, int):
        values = [values]
    values = [int(v) for v in values]
    if len(values) == 1:
        values = values * 2
    if len(values) == 2:
        return [1, 1] + values if data_format.startswith("NC") else [1] + values + [1]
    return values



# ================================================================================================
# Convolution backprops, depthwise convolution, pooling (branch `ops`).
# ================================================================================================
def _conv_attrs(op):
    a = op._attrs
    df = a.get("data_format", "NHWC")
    return dict(strides=nn_kernels.spatial(a["strides"], df),
                dilations=nn_kernels.spatial(a.get("dilations") or [1, 1, 1, 1], df),
                padding=a["padding"],
                explicit=nn_kernels.explicit_pairs(a.get("explicit_paddings") or [], df))


def _nhwc_shape(shape, data_format):
    if data_format == "NCHW":
        return [shape[0], shape[2], shape[3], shape[1]]
    return list(shape)


def _nchw_dims(dims, data_format):
    return [dims[0], dims[3], dims[1], dims[2]] if data_format == "NCHW" else dims


def _sized_shape(op, index):
    """The shape held in a `*_sizes` input, when it is known statically."""
    from flowloom.framework.tensor_util import constant_value_as_shape

    return constant_value_as_shape(op._inputs[index])


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None,  # noqa
                          padding=None, use_cudnn_on_gpu=True, data_format="NHWC",
                          dilations=(1, 1, 1, 1), name=None, filters=None):
    """The gradient of `conv2d` with respect to its input (op `Conv2DBackpropInput`)."""
    filter = filters if filter is None else filter
    padding, explicit = _padding_attrs(padding)
    return apply_op("Conv2DBackpropInput", (input_sizes, filter, out_backprop), name=name,
                    strides=_four(strides, data_format), padding=padding,
                    explicit_paddings=explicit, use_cudnn_on_gpu=use_cudnn_on_gpu,
                    data_format=data_format, dilations=_four(dilations, data_format)).outputs[0]


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, data_format="NHWC",
                           dilations=(1, 1, 1, 1), name=None):
    """The gradient of `conv2d` with respect to its filter (op `Conv2DBackpropFilter`)."""
    padding, explicit = _padding_attrs(padding)
    return apply_op("Conv2DBackpropFilter", (input, filter_sizes, out_backprop), name=name,
                    strides=_four(strides, data_format), padding=padding,
                    explicit_paddings=explicit, use_cudnn_on_gpu=use_cudnn_on_gpu,
                    data_format=data_format, dilations=_four(dilations, data_format)).outputs[0]


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NHWC", name=None, input=None, filters=None,
                     dilations=None):
    """The transpose of `conv2d` (its input gradient): upsamples `value` to `output_shape`.

    Args:
      value: [batch, h, w, in_channels] tensor (NHWC).
      filter: [h, w, output_channels, in_channels] filter.
      output_shape: 1-D tensor, the output's shape.
      strides, padding, data_format, dilations: as for `conv2d`.

    Returns:
      The output tensor (op `conv2d_transpose`, type Conv2DBackpropInput).

    Raises:
      ValueError: when the channel counts of `value`, `filter` and `output_shape` disagree.
    """
    from flowloom.framework.ops import convert_to_tensor

    value = input if value is None else value
    filter = filters if filter is None else filter
    with name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as scope:
        value = convert_to_tensor(value, name="value")
        filter = convert_to_tensor(filter, name="filter")
        output_shape_t = convert_to_tensor(output_shape, name="output_shape")
        axis = 3 if data_format == "NHWC" else 1
        vs, fs = value._shape, filter._shape
        if vs.ndims is not None and fs.ndims is not None and vs.as_list()[axis] is not None \
                and fs.as_list()[3] is not None and vs.as_list()[axis] != fs.as_list()[3]:
            raise ValueError(f"input channels does not match filter's input channels, "
                             f"{vs.as_list()[axis]} != {fs.as_list()[3]}")
        if output_shape_t._shape.ndims is not None and \
                output_shape_t._shape.as_list() not in ([4], [None]):
            raise ValueError(f"output_shape must have shape (4,), got "
                             f"{output_shape_t._shape}")
        padding, explicit = _padding_attrs(padding)
        return apply_op("Conv2DBackpropInput", (output_shape_t, filter, value), name=scope,
                        strides=_four(strides, data_format), padding=padding,
                        explicit_paddings=explicit, data_format=data_format,
                        dilations=_four(dilations or 1, data_format)).outputs[0]


# -- Depthwise convolution ---------------------------------------------------------------------
_DW_ATTRS = {"strides": None, "padding": None, "explicit_paddings": [], "data_format": "NHWC",
             "dilations": [1, 1, 1, 1]}
DepthwiseConv2dNative = defop("DepthwiseConv2dNative", inputs=["input: T", "filter: T"],
                              outputs=["output: T"], attrs=_DW_ATTRS)


@DepthwiseConv2dNative.shape
def _(op):
    x, w = (t._shape for t in op._inputs)
    if x.ndims is not None and x.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.ndims}")
    if w.ndims is not None and w.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {w.ndims}")
    if x.ndims is None or w.ndims is None:
        return unknown_shape(4)
    df = op._attrs["data_format"]
    n, h, wd, c = _nhwc_shape(x.as_list(), df)
    kh, kw, ci, m = w.as_list()
    if c is not None and ci is not None and c != ci:
        raise ValueError(f"Dimensions must be equal, but are {c} and {ci}")
    g = _conv_attrs(op)
    pads = g["explicit"]
    oh = nn_kernels.out_size(h, kh, g["strides"][0], g["dilations"][0], g["padding"], pads[0])
    ow = nn_kernels.out_size(wd, kw, g["strides"][1], g["dilations"][1], g["padding"], pads[1])
    co = None if c is None or m is None else c * m
    return TensorShape(_nchw_dims([n, oh, ow, co], df))


@DepthwiseConv2dNative.kernel
def _(xp, x, w, *, strides, padding, explicit_paddings, data_format, dilations):
    _check_padding(padding)
    y = nn_kernels.depthwise_conv2d(
        nn_kernels.to_nhwc(x, data_format), w, nn_kernels.spatial(strides, data_format),
        nn_kernels.spatial(dilations, data_format), padding,
        nn_kernels.explicit_pairs(explicit_paddings, data_format))
    return nn_kernels.from_nhwc(y, data_format)


DepthwiseConv2dNativeBackpropInput = defop(
    "DepthwiseConv2dNativeBackpropInput",
    inputs=["input_sizes: int32", "filter: T", "out_backprop: T"], outputs=["output: T"],
    attrs=_DW_ATTRS)
DepthwiseConv2dNativeBackpropInput.shape(lambda op: _sized_shape(op, 0))


@DepthwiseConv2dNativeBackpropInput.kernel
def _(xp, input_sizes, w, dy, *, strides, padding, explicit_paddings, data_format, dilations):
    dx = nn_kernels.depthwise_backprop_input(
        _nhwc_shape([int(d) for d in input_sizes], data_format), w,
        nn_kernels.to_nhwc(dy, data_format), nn_kernels.spatial(strides, data_format),
        nn_kernels.spatial(dilations, data_format), padding,
        nn_kernels.explicit_pairs(explicit_paddings, data_format))
    return nn_kernels.from_nhwc(dx, data_format)


DepthwiseConv2dNativeBackpropFilter = defop(
    "DepthwiseConv2dNativeBackpropFilter",
    inputs=["input: T", "filter_sizes: int32", "out_backprop: T"], outputs=["output: T"],
    attrs=_DW_ATTRS)
DepthwiseConv2dNativeBackpropFilter.shape(lambda op: _sized_shape(op, 1))


@DepthwiseConv2dNativeBackpropFilter.kernel
def _(xp, x, filter_sizes, dy, *, strides, padding, explicit_paddings, data_format, dilations):
    return nn_kernels.depthwise_backprop_filter(
        nn_kernels.to_nhwc(x, data_format), tuple(int(d) for d in filter_sizes),
        nn_kernels.to_nhwc(dy, data_format), nn_kernels.spatial(strides, data_format),
        nn_kernels.spatial(dilations, data_format), padding,
        nn_kernels.explicit_pairs(explicit_paddings, data_format))


@DepthwiseConv2dNative.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops

    x, w = op._inputs
    attrs = {k: op._attrs[k] for k in _DW_ATTRS}
    return [apply_op("DepthwiseConv2dNativeBackpropInput", (array_ops.shape(x), w, grad),
                     **attrs).outputs[0],
            apply_op("DepthwiseConv2dNativeBackpropFilter", (x, array_ops.shape(w), grad),
                     **attrs).outputs[0]]


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",  # noqa: A002
                            dilations=(1, 1, 1, 1), name=None):
    """Depthwise 2-D convolution: each input channel with its own `channel_multiplier` filters."""
    padding, explicit = _padding_attrs(padding)
    return apply_op("DepthwiseConv2dNative", (input, filter), name=name,
                    strides=_four(strides, data_format), padding=padding,
                    explicit_paddings=explicit, data_format=data_format,
                    dilations=_four(dilations, data_format)).outputs[0]


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None,  # noqa: A002
                     data_format=None, dilations=None):
    """`tf.nn.depthwise_conv2d`: depthwise convolution (op `DepthwiseConv2dNative`)."""
    data_format = data_format or "NHWC"
    rate = dilations if rate is None else rate
    with name_scope(name, "depthwise", [input, filter]) as scope:
        d = [1, 1] if rate is None else [int(r) for r in rate]
        return depthwise_conv2d_native(input, filter, strides, padding,
                                       data_format=data_format,
                                       dilations=_four(d, data_format), name=scope)


# -- Pooling -----------------------------------------------------------------------------------
_POOL_ATTRS = {"ksize": None, "strides": None, "padding": None, "data_format": "NHWC"}


def _pool_shape(op):
    s = op._inputs[0]._shape
    if s.ndims is not None and s.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {s.ndims}")
    if s.ndims is None:
        return unknown_shape(4)
    a = op._attrs
    df = a["data_format"]
    n, h, w, c = _nhwc_shape(s.as_list(), df)
    kh, kw = nn_kernels.spatial(a["ksize"], df)
    sh, sw = nn_kernels.spatial(a["strides"], df)
    oh = nn_kernels.out_size(h, kh, sh, 1, a["padding"])
    ow = nn_kernels.out_size(w, kw, sw, 1, a["padding"])
    return TensorShape(_nchw_dims([n, oh, ow, c], df))


def _pool_args(ksize, strides, padding, data_format):
    if padding not in ("SAME", "VALID"):
        raise errors.InvalidArgumentError(None, None, f"Invalid padding: {padding}")
    ks, st = nn_kernels.spatial(ksize, data_format), nn_kernels.spatial(strides, data_format)
    n_axis = (0, 1) if data_format == "NCHW" else (0, 3)
    if any(ksize[i] != 1 for i in n_axis) or any(strides[i] != 1 for i in n_axis):
        raise errors.UnimplementedError(
            None, None, "Pooling is not yet supported on the batch nor channel dimension.")
    return ks, st


MaxPool = defop("MaxPool", inputs=["input: T"], outputs=["output: T"],
                attrs=dict(_POOL_ATTRS, explicit_paddings=[], T=dtypes.float32))


@MaxPool.shape
def _(op):
    a, s = op._attrs, op._inputs[0]._shape
    c = 1 if a["data_format"] == "NCHW" else 3
    if _depth_window(a["ksize"], a["strides"], a["data_format"]) is None or s.ndims != 4:
        return _pool_shape(op)
    dims = s.as_list()
    dims[c] = None if dims[c] is None else dims[c] // a["ksize"][c]
    return TensorShape(dims)


def _depth_window(ksize, strides, data_format, depth=None):
    """The channel window of a MaxPool across depth (TF's CPU kernel allows it), else None."""
    c = 1 if data_format == "NCHW" else 3
    if ksize[c] == 1 and strides[c] == 1:
        return None
    unimplemented = errors.UnimplementedError
    if any(ksize[i] != 1 or strides[i] != 1 for i in range(4) if i not in (0, c)):
        raise unimplemented(None, None, "MaxPooling supports exactly one of pooling across "
                            "depth or pooling across width/height.")
    if depth is not None and depth % ksize[c]:
        raise unimplemented(None, None, "Depthwise max pooling requires the depth window to "
                            "evenly divide the input depth.")
    if strides[c] != ksize[c]:
        raise unimplemented(None, None, "Depthwise max pooling requires the depth window to "
                            "equal the depth stride.")
    return ksize[c]


@MaxPool.kernel
def _(xp, x, *, ksize, strides, padding, data_format):
    c = 1 if data_format == "NCHW" else 3
    window = _depth_window(ksize, strides, data_format, x.shape[c])
    if window is not None:
        return nn_kernels.depth_max_pool(x, window, c)
    ks, st = _pool_args(ksize, strides, padding, data_format)
    y = nn_kernels.max_pool(nn_kernels.to_nhwc(x, data_format), ks, st, padding)
    return nn_kernels.from_nhwc(y, data_format)


MaxPoolGrad = defop("MaxPoolGrad", inputs=["orig_input: T", "orig_output: T", "grad: T"],
                    outputs=["output: T"],
                    attrs=dict(_POOL_ATTRS, explicit_paddings=[], T=dtypes.float32))
MaxPoolGrad.shape(lambda op: op._inputs[0]._shape)


@MaxPoolGrad.kernel
def _(xp, x, y, dy, *, ksize, strides, padding, data_format):
    ks, st = _pool_args(ksize, strides, padding, data_format)
    t = nn_kernels.to_nhwc
    dx = nn_kernels.max_pool_grad(t(x, data_format), t(y, data_format), t(dy, data_format),
                                  ks, st, padding)
    return nn_kernels.from_nhwc(dx, data_format)


@MaxPool.gradient
def _(op, grad):
    a = op._attrs
    return [apply_op("MaxPoolGrad", (op._inputs[0], op._outputs[0], grad), ksize=a["ksize"],
                     strides=a["strides"], padding=a["padding"],
                     data_format=a["data_format"]).outputs[0]]


AvgPool = defop("AvgPool", inputs=["value: T"], outputs=["output: T"], attrs=_POOL_ATTRS)
AvgPool.shape(_pool_shape)


@AvgPool.kernel
def _(xp, x, *, ksize, strides, padding, data_format):
    ks, st = _pool_args(ksize, strides, padding, data_format)
    y = nn_kernels.avg_pool(nn_kernels.to_nhwc(x, data_format), ks, st, padding)
    return nn_kernels.from_nhwc(y, data_format)


AvgPoolGrad = defop("AvgPoolGrad", inputs=["orig_input_shape: int32", "grad: T"],
                    outputs=["output: T"], attrs=_POOL_ATTRS)
AvgPoolGrad.shape(lambda op: _sized_shape(op, 0))


@AvgPoolGrad.kernel
def _(xp, orig_input_shape, dy, *, ksize, strides, padding, data_format):
    ks, st = _pool_args(ksize, strides, padding, data_format)
    shape = _nhwc_shape([int(d) for d in orig_input_shape], data_format)
    dx = nn_kernels.avg_pool_grad(shape, nn_kernels.to_nhwc(dy, data_format), ks, st, padding)
    return nn_kernels.from_nhwc(dx, data_format)


@AvgPool.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops

    a = op._attrs
    return [apply_op("AvgPoolGrad", (array_ops.shape(op._inputs[0]), grad), ksize=a["ksize"],
                     strides=a["strides"], padding=a["padding"],
                     data_format=a["data_format"]).outputs[0]]


@AvgPoolGrad.gradient
def _(op, grad):
    a = op._attrs
    return [None, apply_op("AvgPool", (grad,), ksize=a["ksize"], strides=a["strides"],
                           padding=a["padding"], data_format=a["data_format"]).outputs[0]]


def _pool(op_type, default_name):
    def pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa
        value = input if value is None else value
        if isinstance(padding, str):
            padding = padding.upper()
        if padding not in ("SAME", "VALID"):
            raise ValueError(f"padding should be one of SAME or VALID, got {padding}")
        with name_scope(name, default_name, [value]) as scope:
            return apply_op(op_type, (value,), name=scope, ksize=_four(ksize, data_format),
                            strides=_four(strides, data_format), padding=padding,
                            data_format=data_format).outputs[0]
    pool.__name__ = default_name
    pool.__doc__ = (f"{op_type} over `ksize` windows moved by `strides` (NHWC or NCHW).\n\n"
                    "    Args:\n      value: 4-D tensor.\n      ksize, strides: ints, 2 or 4 "
                    "values.\n      padding: 'SAME' or 'VALID'.\n\n    Returns:\n      The "
                    "pooled tensor.\n")
    return pool


max_pool = _pool("MaxPool", "MaxPool")
avg_pool = _pool("AvgPool", "AvgPool")


def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None,
           data_format=None, name=None, input=None, dilations=None):  # noqa: A002
    """1-D convolution of [batch, width, in] by [width, in, out], as TF builds it: ExpandDims,
    Conv2D, Squeeze.

    Raises:
      ValueError: for a data_format other than NWC/NCW.
    """
    from flowloom.ops.array import array_ops

    value = input if value is None else value
    with name_scope(name, "conv1d", [value, filters]) as scope:
        if data_format in (None, "NHWC", "NWC"):
            data_format, spatial_start_dim = "NHWC", -3
        elif data_format in ("NCHW", "NCW"):
            data_format, spatial_start_dim = "NCHW", -2
        else:
            raise ValueError("`data_format` must be 'NWC' or 'NCW'. Received: "
                             f"data_format={data_format}")
        stride = [stride] if isinstance(stride, int) else list(stride)
        dil = [1] if dilations is None else ([dilations] if isinstance(dilations, int)
                                             else list(dilations))
        if len(stride) == 1:
            stride = [1] + stride + [1] if data_format == "NHWC" else [1, 1] + stride
        if len(dil) == 1:
            dil = [1] + dil + [1] if data_format == "NHWC" else [1, 1] + dil
        value = array_ops.expand_dims(value, spatial_start_dim)
        filters = array_ops.expand_dims(filters, 0)
        padding, explicit = _padding_attrs(padding)
        result = apply_op("Conv2D", (value, filters), name=scope, strides=[1] + stride,
                          padding=padding, explicit_paddings=explicit,
                          use_cudnn_on_gpu=True if use_cudnn_on_gpu is None else
                          use_cudnn_on_gpu, data_format=data_format,
                          dilations=[1] + dil).outputs[0]
        return array_ops.squeeze(result, [spatial_start_dim])


from flowloom.ops.nn import kernel_attr_checks  # noqa: E402 - checks run when a plan is compiled

kernel_attr_checks.install(Conv2D, MaxPool, AvgPool)
