"""Benchmark: examples/s of a tf.data input pipeline, flowloom vs TensorFlow.

TFRecordDataset (20,000 Examples: 64 floats + a label) -> map(parse_single_example,
num_parallel_calls=4) -> shuffle(1000) -> batch(128) -> prefetch(1), drained through
`get_next()` in Session.run. The same program runs on flowloom and, in a subprocess, on the
TensorFlow named by FLOWLOOM_TF1_PYTHON (TF 1.15) or FLOWLOOM_TF_PYTHON (compat.v1); they
alternate for --rounds rounds; medians over rounds, and the NumPy floor of
bench/queue_pipeline.py (read the file, gather the values at known offsets) in every round.

Usage: python3 bench/tfdata_pipeline.py [--examples N] [--rounds R]
"""

import argparse
import json
import os
import subprocess
import tempfile

PROGRAM = r"""
import json, sys, time
import numpy as np
if sys.argv[1] == "tf":
    import tensorflow as _tf
    tf = _tf.compat.v1
    tf.disable_v2_behavior()
else:
    import flowloom as tf
path, examples = sys.argv[2], int(sys.argv[3])
if not __import__("os").path.exists(path):
    rng = np.random.RandomState(0)
    with tf.python_io.TFRecordWriter(path) as w:
        for i in range(examples):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=rng.rand(64))),
                "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10]))}))
            w.write(ex.SerializeToString())
spec = {"x": tf.FixedLenFeature([64], tf.float32), "y": tf.FixedLenFeature([], tf.int64)}
def parse(record):
    f = tf.parse_single_example(record, spec)
    return f["x"], f["y"]
ds = tf.data.TFRecordDataset([path]).map(parse, num_parallel_calls=4).shuffle(1000, seed=1)
ds = ds.batch(128).prefetch(1)
x, y = tf.data.make_one_shot_iterator(ds).get_next() if hasattr(tf.data, "make_one_shot_iterator") else ds.make_one_shot_iterator().get_next()
n = 0
with tf.Session() as sess:
    sess.run(x)  # warm up: the first batch starts the threads
    start = time.perf_counter()
    try:
        while True:
            n += len(sess.run(y))
    except tf.errors.OutOfRangeError:
        pass
    seconds = time.perf_counter() - start
print(json.dumps({"examples_per_s": n / seconds, "examples": n}))
"""


def run(which, python, path, examples):
    out = subprocess.run([python, "-c", PROGRAM, which, path, str(examples)],
                         capture_output=True, text=True, cwd=os.path.dirname(path),
                         env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    if out.returncode:
        raise SystemExit(f"{which} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])["examples_per_s"]


def main():
    from queue_pipeline import numpy_floor, rounds, summary

    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.environ["PYTHONPATH"] = root + os.pathsep + os.environ.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "data.tfrecord")
        got = rounds(args, lambda which, python: run(which, python, path, args.examples),
                     lambda: numpy_floor(path))
    print("tf.data TFRecord->parse(4 calls)->shuffle->batch->prefetch: " + summary(got))


if __name__ == "__main__":
    main()
