"""Building into one graph from several threads, and running it while it grows.

What TF does (tests/data/hardening_threads_tf.json, recorded by record_hardening.py): the name
scope is per thread; control-dependency, device and colocation stacks are shared between threads
until `Graph.switch_to_thread_local()`; the variable scope is per graph and thread.
"""

import json
import os
import sys
import threading

import pytest

import flowloom as tf
from flowloom.framework import errors

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
sys.path.insert(0, DATA)
import hardening_threads  # noqa: E402

with open(os.path.join(DATA, "hardening_tf.json")) as f:
    EXPECTED = json.load(f)


@pytest.mark.parametrize("name,fn", hardening_threads.CASES,
                         ids=[n for n, _ in hardening_threads.CASES])
def test_threads_same_as_tensorflow(name, fn):
    assert fn(tf) == EXPECTED[name]


def _stress(iterations, builders=8, runners=8):
    """`builders` threads add scoped ops to one graph while `runners` run sessions on it."""
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(0.0, name="v")
        inc = tf.assign_add(v, 1.0)
        base = tf.constant(2.0, name="base")
    sess = tf.Session(graph=g)
    sess.run(v.initializer)
    per_thread = iterations // (builders + runners)
    failures = []
    built = [[] for _ in range(builders)]
    stop = threading.Event()

    def build(k):
        try:
            with g.as_default(), tf.name_scope(f"T{k}"):
                for i in range(per_thread):
                    with tf.name_scope("layer"):
                        t = tf.add(base, float(i), name="add")
                    built[k].append((i, t))
        except Exception as e:  # noqa: BLE001 - collected and reported below
            failures.append(e)

    def run(k):
        try:
            for i in range(per_thread):
                sess.run(inc.op)
                done = built[k % builders]
                if done:
                    j, t = done[-1]
                    assert sess.run(t) == 2.0 + j
        except Exception as e:  # noqa: BLE001
            failures.append(e)

    threads = [threading.Thread(target=build, args=(k,)) for k in range(builders)]
    threads += [threading.Thread(target=run, args=(k,)) for k in range(runners)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    stop.set()
    not_tf = [e for e in failures if not isinstance(e, errors.OpError)]
    assert not not_tf, not_tf[:3]
    assert not failures, failures[:3]
    for k, ops in enumerate(built):
        assert len(ops) == per_thread
        for i, t in ops:
            scope = "layer" if i == 0 else f"layer_{i}"
            assert t.op.name == f"T{k}/{scope}/add", t.op.name
    assert sess.run(v) == per_thread * runners
    names = [op.name for op in g.get_operations()]
    assert len(names) == len(set(names))


def test_build_and_run_from_sixteen_threads():
    _stress(int(os.environ.get("FLOWLOOM_STRESS_ITERATIONS", "1600")))


@pytest.mark.skipif(not os.environ.get("FLOWLOOM_LONG_STRESS"),
                    reason="set FLOWLOOM_LONG_STRESS=1 for the 10,000-iteration run")
def test_build_and_run_ten_thousand_iterations():
    _stress(10000)
