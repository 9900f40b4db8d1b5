"""Gradient cases of the max-pooling gradient ops (flowloom/ops/nn/pool_grad_ops.py): each is
linear in its `grad` input, which is what is differentiated; the pooled input is a constant
without ties."""

import numpy as np

import flowloom as tf
from flowloom.framework.apply_op import apply_op
from flowloom.ops.nn import nn_v2, pool_grad_ops  # noqa: F401 - registers the gradients
from tests.gradient_cases import distinct, ph

_K, _S = [1, 3, 2, 1], [1, 2, 2, 1]


def _pooled(rng):
    x = tf.constant(distinct(rng, (2, 5, 6, 2)))
    return x, tf.nn.max_pool(x, _K, _S, "SAME")


def _max_pool_v2(rng):
    x, _ = ph(rng, (2, 5, 6, 2))
    return [(x, distinct(rng, (2, 5, 6, 2)))], nn_v2.max_pool_v2_op(x, _K, _S, "SAME")


def _grad_op(op_type, sized, wrt_output_shape):
    def build(rng):
        x, y = _pooled(rng)
        g, gv = ph(rng, (2, 3, 3, 2) if wrt_output_shape else (2, 5, 6, 2))
        extra = (tf.constant(_K), tf.constant(_S)) if sized else ()
        attrs = {} if sized else {"ksize": _K, "strides": _S}
        out = apply_op(op_type, (x, y, g) + extra, padding="SAME", **attrs).outputs[0]
        return [(g, np.asarray(gv))], out
    return build


CASES = {
    "MaxPoolV2": _max_pool_v2,
    "MaxPoolGrad": _grad_op("MaxPoolGrad", False, True),
    "MaxPoolGradV2": _grad_op("MaxPoolGradV2", True, True),
    "MaxPoolGradGrad": _grad_op("MaxPoolGradGrad", False, False),
    "MaxPoolGradGradV2": _grad_op("MaxPoolGradGradV2", True, False),
}
