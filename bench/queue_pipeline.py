"""Benchmark: examples/s of a queue-based input pipeline, flowloom vs TensorFlow.

TFRecords (20,000 Examples: 64 floats + a label) -> string_input_producer -> TFRecordReader
-> parse_single_example -> shuffle_batch(128, num_threads=4, capacity=2000,
min_after_dequeue=1000) with queue runners, drained through Session.run for a fixed number of
batches. The same program runs on flowloom and, in a subprocess, on the TensorFlow named by
FLOWLOOM_TF1_PYTHON (TF 1.x) or FLOWLOOM_TF_PYTHON (compat.v1); they alternate, best of
--repeats.

Usage: python3 bench/queue_pipeline.py [--examples N] [--batches B] [--repeats R]
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
    tf = _tf.compat.v1 if hasattr(_tf, "compat") and not hasattr(_tf, "FIFOQueue") else _tf
    if tf is not _tf:
        tf.disable_v2_behavior()
else:
    import flowloom as tf
path, examples, batches = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if not __import__("os").path.exists(path):
    rng = np.random.RandomState(0)
    with tf.python_io.TFRecordWriter(path) as w:
        for i in range(examples):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=rng.rand(64))),
                "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10]))}))
            w.write(ex.SerializeToString())
spec = {"x": tf.FixedLenFeature([64], tf.float32), "y": tf.FixedLenFeature([], tf.int64)}
files = tf.train.string_input_producer([path])
_, record = tf.TFRecordReader().read(files)
f = tf.parse_single_example(record, spec)
x, y = tf.train.shuffle_batch([f["x"], f["y"]], batch_size=128, num_threads=4, capacity=2000,
                              min_after_dequeue=1000)
with tf.Session() as sess:
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    sess.run(y)  # warm up: the queue fills past min_after_dequeue
    start = time.perf_counter()
    n = 0
    for _ in range(batches):
        n += len(sess.run(y))
    seconds = time.perf_counter() - start
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=10)
print(json.dumps({"examples_per_s": n / seconds, "examples": n}))
"""


def run(which, python, path, examples, batches):
    out = subprocess.run([python, "-c", PROGRAM, which, path, str(examples), str(batches)],
                         capture_output=True, text=True, cwd=os.path.dirname(path),
                         env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    if out.returncode:
        raise SystemExit(f"{which} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])["examples_per_s"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=20000)
    parser.add_argument("--batches", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    tf_python = os.environ.get("FLOWLOOM_TF1_PYTHON") or os.environ.get("FLOWLOOM_TF_PYTHON", "")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.environ["PYTHONPATH"] = root + os.pathsep + os.environ.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "data.tfrecord")
        best = {"flowloom": 0.0, "tf": 0.0}
        for _ in range(args.repeats):
            best["flowloom"] = max(best["flowloom"], run("flowloom", sys.executable, path,
                                                         args.examples, args.batches))
            if tf_python:
                best["tf"] = max(best["tf"], run("tf", tf_python, path, args.examples,
                                                 args.batches))
    line = (f"queues TFRecord->parse->shuffle_batch(4 threads): flowloom "
            f"{best['flowloom']:.0f} examples/s")
    if tf_python:
        line += f", TensorFlow {best['tf']:.0f} examples/s, ratio {best['flowloom'] / best['tf']:.2f}"
    else:
        line += " (set FLOWLOOM_TF1_PYTHON or FLOWLOOM_TF_PYTHON to compare with TensorFlow)"
    print(line)


if __name__ == "__main__":
    main()
