"""Gradient cases of gradient ops: the activation gradients (second derivatives of Relu6,
Elu, Selu, LeakyRelu; both inputs, away from the kinks) and the depthwise convolution's
backprop ops (both tensor inputs)."""

import flowloom as tf
from flowloom.framework.apply_op import apply_op
from flowloom.ops.nn import batch_norm_grads, depthwise_grad_ops  # noqa: F401 - gradients
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


def _fused_batch_norm_grad(training):
    def build(rng):
        x, xv = ph(rng, (2, 3, 2, 3))
        dy, dyv = ph(rng, (2, 3, 2, 3))
        scale = tf.constant([0.5, 1.5, -1.0], tf.float64)
        stats = {} if training else {"mean": tf.constant([0.1, 0.2, -0.3], tf.float64),
                                     "variance": tf.constant([1.0, 0.5, 2.0], tf.float64)}
        y = tf.nn.fused_batch_norm(x, scale, tf.zeros([3], tf.float64), is_training=training,
                                   **stats)[0]
        return [(x, xv), (dy, dyv)], tf.gradients(y, x, dy)[0], 1e-3
    return build


def _global_normalization(rng):
    from flowloom.framework.op_versions import set_producer_version

    set_producer_version(tf.get_default_graph(), 8)
    t, tv = ph(rng, (2, 3, 2, 3))
    m, mv = ph(rng, (3,))
    v, _ = ph(rng, (3,))
    beta, bv = ph(rng, (3,))
    gamma, gv = ph(rng, (3,))
    out = apply_op("BatchNormWithGlobalNormalization", (t, m, v, beta, gamma),
                   variance_epsilon=0.01, scale_after_normalization=True).outputs[0]
    return [(t, tv), (m, mv), (v, rng.uniform(0.5, 2.0, (3,))), (beta, bv), (gamma, gv)], out


CASES.update({
    "FusedBatchNormGradV3": [_fused_batch_norm_grad(True), _fused_batch_norm_grad(False)],
    "BatchNormWithGlobalNormalization": _global_normalization,
})
