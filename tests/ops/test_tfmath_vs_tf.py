"""Segment reductions and the other math ops of TF 1.15's kernel tests give what TF 1.15
gave (tests/data/tfmath_tf.json, made by tests/data/record_tfmath.py from
tests/data/tfmath_programs.py): values, static shapes, error classes and messages."""

import pytest

from tests.ops.recorded import Recording

RECORDING = Recording("tfmath_programs", "tfmath_tf.json")


@pytest.mark.parametrize("section,key", RECORDING.cases())
def test_matches_tf_1_15(section, key):
    RECORDING.check(section, key)
