"""Neural-network ops: activations, convolution, bias."""

import numpy as np

from flowloom.framework import common_shapes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape, unknown_shape

Relu = defop("Relu", inputs=["features: T"], outputs=["activations: T"])
Relu.shape(common_shapes.unchanged)


@Relu.kernel
def _(xp, x):
    return xp.maximum(x, 0).astype(x.dtype, copy=False)


@Relu.gradient
def _(op, grad):
    return apply_op("ReluGrad", (grad, op._outputs[0])).outputs[0]


ReluGrad = defop("ReluGrad", inputs=["gradients: T", "features: T"], outputs=["backprops: T"])
ReluGrad.shape(common_shapes.unchanged)


@ReluGrad.kernel
def _(xp, gradients, features):
    # A multiply by the mask is ~20x faster than np.where with a broadcast zero.
    return gradients * (features > 0)


@ReluGrad.gradient
def _(op, grad):
    from flowloom.ops import array_ops

    x = op._inputs[1]
    return apply_op("ReluGrad", (grad, x)).outputs[0], array_ops.zeros_like(x)


def relu(features, name=None):
    """max(features, 0), elementwise."""
    return apply_op("Relu", (features,), name=name).outputs[0]


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
    return dy.reshape(-1, dy.shape[-1]).sum(axis=0)


@BiasAddGrad.gradient
def _(op, grad):
    from flowloom.ops import array_ops
    from flowloom.ops import broadcast_ops

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


def _conv_out(n, k, s, d, padding):
    if n is None:
        return None
    eff = (k - 1) * d + 1
    if padding == "VALID":
        return (n - eff) // s + 1 if n >= eff else 0
    return -(-n // s)


Conv2D = defop("Conv2D", inputs=["input: T", "filter: T"], outputs=["output: T"],
               attrs={"strides": None, "padding": None, "use_cudnn_on_gpu": True,
                      "explicit_paddings": [], "data_format": "NHWC",
                      "dilations": [1, 1, 1, 1]})


@Conv2D.shape
def _(op):
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
    s = a["strides"]
    d = a["dilations"]
    sh, sw = (s[2], s[3]) if nchw else (s[1], s[2])
    dh, dw = (d[2], d[3]) if nchw else (d[1], d[2])
    oh = _conv_out(h, kh, sh, dh, a["padding"]) if kh is not None else None
    ow = _conv_out(wd, kw, sw, dw, a["padding"]) if kw is not None else None
    return TensorShape([n, co, oh, ow] if nchw else [n, oh, ow, co])


def _pads(n, k, s, d, padding):
    eff = (k - 1) * d + 1
    if padding == "VALID":
        return 0, 0
    out = -(-n // s)
    total = max((out - 1) * s + eff - n, 0)
    return total // 2, total - total // 2


def conv2d_nhwc(xp, x, w, strides, dilations, padding):
    """NHWC convolution as one matmul over gathered patches."""
    n, h, wd, c = x.shape
    kh, kw, ci, co = w.shape
    if c != ci:
        raise errors.InvalidArgumentError(
            None, None, f"input depth must be evenly divisible by filter depth: {c} vs {ci}")
    sh, sw = strides
    dh, dw = dilations
    ph, pw = _pads(h, kh, sh, dh, padding), _pads(wd, kw, sw, dw, padding)
    if any(ph) or any(pw):
        x = xp.pad(x, ((0, 0), ph, pw, (0, 0)))
    oh = (x.shape[1] - (kh - 1) * dh - 1) // sh + 1
    ow = (x.shape[2] - (kw - 1) * dw - 1) // sw + 1
    out = xp.zeros((n, oh, ow, co), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i * dh: i * dh + (oh - 1) * sh + 1: sh,
                      j * dw: j * dw + (ow - 1) * sw + 1: sw, :]
            out += xp.tensordot(patch, w[i, j], axes=([3], [0]))
    return out


@Conv2D.kernel
def _(xp, x, w, *, strides, padding, data_format, dilations):
    if padding not in ("SAME", "VALID"):
        raise NotImplementedError(f"Conv2D padding={padding!r}")
    if data_format == "NCHW":
        y = conv2d_nhwc(xp, xp.transpose(x, (0, 2, 3, 1)), w, strides[2:], dilations[2:],
                        padding)
        return xp.ascontiguousarray(xp.transpose(y, (0, 3, 1, 2)))
    return conv2d_nhwc(xp, x, w, strides[1:3], dilations[1:3], padding)


@Conv2D.gradient
def _(op, grad):
    from flowloom.ops import array_ops
    from flowloom.ops import conv_grad_ops

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
    if isinstance(padding, str):
        padding = padding.upper()
    return apply_op("Conv2D", (input, filter), name=name, strides=list(strides),
                    padding=padding, use_cudnn_on_gpu=use_cudnn_on_gpu,
                    data_format=data_format, dilations=list(dilations)).outputs[0]

