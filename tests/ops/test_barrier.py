"""The Barrier op family gives what TF 1.15 gave (tests/data/barrier_tf.json, made by
tests/data/record_barrier.py): insert order, indices, closing with and without cancelling
pending inserts, errors, shared barriers and static shapes."""

import pytest

import flowloom as tf
from flowloom.data.barrier import Barrier
from tests.ops.recorded import close, run_program

GOT, EXPECTED = run_program("barrier_programs", "barrier_tf.json", tf, Barrier)


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tf_1_15(key):
    assert close(GOT[key], EXPECTED[key]), (GOT[key], EXPECTED[key])
