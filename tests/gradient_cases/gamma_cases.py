"""Gradient builders for ops/math/gamma_ops.py: Igamma and Igammac (both inputs, broadcast),
Zeta (q only), Polygamma (x only) and Betainc (x only), as TF 1.15 differentiates them."""

import numpy as np

import flowloom as tf
from flowloom.ops.math import gamma_ops  # noqa: F401 - registers the ops (and their gradients)
from tests.gradient_cases import dims, ph
from tests.gradient_cases.math_cases import _binary


def _second_only(op_type, first):
    def build(rng):
        shape = dims(rng, 2)
        x, xv = ph(rng, shape, 1.0, 3.0)  # away from the poles at 0
        return [(x, xv)], getattr(tf, op_type)(tf.constant(first(rng, shape)), x)
    return build


def _betainc(rng):
    shape = dims(rng, 2)
    x, xv = ph(rng, shape, 0.1, 0.9)
    a = tf.constant(rng.uniform(0.5, 3.0, shape))
    return [(x, xv)], tf.betainc(a, tf.constant(2.5, tf.float64), x)


CASES = {
    "Betainc": _betainc,
    "Igamma": _binary("Igamma", x_range=(0.5, 3.0), y_range=(0.5, 4.0)),
    "Igammac": _binary("Igammac", x_range=(0.5, 3.0), y_range=(0.5, 4.0)),
    "Zeta": _second_only("zeta", lambda rng, shape: rng.uniform(1.5, 4.0, shape)),
    "Polygamma": _second_only("polygamma",
                              lambda rng, shape: rng.integers(0, 4, shape).astype(np.float64)),
}
