"""Queue-kernel semantics (tests/data/queue_semantics_programs.py) observed on flowloom equal
what TF 1.15 observed (tests/data/queue_semantics_tf.json, made by
tests/data/record_queue_semantics.py): blocked attempts advanced by whoever frees room,
close() waiting behind pending enqueues, shared-queue attribute checks, DequeueMany needing
shapes, a failing run cancelling its own blocked dequeue."""

import json
import os
import re
import sys

import pytest

import flowloom as tf

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
sys.path.insert(0, DATA)
import queue_semantics_programs  # noqa: E402

with open(os.path.join(DATA, "queue_semantics_tf.json")) as f:
    EXPECTED = json.load(f)


def _normalise(x):
    """Queue resource names carry a process-wide counter (`_12_fifo_queue`): drop it."""
    if isinstance(x, str):
        return re.sub(r"'_\d+_", "'_N_", x)
    if isinstance(x, list):
        return [_normalise(v) for v in x]
    if isinstance(x, dict):
        return {k: _normalise(v) for k, v in x.items()}
    return x


@pytest.mark.parametrize("prog", queue_semantics_programs.PROGRAMS, ids=lambda p: p.__name__)
def test_program_matches_tf(prog, monkeypatch):
    # TF 1.15's op-seed rule (a queue's seeds when only the op seed is set).
    monkeypatch.setenv("FLOWLOOM_SEED_RULES", "1")
    got = json.loads(json.dumps(prog(tf), default=str))
    assert _normalise(got) == _normalise(EXPECTED[prog.__name__])
