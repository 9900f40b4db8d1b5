"""Benchmark: does the input pipeline hide behind the training step? (issue 11, program (c))

The CIFAR-10 tutorial's model and training step (conv 5x5x64 -> pool -> lrn -> conv 5x5x64
-> lrn -> pool -> 384 -> 192 -> 10, SGD, batch 64, 24x24 crops), fed two ways in one process:
from its queue (CIFAR-10-format files -> FixedLengthRecordReader -> decode_raw -> random crop,
flip, brightness, contrast, standardization -> shuffle_batch with 2 runner threads), and by
feed_dict with a batch already in memory. Target: the queue-fed step within 10% of the
fed one (queue-fed steps/s >= 0.9x). The CPU seconds per step of the whole process (the
runner threads' included) are reported beside it: their ratio shows what the pipeline
costs even when other work on the machine makes the steps/s ratio noisy. The same program runs on flowloom and, in a subprocess,
on the TensorFlow named by FLOWLOOM_TF1_PYTHON or FLOWLOOM_TF_PYTHON; they alternate.

Each process alternates blocks of queue-fed and fed steps (both graphs built side by side),
so the ratio compares steps under the same load; processes alternate flowloom / TF for
--rounds rounds; figures are medians.

Usage: python3 bench/queue_fed_step.py [--steps N] [--blocks B] [--rounds R]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

PROGRAM = r"""
import json, os, sys, time
import numpy as np
if sys.argv[1] == "tf":
    import tensorflow as _tf
    tf = _tf.compat.v1 if hasattr(_tf, "compat") and not hasattr(_tf, "FIFOQueue") else _tf
    if tf is not _tf:
        tf.disable_v2_behavior()
else:
    import flowloom as tf
data, steps, blocks, batch = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), 64
files = [os.path.join(data, "data_batch_%d.bin" % i) for i in range(1, 3)]
if not os.path.exists(files[-1]):
    rng = np.random.RandomState(0)
    for f in files:
        labels = rng.randint(0, 10, size=(1000, 1)).astype(np.uint8)
        pixels = rng.randint(0, 256, size=(1000, 3072)).astype(np.uint8)
        np.concatenate([labels, pixels], 1).tofile(f)

def inference(images):
    def var(name, shape, stddev):
        return tf.get_variable(name, shape, initializer=tf.truncated_normal_initializer(
            stddev=stddev))
    def bias(name, n, v):
        return tf.get_variable(name, [n], initializer=tf.constant_initializer(v))
    with tf.variable_scope("conv1"):
        conv1 = tf.nn.relu(tf.nn.conv2d(images, var("w", [5, 5, 3, 64], 5e-2), [1, 1, 1, 1],
                                        "SAME") + bias("b", 64, 0.0))
    pool1 = tf.nn.max_pool(conv1, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    norm1 = tf.nn.lrn(pool1, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75)
    with tf.variable_scope("conv2"):
        conv2 = tf.nn.relu(tf.nn.conv2d(norm1, var("w", [5, 5, 64, 64], 5e-2), [1, 1, 1, 1],
                                        "SAME") + bias("b", 64, 0.1))
    norm2 = tf.nn.lrn(conv2, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75)
    pool2 = tf.nn.max_pool(norm2, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    flat = tf.reshape(pool2, [batch, -1])
    with tf.variable_scope("local3"):
        local3 = tf.nn.relu(tf.matmul(flat, var("w", [6 * 6 * 64, 384], 0.04)) +
                            bias("b", 384, 0.1))
    with tf.variable_scope("local4"):
        local4 = tf.nn.relu(tf.matmul(local3, var("w", [384, 192], 0.04)) + bias("b", 192, 0.1))
    with tf.variable_scope("softmax_linear"):
        return tf.matmul(local4, var("w", [192, 10], 1 / 192.0)) + bias("b", 10, 0.0)

def train_op(images, labels):
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.cast(labels, tf.int64), logits=inference(images)))
    return tf.train.GradientDescentOptimizer(0.05).minimize(loss), loss

def queue_inputs():
    queue = tf.train.string_input_producer(files)
    _, value = tf.FixedLengthRecordReader(record_bytes=3073).read(queue)
    record = tf.decode_raw(value, tf.uint8)
    label = tf.cast(tf.strided_slice(record, [0], [1]), tf.int32)
    image = tf.transpose(tf.reshape(tf.strided_slice(record, [1], [3073]), [3, 32, 32]),
                         [1, 2, 0])
    image = tf.random_crop(tf.cast(image, tf.float32), [24, 24, 3])
    image = tf.image.random_flip_left_right(image)
    image = tf.image.random_brightness(image, max_delta=63)
    image = tf.image.random_contrast(image, lower=0.2, upper=1.8)
    image = tf.image.per_image_standardization(image)
    image.set_shape([24, 24, 3])
    label.set_shape([1])
    images, labels = tf.train.shuffle_batch([image, label], batch_size=batch, num_threads=2,
                                            capacity=400 + 3 * batch, min_after_dequeue=400)
    return images, tf.reshape(labels, [batch])

def timed(sess, op, feed, n):
    # steps/s, and the process's CPU seconds per step (every thread: the runners' too)
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(n):
        sess.run(op, feed)
    return n / (time.perf_counter() - start), (time.process_time() - cpu) / n

# Both graphs live side by side; blocks of `steps` queue-fed steps and `steps` fed steps
# alternate `blocks` times, so load drift hits both alike; medians of the blocks.
config = tf.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=2)
gq = tf.Graph()
with gq.as_default():
    images, labels = queue_inputs()
    qstep, _ = train_op(images, labels)
    qsess = tf.Session(config=config)
    qsess.run(tf.global_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(qsess, coord)
    fixed = qsess.run([images, labels])
gf = tf.Graph()
with gf.as_default():
    x = tf.placeholder(tf.float32, [batch, 24, 24, 3])
    y = tf.placeholder(tf.int32, [batch])
    fstep, _ = train_op(x, y)
    fsess = tf.Session(config=config)
    fsess.run(tf.global_variables_initializer())
feed = {x: fixed[0], y: fixed[1]}
for _ in range(3):
    qsess.run(qstep)
    fsess.run(fstep, feed)
queue_rates, feed_rates, queue_cpu, feed_cpu = [], [], [], []
for _ in range(blocks):
    rate, cpu = timed(qsess, qstep, None, steps)
    queue_rates.append(rate)
    queue_cpu.append(cpu)
    rate, cpu = timed(fsess, fstep, feed, steps)
    feed_rates.append(rate)
    feed_cpu.append(cpu)
coord.request_stop()
coord.join(threads, stop_grace_period_secs=10)
qsess.close()
fsess.close()
med = lambda v: sorted(v)[len(v) // 2]
queue_rate, feed_rate = med(queue_rates), med(feed_rates)
ratios = [q / f for q, f in zip(queue_rates, feed_rates)]
# CPU per fed step / CPU per queue-fed step: what the pipeline costs, less swayed by load
cpu_ratios = [f / q for q, f in zip(queue_cpu, feed_cpu)]
print(json.dumps({"queue_steps_per_s": queue_rate, "feed_steps_per_s": feed_rate,
                  "ratio": med(ratios), "cpu_ratio": med(cpu_ratios),
                  "queue_cpu_ms": 1e3 * med(queue_cpu), "feed_cpu_ms": 1e3 * med(feed_cpu)}))
"""


def run(which, python, data, steps, blocks):
    out = subprocess.run([python, "-c", PROGRAM, which, data, str(steps), str(blocks)],
                         capture_output=True, text=True,
                         env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    if out.returncode:
        raise SystemExit(f"{which} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=5, help="steps per block")
    parser.add_argument("--blocks", type=int, default=4,
                        help="alternating queue-fed / fed blocks per process")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    tf_python = os.environ.get("FLOWLOOM_TF1_PYTHON") or os.environ.get("FLOWLOOM_TF_PYTHON", "")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.environ["PYTHONPATH"] = root + os.pathsep + os.environ.get("PYTHONPATH", "")
    got = {}
    with tempfile.TemporaryDirectory() as d:
        for _ in range(args.rounds):
            for which, python in (("flowloom", sys.executable), ("tf", tf_python)):
                if python:
                    got.setdefault(which, []).append(run(which, python, d, args.steps,
                                                         args.blocks))
    med = statistics.median
    for which, runs in got.items():
        q = med(r["queue_steps_per_s"] for r in runs)
        f = med(r["feed_steps_per_s"] for r in runs)
        ratio = med(r["ratio"] for r in runs)
        print(f"{which}: CIFAR-10 step fed by its queue {q:.2f} steps/s, by feed_dict "
              f"{f:.2f} steps/s -> queue/feed {ratio:.2f}x (median of {len(runs)} processes, "
              f"each the median of {args.blocks} alternating blocks; per process "
              f"{', '.join(format(r['ratio'], '.2f') for r in runs)}; "
              "target >= 0.90x)")
        print(f"{which}: CPU per step (all threads) fed by its queue "
              f"{med(r['queue_cpu_ms'] for r in runs):.0f} ms, by feed_dict "
              f"{med(r['feed_cpu_ms'] for r in runs):.0f} ms -> feed/queue "
              f"{med(r['cpu_ratio'] for r in runs):.2f}x (the pipeline's CPU share)")
    if "tf" in got:
        ours = [r["queue_steps_per_s"] for r in got["flowloom"]]
        theirs = [r["queue_steps_per_s"] for r in got["tf"]]
        print(f"flowloom/TF, queue-fed step: "
              f"{med(a / b for a, b in zip(ours, theirs)):.2f}x the steps/s (median of rounds)")
    else:
        print("(set FLOWLOOM_TF1_PYTHON or FLOWLOOM_TF_PYTHON to compare with TensorFlow)")


if __name__ == "__main__":
    main()
