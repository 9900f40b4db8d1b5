"""The math kernels, casts and checks of TF 1.15's kernel tests give what TF 1.15 gave
(tests/data/tfmath_kernels_tf.json, made by tests/data/record_tfmath_kernels.py from
tests/data/tfmath_kernels_programs.py): values, dtypes, static shapes, error classes and
messages."""

import pytest

from tests.ops.recorded import Recording

RECORDING = Recording("tfmath_kernels_programs", "tfmath_kernels_tf.json")


@pytest.mark.parametrize("section,key", RECORDING.cases())
def test_matches_tf_1_15(section, key):
    RECORDING.check(section, key)
