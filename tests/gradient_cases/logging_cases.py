"""Gradient-check builders for ops/checks/logging_ops.py (CheckNumerics, Print)."""

import flowloom as tf
from tests.gradient_cases import dims, ph


def _check_numerics(rng):
    x, xv = ph(rng, dims(rng, 2))
    return [(x, xv)], tf.check_numerics(x * 2.0, "bad")


def _print(rng):
    x, xv = ph(rng, dims(rng, 2))
    return [(x, xv)], tf.Print(x * 2.0, [], first_n=0)


CASES = {"CheckNumerics": _check_numerics, "Print": _print}
