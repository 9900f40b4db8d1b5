"""Gradient builders for ops/math/special_math_ops.py (inverse hyperbolics, erfc, lgamma, the
xlogy family, MulNoNan) and Conj."""

import flowloom as tf
from tests.gradient_cases.complex_cases import _parts
from tests.gradient_cases.math_cases import _binary, _unary


def _conj(rng):
    a, av, b, bv = _parts(rng)
    z = tf.conj(tf.complex(a, b)) * tf.complex(tf.constant(1.5, tf.float64),
                                                tf.constant(-0.5, tf.float64))
    return [(a, av), (b, bv)], tf.real(z) + 3.0 * tf.imag(z)


CASES = {
    "Asinh": _unary("Asinh"),
    "Acosh": _unary("Acosh", 1.5, 3.0),
    "Atanh": _unary("Atanh", -0.8, 0.8),
    "Erfc": _unary("Erfc"),
    "Lgamma": _unary("Lgamma", 0.5, 3.0),
    "Xlogy": _binary("Xlogy", y_range=(0.5, 1.5)),
    "Xdivy": _binary("Xdivy", y_range=(0.5, 1.5)),
    "MulNoNan": _binary("MulNoNan"),
    "Conj": _conj,
    "BesselI0e": _unary("BesselI0e", -3.0, 3.0),
    "BesselI1e": _unary("BesselI1e", -3.0, 3.0),
}
