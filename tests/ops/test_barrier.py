"""The Barrier op family gives what TF 1.15 gave (tests/data/barrier_tf.json, made by
tests/data/record_barrier.py): insert order, indices, closing with and without cancelling
pending inserts, errors, shared barriers and static shapes."""

import json
import os
import sys

import pytest

import flowloom as tf
from flowloom.data.barrier import Barrier

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import barrier_programs  # noqa: E402
from tests.ops.recorded import close  # noqa: E402

with open(os.path.join(DATA, "barrier_tf.json")) as f:
    EXPECTED = json.load(f)

GOT = json.loads(json.dumps(barrier_programs.program(tf, Barrier)))


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tf_1_15(key):
    assert close(GOT[key], EXPECTED[key]), (GOT[key], EXPECTED[key])
