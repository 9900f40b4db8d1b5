"""Gradient-check builders for Relu, BiasAdd, Conv2D and their helper ops."""

import flowloom as tf
from flowloom.framework.apply_op import apply_op
from flowloom.ops.nn import conv_grad_ops
from tests.gradient_cases import away_from_zero, ph


def _relu(rng):
    x, xv = ph(rng, (3, 4))
    xv = away_from_zero(rng, (3, 4), 0.1, 1.0)
    return [(x, xv)], tf.nn.relu(x)


def _relu_grad(rng):
    g, gv = ph(rng, (3, 4))
    f = tf.constant(away_from_zero(rng, (3, 4), 0.1, 1.0))
    return [(g, gv)], apply_op("ReluGrad", (g, f)).outputs[0]


def _bias_add(data_format):
    def build(rng):
        x, xv = ph(rng, (2, 3, 2, 2))
        b, bv = ph(rng, (3 if data_format == "NCHW" else 2,))
        return [(x, xv), (b, bv)], tf.nn.bias_add(x, b, data_format=data_format)
    return build


def _bias_add_grad(rng):
    dy, dyv = ph(rng, (2, 3, 4))
    return [(dy, dyv)], apply_op("BiasAddGrad", (dy,)).outputs[0]


def _conv2d(strides, padding, data_format="NHWC", dilations=(1, 1, 1, 1)):
    def build(rng):
        x_shape = (2, 2, 5, 6) if data_format == "NCHW" else (2, 5, 6, 2)
        x, xv = ph(rng, x_shape)
        w, wv = ph(rng, (3, 2, 2, 3))
        return [(x, xv), (w, wv)], tf.nn.conv2d(x, w, strides=strides, padding=padding,
                                                data_format=data_format, dilations=dilations)
    return build


def _conv_backprop_input(rng):
    w, wv = ph(rng, (3, 3, 2, 3))
    dy, dyv = ph(rng, (1, 3, 3, 3))
    return [(w, wv), (dy, dyv)], conv_grad_ops.conv2d_backprop_input(
        [1, 5, 6, 2], w, dy, strides=[1, 2, 2, 1], padding="SAME")


def _conv_backprop_filter(rng):
    x, xv = ph(rng, (1, 5, 5, 2))
    dy, dyv = ph(rng, (1, 3, 3, 3))
    return [(x, xv), (dy, dyv)], conv_grad_ops.conv2d_backprop_filter(
        x, [3, 3, 2, 3], dy, strides=[1, 1, 1, 1], padding="VALID")


CASES = {
    "Relu": _relu,
    "ReluGrad": _relu_grad,
    "BiasAdd": [_bias_add("NHWC"), _bias_add("NCHW")],
    "BiasAddGrad": _bias_add_grad,
    "Conv2D": [_conv2d([1, 1, 1, 1], "SAME"), _conv2d([1, 2, 2, 1], "VALID"),
               _conv2d([1, 1, 2, 2], "SAME", "NCHW"),
               _conv2d([1, 1, 1, 1], "VALID", dilations=(1, 2, 1, 1))],
    "Conv2DBackpropInput": _conv_backprop_input,
    "Conv2DBackpropFilter": _conv_backprop_filter,
}
