"""The depthwise convolution's gradient ops as functions (tf.nn.depthwise_conv2d_native_
backprop_input / _filter) and their own gradients, as TF registers them: each backprop op is
bilinear in its two tensor inputs, so its gradients are the other two depthwise ops."""

from flowloom.framework.apply_op import apply_op
from flowloom.ops.nn.nn_ops import (_DW_ATTRS, DepthwiseConv2dNativeBackpropFilter,
                                    DepthwiseConv2dNativeBackpropInput, _four, _padding_attrs)


def _attrs(strides, padding, data_format, dilations):
    padding, explicit = _padding_attrs(padding)
    return {"strides": _four(strides, data_format), "padding": padding,
            "explicit_paddings": explicit, "data_format": data_format,
            "dilations": _four(dilations, data_format)}


def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop,  # noqa: A002
                                           strides, padding, data_format="NHWC",
                                           dilations=(1, 1, 1, 1), name=None):
    """The gradient of depthwise_conv2d_native with respect to its input (shape
    `input_sizes`), from the filter and the output gradient."""
    return apply_op("DepthwiseConv2dNativeBackpropInput", (input_sizes, filter, out_backprop),
                    name=name, **_attrs(strides, padding, data_format, dilations)).outputs[0]


def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop,  # noqa: A002
                                            strides, padding, data_format="NHWC",
                                            dilations=(1, 1, 1, 1), name=None):
    """The gradient of depthwise_conv2d_native with respect to its filter (shape
    `filter_sizes`), from the input and the output gradient."""
    return apply_op("DepthwiseConv2dNativeBackpropFilter", (input, filter_sizes, out_backprop),
                    name=name, **_attrs(strides, padding, data_format, dilations)).outputs[0]


@DepthwiseConv2dNativeBackpropInput.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops

    attrs = {k: op._attrs[k] for k in _DW_ATTRS}
    w, dy = op._inputs[1], op._inputs[2]
    return [None,
            apply_op("DepthwiseConv2dNativeBackpropFilter", (grad, array_ops.shape(w), dy),
                     **attrs).outputs[0],
            apply_op("DepthwiseConv2dNative", (grad, w), **attrs).outputs[0]]


@DepthwiseConv2dNativeBackpropFilter.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops

    attrs = {k: op._attrs[k] for k in _DW_ATTRS}
    x, dy = op._inputs[0], op._inputs[2]
    return [apply_op("DepthwiseConv2dNativeBackpropInput", (array_ops.shape(x), grad, dy),
                     **attrs).outputs[0],
            None,
            apply_op("DepthwiseConv2dNative", (x, grad), **attrs).outputs[0]]
