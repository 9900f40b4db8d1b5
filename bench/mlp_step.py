"""Benchmark: one SGD training step of a 784-512-512-10 MLP, batch 128.

Prints ms/step for flowloom, for real TensorFlow (the same program run by
the Python named by FLOWLOOM_TF_PYTHON in a subprocess, when set) and for the same math written
directly in NumPy (forward + backward + update: the floor), and the ratios.

The loss is sparse softmax cross-entropy (tf.nn.sparse_softmax_cross_entropy_with_logits)
when flowloom has it; otherwise (or with --dense-xent) a log-softmax built from
reduce_max/exp/reduce_sum/log with one-hot labels, in both frameworks.

Each figure is the best of --repeats bursts of --steps steps (the machine may be shared).
--threads N limits BLAS (flowloom, NumPy) and TF's intra-op pool to N threads.

Usage: python3 bench/mlp_step.py [--steps N] [--repeats R] [--threads N] [--dense-xent]
                                 [--no-tf]
"""

import argparse
import json
import os
import subprocess
import sys
import time


def _set_threads_from_argv():
    # BLAS reads its thread count when numpy is imported: set it before that.
    if "--threads" in sys.argv:
        n = sys.argv[sys.argv.index("--threads") + 1]
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = n


_set_threads_from_argv()
import numpy as np

BATCH, SIZES, LR = 128, (784, 512, 512, 10), 0.1
TF_PYTHON = os.environ.get("FLOWLOOM_TF_PYTHON", "")  # the reference TensorFlow, if any


def _params(seed=0):
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(SIZES[:-1], SIZES[1:]):
        limit = np.sqrt(6.0 / (n_in + n_out))
        params.append(rng.uniform(-limit, limit, (n_in, n_out)).astype(np.float32))
        params.append(np.zeros(n_out, dtype=np.float32))
    return params


def _data(seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    labels = rng.integers(0, SIZES[-1], size=BATCH).astype(np.int32)
    return x, labels


def _best_ms(run_steps, steps, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        run_steps(steps)
        best = min(best, (time.perf_counter() - t0) / steps * 1e3)
    return best


def build_and_time(tf, steps, sparse_xent, repeats=1, config=None):
    """Builds the training step with the TF1 API of module `tf`; returns (ms/step, loss)."""
    run_steps, final_loss, close = build_step(tf, sparse_xent, config)
    ms = _best_ms(run_steps, steps, repeats)
    loss = final_loss()
    close()
    return ms, loss


def build_step(tf, sparse_xent, config=None):
    """The training step of module `tf`: (run_steps(n), final_loss(), close())."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [BATCH, SIZES[0]], name="x")
        params = [tf.Variable(p) for p in _params()]
        h = x
        for i in range(0, len(params), 2):
            h = tf.matmul(h, params[i]) + params[i + 1]
            if i + 2 < len(params):
                h = tf.nn.relu(h)
        logits = h
        if sparse_xent:
            labels = tf.placeholder(tf.int32, [BATCH], name="labels")
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=logits))
        else:
            labels = tf.placeholder(tf.float32, [BATCH, SIZES[-1]], name="labels")
            shifted = logits - tf.stop_gradient(tf.reduce_max(logits, axis=1, keepdims=True))
            log_probs = shifted - tf.log(tf.reduce_sum(tf.exp(shifted), axis=1, keepdims=True))
            loss = -tf.reduce_mean(tf.reduce_sum(labels * log_probs, axis=1))
        train_op = tf.train.GradientDescentOptimizer(LR).minimize(loss)
        x_value, label_values = _data()
        if not sparse_xent:
            label_values = np.eye(SIZES[-1], dtype=np.float32)[label_values]
        feed = {x: x_value, labels: label_values}
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=graph, config=config)
    sess.run(init)
    for _ in range(5):
        sess.run(train_op, feed)

    def run_steps(n):
        for _ in range(n):
            sess.run(train_op, feed)
    return run_steps, lambda: float(sess.run(loss, feed)), sess.close


def numpy_step():
    """The same training step written directly in NumPy: the floor for flowloom."""
    params = _params()
    x, labels = _data()
    onehot = np.eye(SIZES[-1], dtype=np.float32)[labels]

    def step():
        w1, b1, w2, b2, w3, b3 = params
        a1 = x @ w1 + b1
        h1 = np.maximum(a1, 0)
        a2 = h1 @ w2 + b2
        h2 = np.maximum(a2, 0)
        logits = h2 @ w3 + b3
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        probs = e / e.sum(axis=1, keepdims=True)
        d_logits = (probs - onehot) / np.float32(BATCH)
        d_w3 = h2.T @ d_logits
        d_b3 = d_logits.sum(axis=0)
        d_h2 = d_logits @ w3.T
        d_h2 *= a2 > 0
        d_w2 = h1.T @ d_h2
        d_b2 = d_h2.sum(axis=0)
        d_h1 = d_h2 @ w2.T
        d_h1 *= a1 > 0
        d_w1 = x.T @ d_h1
        d_b1 = d_h1.sum(axis=0)
        for p, g in zip(params, (d_w1, d_b1, d_w2, d_b2, d_w3, d_b3)):
            p -= np.float32(LR) * g

    for _ in range(5):
        step()

    def run_steps(n):
        for _ in range(n):
            step()
    return run_steps


def _tf_in_subprocess(steps, sparse_xent, repeats, threads):
    if not os.path.exists(TF_PYTHON):
        return None
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    cmd = [TF_PYTHON, os.path.abspath(__file__), "--as-tf", "--steps", str(steps),
           "--repeats", str(repeats)]
    if threads:
        cmd += ["--threads", str(threads)]
    if not sparse_xent:
        cmd.append("--dense-xent")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--dense-xent", action="store_true")
    parser.add_argument("--no-tf", action="store_true")
    parser.add_argument("--as-tf", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.as_tf:
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
        config = None
        if args.threads:
            config = tf.ConfigProto(intra_op_parallelism_threads=args.threads,
                                    inter_op_parallelism_threads=1)
        ms, loss = build_and_time(tf, args.steps, not args.dense_xent, args.repeats, config)
        print(json.dumps({"ms": ms, "loss": loss}))
        return
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import flowloom as tf

    sparse = not args.dense_xent and hasattr(tf.nn, "sparse_softmax_cross_entropy_with_logits")
    print(f"MLP {'-'.join(map(str, SIZES))}, batch {BATCH}, SGD; loss: "
          f"{'sparse softmax cross-entropy' if sparse else 'log-softmax from exp/sum, one-hot labels'}")
    # Interleave bursts of the two so that both see the same machine load; keep the best.
    floor_run = numpy_step()
    flowloom_run, flowloom_loss, close = build_step(tf, sparse)
    floor_ms = fl_ms = float("inf")
    for _ in range(args.repeats):
        floor_ms = min(floor_ms, _best_ms(floor_run, args.steps, 1))
        fl_ms = min(fl_ms, _best_ms(flowloom_run, args.steps, 1))
    fl_loss = flowloom_loss()
    close()
    print(f"threads     : {args.threads or 'default'}; best of {args.repeats} x {args.steps} steps")
    print(f"numpy floor : {floor_ms:8.2f} ms/step")
    print(f"flowloom    : {fl_ms:8.2f} ms/step  (final loss {fl_loss:.5f})"
          f"  flowloom/numpy = {fl_ms / floor_ms:.2f}x")
    if not args.no_tf:
        result = _tf_in_subprocess(args.steps, sparse, args.repeats, args.threads)
        if result is None:
            print("tensorflow  : not available")
        else:
            print(f"tensorflow  : {result['ms']:8.2f} ms/step  (loss {result['loss']:.5f})"
                  f"  flowloom/tf = {fl_ms / result['ms']:.2f}x")


if __name__ == "__main__":
    main()
