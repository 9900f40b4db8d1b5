"""One training step of a small CNN: flowloom vs real TensorFlow vs plain NumPy.

Input 24x24x3, batch 64; two 5x5x64 conv + ReLU + 3x3/2 SAME max pool; dense 384-192-10;
softmax cross-entropy; SGD. The same program runs under flowloom here and under TensorFlow
(the Python named by FLOWLOOM_TF_PYTHON, two threads) in a subprocess; the NumPy version is the floor: the
same math hand-written on the same kernels, with no graph or session around it.

    python3 bench/cnn_step.py [--steps N] [--no-tf] [--threads 1 --cpu-time]

On a shared machine wall-clock ratios swing with the neighbours' load; `--threads 1
--cpu-time` runs everything on one thread (BLAS, flowloom's kernel workers, TF's pools) and compares
process CPU time per step, which contention barely moves.

The floor calls the same nn_kernels functions flowloom's ops run, so it uses the same
algorithms: conv1 (3 input channels) as one im2col matmul, conv2 and its two gradients as
Winograd F(4x4, 5x5) (the input gradient is the forward Winograd convolution of the gradient
with the flipped filter), max pooling over cache-sized image blocks. It runs in this process
after flowloom's Session, so it also gets the Session's malloc tuning (runtime/host_memory.py),
and like a Session run it keeps BLAS on one thread while the kernels use their own workers
(ops/nn/kernel_threads.py). Its dense matmuls and elementwise steps (bias, ReLU, masks) are
plain single-threaded NumPy, so with two threads flowloom (which splits those over its
workers) can come out slightly under the floor. bench/cnn_ops.py gives per-op times.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TF_PYTHON = os.environ.get("FLOWLOOM_TF_PYTHON", "")  # the reference TensorFlow, if any
BATCH, SIZE = 64, 24


def build(tf, lr=0.05):
    """The model in TF1 API calls; `tf` is flowloom or tensorflow.compat.v1."""
    x = tf.placeholder(tf.float32, [BATCH, SIZE, SIZE, 3])
    y = tf.placeholder(tf.int32, [BATCH])

    def var(shape, stddev=0.05):
        return tf.Variable(tf.truncated_normal(shape, stddev=stddev, seed=1))

    params = []

    def conv(h, cin):
        w, b = var([5, 5, cin, 64]), var([64])
        params.extend([w, b])
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w, [1, 1, 1, 1], "SAME"), b))
        return tf.nn.max_pool(h, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")

    def dense(h, n_in, n_out, relu=True):
        w, b = var([n_in, n_out]), var([n_out])
        params.extend([w, b])
        h = tf.matmul(h, w) + b
        return tf.nn.relu(h) if relu else h

    h = conv(conv(x, 3), 64)
    h = tf.reshape(h, [BATCH, -1])
    h = dense(dense(h, 6 * 6 * 64, 384), 384, 192)
    logits = dense(h, 192, 10, relu=False)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                         logits=logits))
    if hasattr(tf, "train") and hasattr(tf.train, "GradientDescentOptimizer"):
        train = tf.train.GradientDescentOptimizer(lr).minimize(loss)
    else:  # until flowloom's optimizers land: the same update by hand
        grads = tf.gradients(loss, params)
        train = tf.group(*[tf.assign_sub(p, lr * g) for p, g in zip(params, grads)])
    return x, y, loss, train


def feeds():
    rng = np.random.default_rng(0)
    return (rng.random((BATCH, SIZE, SIZE, 3), dtype=np.float32),
            rng.integers(0, 10, BATCH).astype(np.int32))


def time_graph(tf, steps, config=None):
    x, y, loss, train = build(tf)
    xv, yv = feeds()
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train, {x: xv, y: yv})
        per_step = _median_step(lambda: sess.run(train, {x: xv, y: yv}), steps)
        return per_step, float(sess.run(loss, {x: xv, y: yv}))


CLOCK = time.perf_counter


def _median_step(step, steps):
    """Median seconds per step: robust to other processes sharing the cores."""
    times = []
    for _ in range(steps):
        t = CLOCK()
        step()
        times.append(CLOCK() - t)
    return float(np.median(times))


def time_numpy(steps):
    """The floor: forward and backward by hand on flowloom's NumPy kernels."""
    from flowloom.ops.nn import nn_kernels as K

    rng = np.random.default_rng(1)
    shapes = [(5, 5, 3, 64), (64,), (5, 5, 64, 64), (64,), (2304, 384), (384,), (384, 192),
              (192,), (192, 10), (10,)]
    p = [(rng.standard_normal(s) * 0.05).astype(np.float32) for s in shapes]
    xv, yv = feeds()
    one, pool_k, pool_s = (1, 1), (3, 3), (2, 2)

    def step():
        c1 = np.maximum(K.conv2d(xv, p[0], one, one, "SAME") + p[1], 0)
        p1 = K.max_pool(c1, pool_k, pool_s, "SAME")
        c2 = np.maximum(K.conv2d(p1, p[2], one, one, "SAME") + p[3], 0)
        p2 = K.max_pool(c2, pool_k, pool_s, "SAME")
        f = p2.reshape(BATCH, -1)
        h1 = np.maximum(f @ p[4] + p[5], 0)
        h2 = np.maximum(h1 @ p[6] + p[7], 0)
        z = h2 @ p[8] + p[9]
        e = np.exp(z - z.max(1, keepdims=True))
        dz = e / e.sum(1, keepdims=True)
        dz[np.arange(BATCH), yv] -= 1
        dz /= BATCH
        g = [None] * 10
        g[8], g[9] = h2.T @ dz, dz.sum(0)
        dh2 = (dz @ p[8].T) * (h2 > 0)
        g[6], g[7] = h1.T @ dh2, dh2.sum(0)
        dh1 = (dh2 @ p[6].T) * (h1 > 0)
        g[4], g[5] = f.T @ dh1, dh1.sum(0)
        dp2 = (dh1 @ p[4].T).reshape(p2.shape)
        dc2 = K.max_pool_grad(c2, p2, dp2, pool_k, pool_s, "SAME") * (c2 > 0)
        g[2] = K.conv2d_backprop_filter(p1, p[2].shape, dc2, one, one, "SAME")
        g[3] = dc2.sum((0, 1, 2))
        dp1 = K.conv2d_backprop_input(p1.shape, p[2], dc2, one, one, "SAME")
        dc1 = K.max_pool_grad(c1, p1, dp1, pool_k, pool_s, "SAME") * (c1 > 0)
        g[0] = K.conv2d_backprop_filter(xv, p[0].shape, dc1, one, one, "SAME")
        g[1] = dc1.sum((0, 1, 2))
        for a, b in zip(p, g):
            a -= 0.05 * b

    from flowloom.ops.nn import kernel_threads
    from flowloom.runtime import blas_threads

    # The same threading as a flowloom run: the kernels' own pool, BLAS on one thread.
    with blas_threads.at_most(1 if kernel_threads.POOL is not None else 0):
        for _ in range(3):
            step()
        return _median_step(step, steps)


def run_tf(steps, threads, cpu_time):
    code = ("import os, sys, json, time; os.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'\n"
            f"sys.path.insert(0, {os.path.join(ROOT, 'bench')!r})\n"
            "import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()\n"
            "import cnn_step\n"
            f"cnn_step.CLOCK = time.{'process_time' if cpu_time else 'perf_counter'}\n"
            f"cfg = tf.ConfigProto(intra_op_parallelism_threads={threads}, "
            f"inter_op_parallelism_threads={threads})\n"
            f"t, loss = cnn_step.time_graph(tf, {steps}, cfg)\n"
            "print(json.dumps({'step_s': t, 'loss': loss}))\n")
    out = subprocess.run([TF_PYTHON, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--no-tf", action="store_true")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cpu-time", action="store_true", help="process CPU time, not wall")
    args = ap.parse_args()
    if args.threads == 1 and os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        # BLAS reads this at import: restart with it set.
        os.environ.update(OPENBLAS_NUM_THREADS="1", FLOWLOOM_NN_THREADS="1")
        os.execv(sys.executable, [sys.executable] + sys.argv)
    global CLOCK
    CLOCK = time.process_time if args.cpu_time else time.perf_counter
    sys.path.insert(0, ROOT)
    import flowloom as tf

    fl, fl_loss = time_graph(tf, args.steps)
    floor = time_numpy(args.steps)
    print(f"median {'CPU' if args.cpu_time else 'wall'} ms/step over {args.steps} steps, "
          f"{args.threads} thread(s); load average {os.getloadavg()[0]:.2f} on "
          f"{os.cpu_count()} cores")
    print(f"flowloom  {fl * 1e3:7.1f} ms/step (loss {fl_loss:.4f})")
    print(f"numpy     {floor * 1e3:7.1f} ms/step  flowloom/numpy = {fl / floor:.2f}x")
    if not args.no_tf and os.path.exists(TF_PYTHON):
        ref = run_tf(args.steps, args.threads, args.cpu_time)
        print(f"tf        {ref['step_s'] * 1e3:7.1f} ms/step (loss {ref['loss']:.4f})  "
              f"flowloom/tf = {fl / ref['step_s']:.2f}x")


if __name__ == "__main__":
    main()
