"""The pipeline programs (tests/data/pipeline_programs.py) observe on flowloom what TF 1.15
observed (tests/data/pipelines_tf.json, made by tests/data/record_pipelines.py), and so do the
queue-kernel programs (tests/data/queue_semantics_programs.py, queue_semantics_tf.json from
tests/data/record_pipelines.py as well): blocked attempts advanced by whoever frees room,
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
import pipeline_programs  # noqa: E402
import queue_semantics_programs  # noqa: E402

EXPECTED = {}
for _name in ("pipelines_tf.json", "queue_semantics_tf.json"):
    with open(os.path.join(DATA, _name)) as f:
        EXPECTED.update(json.load(f))


def _normalise(x):
    """Queue resource names carry a process-wide counter (`_12_fifo_queue`): drop it."""
    if isinstance(x, str):
        return re.sub(r"'_\d+_", "'_N_", x)
    if isinstance(x, list):
        return [_normalise(v) for v in x]
    if isinstance(x, dict):
        return {k: _normalise(v) for k, v in x.items()}
    return x


@pytest.mark.parametrize("prog", pipeline_programs.PROGRAMS + queue_semantics_programs.PROGRAMS,
                         ids=lambda p: p.__name__)
def test_program_matches_tf(prog, monkeypatch):
    # The recordings come from TF 1.15: op seeds under a graph seed follow its rule.
    monkeypatch.setenv("FLOWLOOM_SEED_RULES", "1")
    got = json.loads(json.dumps(prog(tf), default=str))
    assert _normalise(got) == _normalise(EXPECTED[prog.__name__])
