"""Multi-tower training on two CPU devices vs one, and the CNN step's peak memory vs TF.

The CIFAR-10 multi-GPU pattern: variables on /cpu:0, tower i on /cpu:i (a CIFAR-like CNN:
two 5x5x64 conv + ReLU layers, the second with stride 2 in place of pooling, dense 384 and
10), the towers' gradients averaged on /cpu:0 and applied with assign_sub. The same graph
runs with `device_count={'CPU': 2}` (towers concurrently on two devices) and with one device
(soft placement puts everything on CPU:0), in this process. Without `tf.gradients` (before
the gradients branch lands) it times the forward pass and says so.

Memory: a fresh process builds the graph and runs three steps on one device; its peak RSS
is compared with TensorFlow's for the same program (the Python named by FLOWLOOM_TF_PYTHON, if set),
and tracemalloc gives the peak of NumPy allocations during one flowloom step.

    python3 bench/devices.py [--steps 5] [--batch 32] [--no-tf]
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TF_PYTHON = os.environ.get("FLOWLOOM_TF_PYTHON", "")  # the reference TensorFlow, if any
SIZE = 24


def build(tf, batch, num_towers=2, lr=0.01, tower_device="/cpu:%d"):
    """The multi-tower step in TF1 calls (`tf` is flowloom or tensorflow.compat.v1); tower
    i runs on `tower_device % i`, the variables and the update on /cpu:0.

    Returns (feeds, loss, step): `step` trains when gradients exist, else it is the loss.
    """
    import numpy as np

    def variable_on_cpu(name, shape, stddev):
        with tf.device("/cpu:0"):
            init = tf.truncated_normal_initializer(stddev=stddev, seed=1) if stddev else \
                tf.constant_initializer(0.1)
            return tf.get_variable(name, shape, initializer=init)

    def tower(images, labels):
        w1 = variable_on_cpu("conv1/weights", [5, 5, 3, 64], 0.05)
        b1 = variable_on_cpu("conv1/biases", [64], None)
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(images, w1, [1, 1, 1, 1], "SAME"), b1))
        w2 = variable_on_cpu("conv2/weights", [5, 5, 64, 64], 0.05)
        b2 = variable_on_cpu("conv2/biases", [64], None)
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w2, [1, 2, 2, 1], "SAME"), b2))
        h = tf.reshape(h, [batch, 12 * 12 * 64])
        w3 = variable_on_cpu("fc1/weights", [12 * 12 * 64, 384], 0.04)
        h = tf.nn.relu(tf.matmul(h, w3))
        w4 = variable_on_cpu("fc2/weights", [384, 10], 0.04)
        logits = tf.matmul(h, w4)
        loss = tf.reduce_mean(tf.square(logits - labels))
        return loss, [w1, b1, w2, b2, w3, w4]

    rng = np.random.RandomState(0)
    feeds = {}
    losses, tower_grads = [], []
    has_grads = hasattr(tf, "gradients")
    with tf.variable_scope(tf.get_variable_scope()):
        for i in range(num_towers):
            with tf.device("/cpu:0"):
                images = tf.placeholder(tf.float32, [batch, SIZE, SIZE, 3])
                labels = tf.placeholder(tf.float32, [batch, 10])
            feeds[images] = rng.standard_normal([batch, SIZE, SIZE, 3]).astype(np.float32)
            feeds[labels] = rng.standard_normal([batch, 10]).astype(np.float32)
            with tf.device(tower_device % i), tf.name_scope("tower_%d" % i):
                loss, params = tower(images, labels)
                tf.get_variable_scope().reuse_variables()
                losses.append(loss)
                if has_grads:
                    tower_grads.append(tf.gradients(loss, params))
    with tf.device("/cpu:0"):
        total = tf.add_n(losses) / float(num_towers)
        if not has_grads:
            return feeds, total, total, False
        updates = []
        for k, p in enumerate(params):
            g = tf.add_n([grads[k] for grads in tower_grads]) / float(num_towers)
            updates.append(tf.assign_sub(p, lr * g))
        step = tf.group(*updates)
    return feeds, total, step, True


def _session(tf, cpus, batch):
    graph = tf.Graph()
    with graph.as_default():
        feeds, loss, step, trains = build(tf, batch)
        init = tf.global_variables_initializer()
    config = tf.ConfigProto(device_count={"CPU": cpus}, allow_soft_placement=True)
    sess = tf.Session(graph=graph, config=config)
    sess.run(init)
    sess.run(step, feeds)  # compile the plan
    return sess, feeds, loss, step, trains


def time_steps(tf, batch, steps):
    """Median step time on one device (default BLAS threads, and one BLAS thread) and on
    two devices; the configurations alternate step by step so that load from other
    processes on the machine affects them alike."""
    from flowloom.runtime import blas_threads

    runs = {"one": _session(tf, 1, batch), "one_1blas": _session(tf, 1, batch),
            "two": _session(tf, 2, batch)}
    times = {k: [] for k in runs}
    for _ in range(steps):
        for key, (sess, feeds, _, step, _) in runs.items():
            ctx = blas_threads.shared_between(os.cpu_count() or 1) if key == "one_1blas" \
                else _nothing()
            with ctx:
                t0 = time.perf_counter()
                sess.run(step, feeds)
                times[key].append(time.perf_counter() - t0)
    result = {}
    for key, (sess, feeds, loss, _, trains) in runs.items():
        t = sorted(times[key])
        result[key] = (t[len(t) // 2], float(sess.run(loss, feeds)), trains)
        sess.close()
    return result


class _nothing:  # noqa: N801 - a null context manager
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


MEMORY_PROGRAM = r'''
import json, sys, time, tracemalloc
sys.path.insert(0, sys.argv[3])
which, batch, trace = sys.argv[1], int(sys.argv[2]), sys.argv[4] == "trace"
if which == "tf":
    import os
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import flowloom as tf
from bench.devices import build
feeds, loss, step, trains = build(tf, batch)
config = tf.ConfigProto(device_count={"CPU": 1}, allow_soft_placement=True,
                        inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    sess.run(step, feeds)
    traced = None
    if trace:  # tracemalloc's own bookkeeping inflates RSS: traced runs report no RSS
        tracemalloc.start()
        tracemalloc.reset_peak()
        sess.run(step, feeds)
        traced = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    for _ in range(2):
        sess.run(step, feeds)
# VmHWM, not ru_maxrss: Linux carries the parent's high-water mark into ru_maxrss over exec.
hwm_kib = int([l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")][0])
print(json.dumps({"rss_mib": hwm_kib / 1024,
                  "step_peak_mib": None if traced is None else traced / 2**20,
                  "trains": trains}))
'''


def peak_memory(which, python, batch, trace=False):
    out = subprocess.run([python, "-c", MEMORY_PROGRAM, which, str(batch), ROOT,
                          "trace" if trace else "rss"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--batch", type=int, default=32, help="images per tower")
    parser.add_argument("--no-tf", action="store_true", help="skip TensorFlow's memory run")
    args = parser.parse_args()
    sys.path.insert(0, ROOT)
    import flowloom as tf

    r = time_steps(tf, args.batch, args.steps)
    (one, loss1, trains), (one_1, _, _), (two, loss2, _) = r["one"], r["one_1blas"], r["two"]
    what = "training step" if trains else "forward pass (no tf.gradients yet)"
    print(f"multi-tower {what}, 2 towers x batch {args.batch}, median of {args.steps} "
          "(configurations interleaved):")
    print(f"  one CPU device              : {one * 1e3:8.1f} ms   (loss after: {loss1:.6f})")
    print(f"  one CPU device, 1 BLAS thread: {one_1 * 1e3:7.1f} ms")
    print(f"  two CPU devices             : {two * 1e3:8.1f} ms   (loss after: {loss2:.6f})")
    print(f"  speed-up from concurrent devices: {one / two:.2f}x (vs one device, default BLAS), "
          f"{one_1 / two:.2f}x (vs one BLAS thread) on {os.cpu_count()} cores")
    mem = peak_memory("flowloom", sys.executable, args.batch)
    mem["step_peak_mib"] = peak_memory("flowloom", sys.executable, args.batch,
                                       trace=True)["step_peak_mib"]
    print(f"CNN step peak memory (one device, batch {args.batch} x 2 towers):")
    print(f"  flowloom: peak RSS {mem['rss_mib']:.0f} MiB; NumPy allocations during one step "
          f"{mem['step_peak_mib']:.0f} MiB")
    if not args.no_tf and os.path.exists(TF_PYTHON):
        tf_mem = peak_memory("tf", TF_PYTHON, args.batch)
        print(f"  TensorFlow: peak RSS {tf_mem['rss_mib']:.0f} MiB; flowloom/TF = "
              f"{mem['rss_mib'] / tf_mem['rss_mib']:.2f}")
    else:
        print("  TensorFlow: not run (reference figure for the CNN step here: 787 MiB)")


if __name__ == "__main__":
    main()
