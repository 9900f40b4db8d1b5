"""Records what TF 1.15 gives for small random draws run many times in one session (the
per-example draws of an image pipeline: a scalar uniform, a crop offset, a few values), so
tests/ops/test_random_runs.py checks every run of them, not just the first two.

    $FLOWLOOM_TF1_PYTHON tests/data/record_random_runs.py   # writes random_runs_tf1.json

Values are stored as their bit patterns (float32 as uint32) so the comparison is exact.
"""

import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = 300


def build(tf):
    """The fetches: each a small seeded draw (the same program runs under flowloom)."""
    tf.set_random_seed(1234)
    return [tf.random_uniform([]), tf.random_uniform([], -63.0, 63.0),
            tf.random_uniform([3], maxval=2**31 - 1, dtype=tf.int32),
            tf.random_uniform([5]), tf.random_uniform([17], seed=9),
            tf.random_uniform([2], minval=-7, maxval=1000, dtype=tf.int32, seed=3)]


def bits(value):
    a = np.asarray(value)
    return (a.view(np.uint32) if a.dtype == np.float32 else a.astype(np.int64)).ravel().tolist()


def run(tf, runs=RUNS):
    """[[bits of each fetch] per run]: `runs` runs of `build` in one session."""
    with tf.Graph().as_default():
        outs = build(tf)
        with tf.Session() as sess:
            return [[bits(v) for v in sess.run(outs)] for _ in range(runs)]


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    assert tf.__version__.startswith("1."), "record with TF 1.15 (FLOWLOOM_TF1_PYTHON)"
    out = os.path.join(HERE, "random_runs_tf1.json")
    with open(out, "w") as f:
        json.dump({"tf_version": tf.__version__, "runs": run(tf)}, f, separators=(",", ":"))
    print(f"wrote {out}: {RUNS} runs, TF {tf.__version__}")


if __name__ == "__main__":
    main()
