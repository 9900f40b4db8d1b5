"""Gradient-check builders for ops/nn/conv3d_ops.py and ops/nn/pool_argmax_ops.py."""


import flowloom as tf
from flowloom.framework.apply_op import apply_op
from tests.gradient_cases import distinct, ph


def _conv3d(padding, strides):
    def build(rng):
        x, xv = ph(rng, (1, 4, 3, 4, 2))
        w, wv = ph(rng, (2, 2, 3, 2, 3))
        return [(x, xv), (w, wv)], tf.nn.conv3d(x, w, strides, padding)
    return build


def _backprop_input(rng):
    w, wv = ph(rng, (2, 2, 2, 2, 3))
    dy, dyv = ph(rng, (1, 2, 2, 2, 3))
    out = apply_op("Conv3DBackpropInputV2", (tf.constant([1, 3, 3, 3, 2]), w, dy),
                   strides=[1, 2, 2, 2, 1], padding="SAME").outputs[0]
    return [(w, wv), (dy, dyv)], out


def _backprop_filter(rng):
    x, xv = ph(rng, (1, 3, 3, 3, 2))
    dy, dyv = ph(rng, (1, 2, 2, 2, 3))
    out = apply_op("Conv3DBackpropFilterV2", (x, tf.constant([2, 2, 2, 2, 3]), dy),
                   strides=[1, 1, 1, 1, 1], padding="VALID").outputs[0]
    return [(x, xv), (dy, dyv)], out


# The 3-D pools take float32 only (as TF's), so these check in float32 with a looser bound.
def _pool32(kind, padding):
    def build(rng):
        x = tf.placeholder(tf.float64, (1, 4, 4, 3, 2))
        xv = distinct(rng, (1, 4, 4, 3, 2), spread=4.0)
        fn = tf.nn.max_pool3d if kind == "max" else tf.nn.avg_pool3d
        y = fn(tf.cast(x, tf.float32), [1, 2, 2, 2, 1], [1, 2, 1, 2, 1], padding)
        return [(x, xv)], tf.cast(y, tf.float64), 2e-2
    return build


def _avg_pool3d_grad(rng):
    dy, dyv = ph(rng, (1, 2, 2, 2, 1))
    out = apply_op("AvgPool3DGrad", (tf.constant([1, 4, 4, 3, 1]), tf.cast(dy, tf.float32)),
                   ksize=[1, 2, 2, 2, 1], strides=[1, 2, 2, 2, 1], padding="SAME").outputs[0]
    return [(dy, dyv)], tf.cast(out, tf.float64), 2e-2


def _argmax_pool(rng):
    x = tf.placeholder(tf.float64, (2, 4, 5, 2))
    xv = distinct(rng, (2, 4, 5, 2), spread=4.0)
    y, _ = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    return [(x, xv)], y


CASES = {
    "Conv3D": [_conv3d("SAME", [1, 1, 2, 1, 1]), _conv3d("VALID", [1, 2, 1, 1, 1])],
    "Conv3DBackpropInputV2": _backprop_input,
    "Conv3DBackpropFilterV2": _backprop_filter,
    "MaxPool3D": _pool32("max", "SAME"),
    "AvgPool3D": [_pool32("avg", "SAME"), _pool32("avg", "VALID")],
    "AvgPool3DGrad": _avg_pool3d_grad,
    "MaxPoolWithArgmax": _argmax_pool,
}
