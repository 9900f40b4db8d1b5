"""Benchmark: examples/s of a queue-based input pipeline, flowloom vs TensorFlow vs a NumPy floor.

TFRecords (20,000 Examples: 64 floats + a label) -> string_input_producer -> TFRecordReader
-> parse -> shuffle_batch(128, num_threads=4, capacity=2000, min_after_dequeue=1000) with
queue runners, drained through Session.run for a fixed number of batches. Two parse modes:

  --parse batch (default, the issue's program (a)): `read_up_to(queue, 128)` ->
      `parse_example` of the 128 records -> `shuffle_batch(..., enqueue_many=True)`;
  --parse single: `read` -> `parse_single_example` of each record -> `shuffle_batch`.

The same program runs on flowloom and, in a subprocess, on the TensorFlow named by
FLOWLOOM_TF1_PYTHON (TF 1.x) or FLOWLOOM_TF_PYTHON (compat.v1); they alternate for
--rounds rounds, and the figures are medians over rounds (the ratio: the median of the
rounds' ratios, each from two neighbouring processes). The NumPy floor, measured in every
round, is the least work any NumPy reader must do per record: read the file's bytes and
gather each record's 64 floats and label from offsets known in advance. Each process
also reports its CPU time per example (all its threads: TF's runners run in parallel, so on
a loaded machine its share of the cores, not its CPU time, sets its rate).

Usage: python3 bench/queue_pipeline.py [--parse batch|single] [--examples N] [--batches B]
       [--rounds R]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

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
path, examples, batches, mode = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
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
reader = tf.TFRecordReader()
if mode == "batch":
    _, records = reader.read_up_to(files, 128)
    f = tf.parse_example(records, spec)
    many = True
else:
    _, record = reader.read(files)
    f = tf.parse_single_example(record, spec)
    many = False
x, y = tf.train.shuffle_batch([f["x"], f["y"]], batch_size=128, num_threads=4, capacity=2000,
                              min_after_dequeue=1000, enqueue_many=many)
with tf.Session() as sess:
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    sess.run(y)  # warm up: the queue fills past min_after_dequeue
    start, cpu = time.perf_counter(), time.process_time()
    n = 0
    for _ in range(batches):
        n += len(sess.run(y))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=10)
print(json.dumps({"examples_per_s": n / seconds, "examples": n, "cpu_us": 1e6 * cpu / n}))
"""


CPU_US = {}  # which -> [CPU microseconds (all the process's threads) per example]


def run(which, python, path, examples, batches, mode):
    out = subprocess.run([python, "-c", PROGRAM, which, path, str(examples), str(batches), mode],
                         capture_output=True, text=True, cwd=os.path.dirname(path),
                         env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    if out.returncode:
        raise SystemExit(f"{which} failed:\n{out.stderr[-2000:]}")
    got = json.loads(out.stdout.strip().splitlines()[-1])
    CPU_US.setdefault(which, []).append(got["cpu_us"])
    return got["examples_per_s"]


def numpy_floor(path):
    """Examples/s of reading the file and gathering every record's floats and label at
    offsets found beforehand (the framing and the Example layout are not decoded)."""
    import numpy as np

    with open(path, "rb") as f:
        data = f.read()
    # The records all have one layout: find the float payload and label once.
    first_len = int.from_bytes(data[:8], "little")
    record = data[12:12 + first_len]
    x_at = record.index(b"\x0a\x80\x02") + 3  # packed float block of 256 bytes
    y_at = record.rindex(b"\x1a\x03\x0a\x01") + 4
    stride = 12 + first_len + 4
    count = len(data) // stride
    best = 0.0
    for _ in range(5):
        start = time.perf_counter()
        buf = np.frombuffer(open(path, "rb").read(), np.uint8)
        base = np.arange(count) * stride + 12
        xs = buf[(base + x_at)[:, None] + np.arange(256)].view("<f4")
        ys = buf[base + y_at].astype(np.int64)
        seconds = time.perf_counter() - start
        assert xs.shape == (count, 64) and ys.shape == (count,)
        best = max(best, count / seconds)
    return best


def rounds(args, measure, floor=None):
    """Alternating flowloom / TF measurements over `args.rounds` rounds: {name: [values]},
    with the per-round ratios under "ratio" and the NumPy floor under "floor"."""
    tf_python = os.environ.get("FLOWLOOM_TF1_PYTHON") or os.environ.get("FLOWLOOM_TF_PYTHON", "")
    got = {"flowloom": [], "tf": [], "ratio": [], "floor": []}
    for _ in range(args.rounds):
        ours = measure("flowloom", sys.executable)
        got["flowloom"].append(ours)
        if tf_python:
            theirs = measure("tf", tf_python)
            got["tf"].append(theirs)
            got["ratio"].append(ours / theirs)
        if floor is not None:
            got["floor"].append(floor())
    return got


def summary(got, unit="examples/s"):
    """`flowloom X, TensorFlow Y, flowloom/TF Rx; NumPy floor F (flowloom/floor Qx)`."""
    med = statistics.median
    line = f"flowloom {med(got['flowloom']):,.0f} {unit}"
    if got["tf"]:
        line += (f", TensorFlow {med(got['tf']):,.0f} {unit}, flowloom/TF throughput "
                 f"{med(got['ratio']):.2f}x (median of {len(got['ratio'])} alternating rounds; "
                 f"per round {', '.join(f'{r:.2f}' for r in got['ratio'])}; target >= 1.0x)")
    else:
        line += " (set FLOWLOOM_TF1_PYTHON or FLOWLOOM_TF_PYTHON to compare with TensorFlow)"
    if got["floor"]:
        line += (f"; NumPy floor {med(got['floor']):,.0f} {unit} (flowloom/floor "
                 f"{med(got['flowloom']) / med(got['floor']):.3f}x)")
    return line


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--parse", choices=["batch", "single"], default="batch")
    parser.add_argument("--examples", type=int, default=20000)
    parser.add_argument("--batches", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.environ["PYTHONPATH"] = root + os.pathsep + os.environ.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "data.tfrecord")
        got = rounds(args, lambda which, python: run(which, python, path, args.examples,
                                                     args.batches, args.parse),
                     lambda: numpy_floor(path))
    which = "parse_example of 128" if args.parse == "batch" else "parse_single_example"
    print(f"queues TFRecord->{which}->shuffle_batch(4 threads): " + summary(got))
    print("CPU time per example (all threads of the process): " + ", ".join(
        f"{w} {statistics.median(v):.2f} us" for w, v in CPU_US.items()))


if __name__ == "__main__":
    main()
