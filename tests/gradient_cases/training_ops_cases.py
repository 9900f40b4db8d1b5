"""Gradient-check builders for the training op library (branch `ops`): math/array additions,
nn activations, softmax and losses, pooling, depthwise convolution, LRN, batch norm."""

import numpy as np

import flowloom as tf
from flowloom.framework.apply_op import apply_op
from tests.gradient_cases import away_from_zero, distinct, ph


def _op(op_type, *inputs, **attrs):
    return apply_op(op_type, inputs, **attrs).outputs[0]


def _top_k(rng):
    x, _ = ph(rng, (2, 5))
    return [(x, distinct(rng, (2, 5)))], tf.nn.top_k(x, 3)[0]


def _segment(fn):
    def build(rng):
        x, xv = ph(rng, (5, 2))
        return [(x, xv)], fn(x, tf.constant([0, 0, 2, 2, 3]))
    return build


def _gather_nd(rng):
    p, pv = ph(rng, (3, 4))
    return [(p, pv)], tf.gather_nd(p, [[0, 1], [2, 3], [0, 1]])


def _scatter_nd(rng):
    u, uv = ph(rng, (3, 2))
    return [(u, uv)], tf.scatter_nd([[1], [0], [1]], u, [4, 2])


def _tensor_scatter(op_type):
    # Distinct indices: an update's gradient is only defined where no two rows collide.
    def build(rng):
        t, tv = ph(rng, (4, 2))
        u, uv = ph(rng, (2, 2))
        return [(t, tv), (u, uv)], _op(op_type, t, tf.constant([[2], [0]]), u)
    return build


def _pad(mode, **kw):
    def build(rng):
        x, xv = ph(rng, (3, 4))
        return [(x, xv)], tf.pad(x, [[1, 2], [2, 0]], mode, **kw)
    return build


def _mirror_pad_grad(rng):
    g, gv = ph(rng, (6, 7))
    return [(g, gv)], _op("MirrorPadGrad", g, tf.constant([[1, 2], [2, 1]]), mode="REFLECT")


def _split(rng):
    x, xv = ph(rng, (4, 6))
    a, b, c = tf.split(x, 3, axis=1)
    return [(x, xv)], a * 2.0 + c


def _split_v(rng):
    x, xv = ph(rng, (4, 6))
    a, b = tf.split(x, [4, -1], 1)
    return [(x, xv)], b * 3.0


def _reverse(rng):
    x, xv = ph(rng, (2, 3, 4))
    return [(x, xv)], tf.reverse(x, [0, 2])


def _select_v2(rng):
    x, xv = ph(rng, (2, 3))
    y, yv = ph(rng, (1, 3))
    c = tf.constant([[True, False, True], [False, False, True]])
    return [(x, xv), (y, yv)], tf.where_v2(c, x, y)


def _unary(fn, low=0.1, high=2.0):
    def build(rng):
        x, _ = ph(rng, (3, 4))
        return [(x, away_from_zero(rng, (3, 4), low, high))], fn(x)
    return build


def _relu6(rng):
    x, _ = ph(rng, (3, 4))
    v = away_from_zero(rng, (3, 4), 0.1, 5.5)
    return [(x, v)], tf.nn.relu6(x)


def _xent(rng):
    logits, lv = ph(rng, (3, 4))
    labels, bv = ph(rng, (3, 4))
    # Rows of labels must sum to 1: the op's backprop (softmax - labels) assumes it, as TF's.
    return [(logits, lv), (labels, bv)], tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.nn.softmax(labels), logits=logits)


def _sparse_xent(rng):
    logits, lv = ph(rng, (3, 4))
    return [(logits, lv)], tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([0, 3, 1]), logits=logits)


def _pool(fn, **kw):
    def build(rng):
        x, _ = ph(rng, (2, 5, 6, 2))
        return [(x, distinct(rng, (2, 5, 6, 2)))], fn(x, **kw)
    return build


def _avg_pool_grad(rng):
    g, gv = ph(rng, (1, 3, 3, 2))
    return [(g, gv)], _op("AvgPoolGrad", tf.constant([1, 5, 6, 2]), g, ksize=[1, 3, 3, 1],
                          strides=[1, 2, 2, 1], padding="SAME", data_format="NHWC")


def _depthwise(strides, padding, rate=None):
    def build(rng):
        x, xv = ph(rng, (1, 5, 6, 2))
        w, wv = ph(rng, (3, 2, 2, 2))
        return [(x, xv), (w, wv)], tf.nn.depthwise_conv2d(x, w, strides, padding, rate=rate)
    return build


def _conv_dilated_strided(rng):
    x, xv = ph(rng, (1, 7, 8, 2))
    w, wv = ph(rng, (2, 3, 2, 2))
    return [(x, xv), (w, wv)], tf.nn.conv2d(x, w, [1, 2, 1, 1], "SAME", dilations=[1, 2, 2, 1])


def _lrn(rng):
    x, xv = ph(rng, (1, 2, 2, 6))
    return [(x, xv)], tf.nn.lrn(x, 2, bias=1.0, alpha=0.3, beta=0.75)


def _fused_bn(is_training):
    def build(rng):
        x, xv = ph(rng, (2, 3, 2, 3))
        s, sv = ph(rng, (3,), 0.5, 1.5)
        o, ov = ph(rng, (3,))
        mean, var = tf.constant([0.1, -0.2, 0.0], tf.float64), tf.constant(
            [1.0, 0.5, 2.0], tf.float64)
        if is_training:
            y = tf.nn.fused_batch_norm(x, s, o, epsilon=0.01)[0]
        else:
            y = tf.nn.fused_batch_norm(x, s, o, mean, var, is_training=False)[0]
        return [(x, xv), (s, sv), (o, ov)], y, 2e-4
    return build


CASES = {
    "TopKV2": _top_k,
    "SegmentSum": _segment(tf.segment_sum),
    "SegmentMean": _segment(tf.segment_mean),
    "GatherNd": _gather_nd,
    "ScatterNd": _scatter_nd,
    "ScatterNdNonAliasingAdd": _tensor_scatter("ScatterNdNonAliasingAdd"),
    "TensorScatterAdd": _tensor_scatter("TensorScatterAdd"),
    "TensorScatterSub": _tensor_scatter("TensorScatterSub"),
    "TensorScatterUpdate": _tensor_scatter("TensorScatterUpdate"),
    "Pad": _pad("CONSTANT"),
    "PadV2": _pad("CONSTANT", constant_values=2.0),
    "MirrorPad": [_pad("REFLECT"), _pad("SYMMETRIC")],
    "MirrorPadGrad": _mirror_pad_grad,
    "Split": _split,
    "SplitV": _split_v,
    "ReverseV2": _reverse,
    "SelectV2": _select_v2,
    "Relu6": _relu6,
    "Elu": _unary(tf.nn.elu),
    "Selu": _unary(tf.nn.selu),
    "LeakyRelu": _unary(lambda x: tf.nn.leaky_relu(x, 0.3)),
    "Softmax": _unary(tf.nn.softmax, -2.0, 2.0),
    "LogSoftmax": _unary(tf.nn.log_softmax, -2.0, 2.0),
    "L2Loss": _unary(tf.nn.l2_loss, -2.0, 2.0),
    "SoftmaxCrossEntropyWithLogits": _xent,
    "SparseSoftmaxCrossEntropyWithLogits": _sparse_xent,
    "MaxPool": [_pool(tf.nn.max_pool, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1],
                      padding="SAME"),
                _pool(tf.nn.max_pool, ksize=[1, 2, 2, 1], strides=[1, 1, 2, 1],
                      padding="VALID")],
    "AvgPool": [_pool(tf.nn.avg_pool, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1],
                      padding="SAME"),
                _pool(tf.nn.avg_pool, ksize=[1, 2, 3, 1], strides=[1, 1, 2, 1],
                      padding="VALID")],
    "AvgPoolGrad": _avg_pool_grad,
    "DepthwiseConv2dNative": [_depthwise([1, 1, 1, 1], "SAME"),
                              _depthwise([1, 2, 2, 1], "VALID"),
                              _depthwise([1, 1, 1, 1], "SAME", rate=[2, 1])],
    "LRN": _lrn,
    "FusedBatchNormV3": [_fused_bn(True), _fused_bn(False)],
    # Dilated + strided convolution: TF's CPU kernels cannot record this gradient.
    "Conv2D": _conv_dilated_strided,
}

del np
