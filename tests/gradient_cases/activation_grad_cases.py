"""Gradient cases of gradient ops: the activation gradients (second derivatives of Relu6,
Elu, Selu, LeakyRelu; both inputs, away from the kinks) and the depthwise convolution's
backprop ops (both tensor inputs)."""

import flowloom as tf
from flowloom.framework.apply_op import apply_op
from flowloom.ops.nn import depthwise_grad_ops  # noqa: F401 - registers the gradients
from tests.gradient_cases import away_from_zero, ph


def _grad_op(op_type, **attrs):
    def build(rng):
        g, gv = ph(rng, (3, 4))
        y, _ = ph(rng, (3, 4))
        yv = away_from_zero(rng, (3, 4), 0.2, 1.5)
        if op_type == "Relu6Grad":
            yv = rng.uniform(0.5, 5.5, size=(3, 4))  # away from the kinks at 0 and 6
        return [(g, gv), (y, yv)], apply_op(op_type, (g, y), **attrs).outputs[0] * tf.constant(
            1.0, tf.float64)
    return build


CASES = {
    "Relu6Grad": _grad_op("Relu6Grad"),
    "EluGrad": _grad_op("EluGrad"),
    "SeluGrad": _grad_op("SeluGrad"),
    "LeakyReluGrad": _grad_op("LeakyReluGrad", alpha=0.3),
}


def _depthwise_backprop(op_type):
    def build(rng):
        x, xv = ph(rng, (2, 5, 5, 3))
        w, wv = ph(rng, (3, 3, 3, 2))
        dy, dyv = ph(rng, (2, 3, 3, 6))
        kw = {"strides": [1, 2, 2, 1], "padding": "SAME"}
        if op_type == "DepthwiseConv2dNativeBackpropInput":
            out = depthwise_grad_ops.depthwise_conv2d_native_backprop_input(
                tf.constant([2, 5, 5, 3]), w, dy, **kw)
            return [(w, wv), (dy, dyv)], out
        out = depthwise_grad_ops.depthwise_conv2d_native_backprop_filter(
            x, tf.constant([3, 3, 3, 2]), dy, **kw)
        return [(x, xv), (dy, dyv)], out
    return build


CASES.update({
    "DepthwiseConv2dNativeBackpropInput": _depthwise_backprop(
        "DepthwiseConv2dNativeBackpropInput"),
    "DepthwiseConv2dNativeBackpropFilter": _depthwise_backprop(
        "DepthwiseConv2dNativeBackpropFilter"),
})
