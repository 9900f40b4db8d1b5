"""Small random draws run many times: every run's values are TF's, and a draw that repeats
run after run has its Philox words computed ahead in one NumPy pass (ops/random/philox.py
`PhiloxState.reserve_words`) instead of on Python integers each run."""

import json
import os
import sys
import threading

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.random import philox

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "data"))

import record_random_runs  # noqa: E402


def test_every_run_of_small_draws_matches_tf1(monkeypatch):
    monkeypatch.setenv("FLOWLOOM_SEED_RULES", "1")  # the recording is TF 1.15's
    with open(os.path.join(HERE, "..", "data", "random_runs_tf1.json")) as f:
        want = json.load(f)["runs"]
    got = record_random_runs.run(tf, len(want))
    for k, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"run {k}"


def _one_op_runs(make, runs):
    with tf.Graph().as_default():
        x = make()
        with tf.Session() as sess:
            return [sess.run(x) for _ in range(runs)]


def test_repeating_small_draw_computes_its_words_ahead(monkeypatch):
    calls = []
    words_small = philox._words_small
    monkeypatch.setattr(philox, "_words_small",
                        lambda *a: calls.append(1) or words_small(*a))
    runs = 5 * philox.AHEAD_DRAWS
    got = _one_op_runs(lambda: tf.random_uniform([], seed=5), runs)
    assert len(calls) <= 2  # the first draw; the second predicts the rest
    # the same values as drawing each run's words on Python integers
    state = philox.PhiloxState(*_seeds(5))
    for k, v in enumerate(got):
        c = state.reserve_outputs(1)
        assert np.float32(v).view(np.uint32) == \
            philox.uniform(state.key, c, 1, np.float32)[0].view(np.uint32), k


def _seeds(op_seed):
    with tf.Graph().as_default():
        op = tf.random_uniform([], seed=op_seed).op
        return op.get_attr("seed"), op.get_attr("seed2")


@pytest.mark.parametrize("counter", [0, (1 << 64) - 300, (1 << 128) - 700, 12345 << 70])
def test_words_ahead_equal_words_drawn_one_by_one(counter):
    """Draws served from words computed ahead equal draws computed alone, across the 64- and
    128-bit counter wraps, and a draw of another size in between (which the prediction did
    not expect) gets its own words."""
    key = (0x1234567, 0x89ABCDE)
    state = philox.PhiloxState(1, 1)
    state.key, state.counter = key, counter
    sizes = [1] * 150 + [3] * 70 + [1, 5, 1] + [9] * 3 + [1] * 90
    for k, size in enumerate(sizes):
        nblocks = -(-size // 4)
        expect_at = state.counter
        at, words = state.reserve_words(size, nblocks)
        assert at == expect_at and state.counter == (at + 256 * size) % (1 << 128)
        assert words == philox._words_small(key, at, nblocks), k


def test_concurrent_runs_of_one_op_share_its_stream():
    """Two threads running one op (two queue runners) take each run's counter once: the
    values are the op's first N draws, each exactly once."""
    with tf.Graph().as_default():
        x = tf.random_uniform([], seed=7)
        with tf.Session() as sess:
            got = []

            def work():
                for _ in range(3 * philox.AHEAD_DRAWS):
                    got.append(float(sess.run(x)))

            threads = [threading.Thread(target=work) for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    state = philox.PhiloxState(*_seeds(7))
    want = [float(philox.uniform(state.key, state.reserve_outputs(1), 1, np.float32)[0])
            for _ in range(len(got))]
    assert sorted(got) == sorted(want)


def test_first_runs_racing_make_one_generator(monkeypatch):
    """Two threads whose first runs of one op overlap (both find no generator yet) still
    draw from one stream: the generator made second is dropped, none of the values repeat."""
    made = []
    barrier = threading.Barrier(2, timeout=10)

    class SlowState(philox.PhiloxState):
        def __init__(self, *args):
            made.append(self)
            if len(made) <= 2:
                barrier.wait()  # both threads are inside the first-run path together
            super().__init__(*args)

    monkeypatch.setattr(philox, "PhiloxState", SlowState)
    with tf.Graph().as_default():
        x = tf.random_uniform([4], seed=3)
        with tf.Session() as sess:
            got = []
            threads = [threading.Thread(target=lambda: got.append(sess.run(x)))
                       for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    assert len(made) == 2 and len(got) == 2
    assert not np.array_equal(got[0], got[1])
