"""The math kernels, casts and checks of TF 1.15's kernel tests give what TF 1.15 gave
(tests/data/tfmath_kernels_tf.json, made by tests/data/record_tfmath_kernels.py from
tests/data/tfmath_kernels_programs.py): values, dtypes, static shapes, error classes and
messages."""

import json
import os
import sys

import numpy as np
import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import tfmath_kernels_programs as programs  # noqa: E402

with open(os.path.join(DATA, "tfmath_kernels_tf.json")) as f:
    EXPECTED = json.load(f)
GOT = {}


def _close(got, want):
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want):
        return all(_close(g, w) for g, w in zip(got, want))
    if isinstance(want, float) and isinstance(got, (int, float)):
        return bool(np.isclose(got, want, rtol=1e-5, atol=1e-6)) or got == want
    return got == want


def _section(name):
    if name not in GOT:
        GOT[name] = json.loads(json.dumps(getattr(programs, name + "_program")(tf)))
    return GOT[name]


@pytest.mark.parametrize("section,key", [(s, k) for s in sorted(EXPECTED)
                                         for k in sorted(EXPECTED[s])])
def test_matches_tf_1_15(section, key):
    got = _section(section)[key]
    assert _close(got, EXPECTED[section][key]), (got, EXPECTED[section][key])
