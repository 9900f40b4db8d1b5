"""The set ops (tf.sets), SparseTensorDenseMatMul, the *_at_k metrics and the training
functions of TF 1.15's training tests give what TF 1.15 gave (tests/data/tfsets_tf.json, made
by tests/data/record_tfsets.py from tests/data/tfsets_programs.py): values, static shapes,
error classes and messages."""

import json
import os
import sys

import numpy as np
import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import tfsets_programs  # noqa: E402

with open(os.path.join(DATA, "tfsets_tf.json")) as f:
    EXPECTED = json.load(f)
GOT = {}


def _close(got, want):
    if isinstance(want, list) and len(want) == 2 and want[0] == "ValueError" and got and \
            got[0] == "ValueError":
        # build-time errors: TF 1.15 and flowloom word the node context differently
        return got[1].split(" for '")[0] == want[1].split(" for '")[0]
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want):
        return all(_close(g, w) for g, w in zip(got, want))
    if isinstance(want, float) and isinstance(got, (int, float)):
        return bool(np.isclose(got, want, rtol=1e-5, atol=1e-6)) or got == want
    return got == want


def _program(section):
    if section not in GOT:
        GOT[section] = json.loads(json.dumps(getattr(tfsets_programs, section + "_program")(tf)))
    return GOT[section]


@pytest.mark.parametrize("key", sorted(EXPECTED["sets"]))
def test_set_ops_match_tf(key):
    got = _program("sets")[key]
    assert _close(got, EXPECTED["sets"][key]), (got, EXPECTED["sets"][key])
