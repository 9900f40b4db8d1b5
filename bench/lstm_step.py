"""RNN benchmark (issue 6): one training step of an LSTM language-model layer.

The same TF1 program runs on flowloom and, when a TensorFlow install is available
(`--tf-python PATH`, default $FLOWLOOM_TF_PYTHON), on real TensorFlow in a subprocess
(TF1 while loops: `disable_control_flow_v2`, legacy RNN cells). The step: BasicLSTMCell
(hidden 256) over a [batch 32, time 50, depth 64] input with `tf.nn.dynamic_rnn`, a softmax
layer over 64 classes at every step, `sparse_softmax_cross_entropy_with_logits`, and Adam
(or SGD with `--optimizer sgd`). `--intra-op N` gives both sessions
`ConfigProto(intra_op_parallelism_threads=N)`: on a machine whose cores are shared with other
work, N=1 avoids multi-threaded BLAS stalls (see runtime/blas_threads.py). Prints milliseconds per step (best of the timed steps) and
the ratio; `--profile` prints flowloom's hottest functions (cProfile).

    python3 bench/lstm_step.py [--tf-python PATH] [--steps 10] [--optimizer adam|sgd]
"""

import argparse
import json
import os
import subprocess
import sys

PROGRAM = r'''
import json, sys, time
import numpy as np
which, steps, optimizer, hidden, time_steps, batch, intra_op = (
    sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]),
    int(sys.argv[6]), int(sys.argv[7]))
profile = len(sys.argv) > 8 and sys.argv[8] == "profile"
if which == "tf":
    import os
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.disable_control_flow_v2()
else:
    import flowloom as tf

depth, classes = 64, 64
tf.set_random_seed(0)
x = tf.placeholder(tf.float32, [batch, time_steps, depth], name="x")
y = tf.placeholder(tf.int32, [batch, time_steps], name="y")
cell = tf.nn.rnn_cell.BasicLSTMCell(hidden)
outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
logits = tf.layers.dense(tf.reshape(outputs, [-1, hidden]), classes)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
    labels=tf.reshape(y, [-1]), logits=logits))
opt = tf.train.AdamOptimizer(1e-3) if optimizer == "adam" else \
    tf.train.GradientDescentOptimizer(0.1)
train = opt.minimize(loss)
rng = np.random.default_rng(0)
feed = {x: rng.standard_normal((batch, time_steps, depth)).astype(np.float32),
        y: rng.integers(0, classes, (batch, time_steps)).astype(np.int32)}
sess = tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=intra_op))
sess.run(tf.global_variables_initializer())
for _ in range(2):
    sess.run(train, feed)
times = []
if profile:
    import cProfile, pstats
    pr = cProfile.Profile()
    pr.enable()
for _ in range(steps):
    t0 = time.perf_counter()
    l, _ = sess.run([loss, train], feed)
    times.append(time.perf_counter() - t0)
if profile:
    pr.disable()
    pstats.Stats(pr, stream=sys.stderr).sort_stats("tottime").print_stats(25)
print(json.dumps({"ms_per_step": min(times) * 1e3, "median_ms": sorted(times)[len(times) // 2] * 1e3,
                  "loss": float(l)}))
'''


def run(python, which, args, profile=False):
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    argv = [python, "-c", PROGRAM, which, str(args.steps), args.optimizer, str(args.hidden),
            str(args.time), str(args.batch), str(args.intra_op)] + \
        (["profile"] if profile else [])
    out = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{which} failed:\n{out.stderr[-3000:]}")
    if profile:
        print(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", default=os.environ.get("FLOWLOOM_TF_PYTHON", ""))
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--optimizer", choices=["adam", "sgd"], default="adam")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--time", type=int, default=50)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--intra-op", type=int, default=0,
                        help="ConfigProto.intra_op_parallelism_threads for both (0: default)")
    parser.add_argument("--profile", action="store_true", help="cProfile flowloom's steps")
    args = parser.parse_args()
    fl = run(sys.executable, "flowloom", args, profile=args.profile)
    tf = run(args.tf_python, "tf", args) if os.path.exists(args.tf_python) else None
    print(f"LSTM step (hidden {args.hidden}, time {args.time}, batch {args.batch}, "
          f"{args.optimizer}, intra_op_parallelism_threads={args.intra_op})")
    print(f"{'':22}{'flowloom':>12}{'tensorflow':>12}{'ratio':>8}")
    for key, label in (("ms_per_step", "ms/step (best)"), ("median_ms", "ms/step (median)")):
        row = f"{label:22}{fl[key]:12.1f}"
        if tf:
            row += f"{tf[key]:12.1f}{fl[key] / tf[key]:8.2f}"
        print(row)


if __name__ == "__main__":
    main()
