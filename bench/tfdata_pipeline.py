"""Benchmark: examples/s of a tf.data input pipeline, flowloom vs TensorFlow.

TFRecordDataset (20,000 Examples: 64 floats + a label) -> map(parse_single_example,
num_parallel_calls=4) -> shuffle(1000) -> batch(128) -> prefetch(1), drained through
`get_next()` in Session.run. The same program runs on flowloom and, in a subprocess, on the
TensorFlow named by FLOWLOOM_TF_PYTHON (compat.v1); the two alternate, best of --repeats.

Usage: python3 bench/tfdata_pipeline.py [--examples N] [--repeats R]
"""

import argparse
import json
import os
import subprocess
import sys
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
                         capture_output=True, text=True, env=dict(os.environ,
                                                                  TF_CPP_MIN_LOG_LEVEL="3"))
    if out.returncode:
        raise SystemExit(f"{which} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])["examples_per_s"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    tf_python = os.environ.get("FLOWLOOM_TF_PYTHON", "")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "data.tfrecord")
        best = {"flowloom": 0.0, "tf": 0.0}
        for _ in range(args.repeats):
            best["flowloom"] = max(best["flowloom"], run("flowloom", sys.executable, path,
                                                         args.examples))
            if tf_python:
                best["tf"] = max(best["tf"], run("tf", tf_python, path, args.examples))
    line = f"tf.data TFRecord->parse->shuffle->batch->prefetch: flowloom " \
           f"{best['flowloom']:,.0f} examples/s"
    if best["tf"]:
        line += f", TensorFlow {best['tf']:,.0f} examples/s -> flowloom/TF throughput " \
                f"{best['flowloom'] / best['tf']:.2f}x (target >= 1.0x)"
    else:
        line += " (set FLOWLOOM_TF_PYTHON to compare with TensorFlow)"
    print(line)


if __name__ == "__main__":
    main()
