"""Gradient-check builder for IdentityN (what tf.custom_gradient is built on)."""

import flowloom as tf
from flowloom.framework.apply_op import apply_op
from tests.gradient_cases import dims, ph


def _identity_n(rng):
    (a, av), (b, bv) = ph(rng, dims(rng, 2)), ph(rng, dims(rng, 1))
    outs = apply_op("IdentityN", ([a, b],)).outputs
    return [(a, av), (b, bv)], tf.reduce_sum(tf.sin(outs[0])) + tf.reduce_sum(outs[1] ** 2)


CASES = {"IdentityN": _identity_n}
