"""The tower-style programs (tests/data/tower_programs.py: tf.contrib.deprecated summaries in
tower scopes, tf.identity naming shuffle_batch's outputs in the event file's graph) observe on
flowloom what TF 1.15 observed (tests/data/towers_tf.json, made by tests/data/record_pipelines.py)."""

import json
import os
import sys

import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import tower_programs  # noqa: E402

with open(os.path.join(DATA, "towers_tf.json")) as f:
    EXPECTED = json.load(f)


@pytest.mark.parametrize("prog", tower_programs.PROGRAMS, ids=lambda p: p.__name__)
def test_program_matches_tf(prog):
    got = json.loads(json.dumps(prog(tf), default=str))
    assert got == EXPECTED[prog.__name__]



def test_harness_wraps_the_tower_loop_in_the_root_variable_scope():
    import importlib.util

    path = os.path.join(DATA, "..", "..", "tools", "cifar10_tutorial", "run.py")
    spec = importlib.util.spec_from_file_location("cifar10_tutorial_harness", path)
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)

    text = ("def train():\n  with g:\n    tower_grads = []\n"
            "    for i in xrange(FLAGS.num_gpus):\n      with tf.device('/gpu:%d' % i):\n"
            "        loss = f()\n\n        grads.append(loss)\n    grads = avg(tower_grads)\n")
    edited = run._wrap_tower_loop_in_root_variable_scope(text)
    assert edited == (
        "def train():\n  with g:\n    tower_grads = []\n"
        "    with tf.variable_scope(tf.get_variable_scope()):\n"
        "      for i in xrange(FLAGS.num_gpus):\n        with tf.device('/gpu:%d' % i):\n"
        "          loss = f()\n\n          grads.append(loss)\n    grads = avg(tower_grads)\n")
    with pytest.raises(ValueError, match="no `for i in xrange"):
        run._wrap_tower_loop_in_root_variable_scope("x = 1\n")
