"""Gradient builders for the complex-number ops: two float64 parts made complex, then a real
value out of the op under test (the checker differentiates real functions)."""

import flowloom as tf
from tests.gradient_cases import away_from_zero, ph


def _parts(rng, shape=(2, 3)):
    (a, _), (b, _) = ph(rng, shape), ph(rng, shape)
    return a, away_from_zero(rng, shape), b, away_from_zero(rng, shape)


def _through(fn):
    def build(rng):
        a, av, b, bv = _parts(rng)
        return [(a, av), (b, bv)], fn(tf.complex(a, b))
    return build


CASES = {
    "Complex": _through(lambda z: tf.real(z) + 2.0 * tf.imag(z)),
    "Real": _through(tf.real),
    "Imag": _through(tf.imag),
    "Angle": _through(tf.angle),
    "ComplexAbs": _through(tf.abs),
}
