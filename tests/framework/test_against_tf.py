"""The core programs give on flowloom exactly what they gave on real TensorFlow."""

import json
import os
import sys

import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
sys.path.insert(0, DATA)
import core_programs  # noqa: E402
from tests.tf_reference import as_tf2_op_type  # noqa: E402

with open(os.path.join(DATA, "core_expected.json")) as f:
    EXPECTED = json.load(f)


def _normalize(x):
    return json.loads(json.dumps(x, sort_keys=True, default=str))


@pytest.mark.parametrize("prog", core_programs.PROGRAMS, ids=lambda p: p.__name__)
def test_program_matches_tensorflow(prog):
    got = _normalize(prog(tf))
    types = got.get("types")  # recorded by TF 2.21, whose tf.add is AddV2
    if isinstance(types, list):
        got["types"] = [as_tf2_op_type(t) for t in types]
    elif isinstance(types, dict):
        got["types"] = {k: as_tf2_op_type(t) for k, t in types.items()}
    want = EXPECTED[prog.__name__]
    # Compare key by key so a failure names what differs.
    assert sorted(got) == sorted(want)
    for key in want:
        assert got[key] == want[key], key
