"""Conv2DBackpropInput and Conv2DBackpropFilter: the two halves of Conv2D's gradient.

Conv2DBackpropInput is also the forward op of `conv2d_transpose`. The kernels are
nn_kernels' (one patches matmul each; EXPLICIT padding too).
"""

import numpy as np

from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_util import constant_value_as_shape
from flowloom.ops.nn import nn_kernels
from flowloom.ops.layout import c_order

_CONV_ATTRS = {"strides": None, "padding": None, "use_cudnn_on_gpu": True,
               "explicit_paddings": [], "data_format": "NHWC", "dilations": [1, 1, 1, 1]}


def _spatial(attrs_list, data_format):
    return (attrs_list[2], attrs_list[3]) if data_format == "NCHW" else \
        (attrs_list[1], attrs_list[2])


def _check_padding(padding):
    if padding not in ("SAME", "VALID", "EXPLICIT"):
        raise errors.InvalidArgumentError(None, None, f"Invalid padding: {padding}")


def conv2d_backprop_input_nhwc(xp, input_shape, w, dy, strides, dilations, padding,
                               explicit=((0, 0), (0, 0))):
    """d(conv2d)/d(input), NHWC."""
    return nn_kernels.conv2d_backprop_input(tuple(input_shape), w, dy, tuple(strides),
                                            tuple(dilations), padding, explicit)


def conv2d_backprop_filter_nhwc(xp, x, filter_shape, dy, strides, dilations, padding,
                                explicit=((0, 0), (0, 0))):
    """d(conv2d)/d(filter), NHWC."""
    return nn_kernels.conv2d_backprop_filter(x, tuple(filter_shape), dy, tuple(strides),
                                             tuple(dilations), padding, explicit)


def _to_nhwc(xp, a):
    return xp.transpose(a, (0, 2, 3, 1))


def _from_nhwc(xp, a):
    return c_order(xp, xp.transpose(a, (0, 3, 1, 2)))


# -- Conv2DBackpropInput ---------------------------------------------------------------------
Conv2DBackpropInput = defop(
    "Conv2DBackpropInput", inputs=["input_sizes: int32", "filter: T", "out_backprop: T"],
    outputs=["output: T"], attrs=dict(_CONV_ATTRS))
Conv2DBackpropInput.shape(lambda op: constant_value_as_shape(op._inputs[0]).with_rank(4)
                          if constant_value_as_shape(op._inputs[0]).ndims is not None
                          else constant_value_as_shape(op._inputs[0]))


@Conv2DBackpropInput.kernel
def _(xp, input_sizes, w, dy, *, strides, padding, data_format, dilations, explicit_paddings):
    _check_padding(padding)
    sizes = [int(d) for d in input_sizes]
    if len(sizes) != 4:
        raise errors.InvalidArgumentError(
            None, None, f"input_sizes must be 4-dimensional, got: {len(sizes)}")
    s, d = _spatial(strides, data_format), _spatial(dilations, data_format)
    pads = nn_kernels.explicit_pairs(explicit_paddings, data_format)
    if data_format == "NCHW":
        n, c, h, wd = sizes
        dx = conv2d_backprop_input_nhwc(xp, (n, h, wd, c), w, _to_nhwc(xp, dy), s, d, padding,
                                        pads)
        return _from_nhwc(xp, dx)
    return c_order(np, conv2d_backprop_input_nhwc(xp, sizes, w, dy, s, d, padding,
                                                           pads))


def _conv_attrs(op):
    return {k: op._attrs[k] for k in _CONV_ATTRS}


@Conv2DBackpropInput.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops

    _, w, dy = op._inputs
    return [None,
            apply_op("Conv2DBackpropFilter", (grad, array_ops.shape(w), dy),
                     **_conv_attrs(op)).outputs[0],
            apply_op("Conv2D", (grad, w), **_conv_attrs(op)).outputs[0]]


def conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002
                          use_cudnn_on_gpu=True, explicit_paddings=(), data_format="NHWC",
                          dilations=(1, 1, 1, 1), name=None):
    """The gradient of conv2d with respect to its input (op type Conv2DBackpropInput)."""
    return apply_op("Conv2DBackpropInput", (input_sizes, filter, out_backprop), name=name,
                    strides=list(strides), padding=padding, use_cudnn_on_gpu=use_cudnn_on_gpu,
                    explicit_paddings=list(explicit_paddings), data_format=data_format,
                    dilations=list(dilations)).outputs[0]


# -- Conv2DBackpropFilter ----------------------------------------------------------------------
Conv2DBackpropFilter = defop(
    "Conv2DBackpropFilter", inputs=["input: T", "filter_sizes: int32", "out_backprop: T"],
    outputs=["output: T"], attrs=dict(_CONV_ATTRS))
Conv2DBackpropFilter.shape(lambda op: constant_value_as_shape(op._inputs[1]))


@Conv2DBackpropFilter.kernel
def _(xp, x, filter_sizes, dy, *, strides, padding, data_format, dilations, explicit_paddings):
    _check_padding(padding)
    sizes = tuple(int(d) for d in filter_sizes)
    if len(sizes) != 4:
        raise errors.InvalidArgumentError(
            None, None, f"filter_sizes must be 4-dimensional, got: {len(sizes)}")
    s, d = _spatial(strides, data_format), _spatial(dilations, data_format)
    if data_format == "NCHW":
        x, dy = _to_nhwc(xp, x), _to_nhwc(xp, dy)
    return conv2d_backprop_filter_nhwc(xp, x, sizes, dy, s, d, padding,
                                       nn_kernels.explicit_pairs(explicit_paddings,
                                                                 data_format))


@Conv2DBackpropFilter.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops

    x, _, dy = op._inputs
    return [apply_op("Conv2DBackpropInput", (array_ops.shape(x), grad, dy),
                     **_conv_attrs(op)).outputs[0],
            None,
            apply_op("Conv2D", (x, grad), **_conv_attrs(op)).outputs[0]]


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, explicit_paddings=(), data_format="NHWC",
                           dilations=(1, 1, 1, 1), name=None):
    """The gradient of conv2d with respect to its filter (op type Conv2DBackpropFilter)."""
    return apply_op("Conv2DBackpropFilter", (input, filter_sizes, out_backprop), name=name,
                    strides=list(strides), padding=padding, use_cudnn_on_gpu=use_cudnn_on_gpu,
                    explicit_paddings=list(explicit_paddings), data_format=data_format,
                    dilations=list(dilations)).outputs[0]



from flowloom.ops.nn import kernel_attr_checks  # noqa: E402 - checks run when a plan is compiled

for _od in (Conv2DBackpropInput, Conv2DBackpropFilter):
    kernel_attr_checks.check_when_bound(_od.kernel_fn, kernel_attr_checks.conv_backprop_attrs)
