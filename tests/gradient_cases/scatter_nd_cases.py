"""Gradient-check builders for the n-d scatter ops on tensors (flowloom/ops/state/scatter_nd_ops.py)."""

import flowloom as tf
from flowloom.ops.state import scatter_nd_ops
from tests.gradient_cases import ph


def _case(fn):
    def build(rng):
        x, xv = ph(rng, (5, 3))
        u, uv = ph(rng, (2, 3))
        indices = tf.constant([[3], [1]])
        return [(x, xv), (u, uv)], fn(x, indices, u)
    return build


CASES = {
    "ScatterNdNonAliasingAdd": _case(scatter_nd_ops.scatter_nd_non_aliasing_add),
    "TensorScatterAdd": _case(scatter_nd_ops.tensor_scatter_add),
    "TensorScatterSub": _case(scatter_nd_ops.tensor_scatter_sub),
    "TensorScatterUpdate": _case(scatter_nd_ops.tensor_scatter_update),
}
