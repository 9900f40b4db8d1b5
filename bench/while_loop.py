"""Control-flow benchmark (issue 6): per-iteration overhead of an empty while_loop.

Runs the same TF1 program (dataflow control flow: `disable_control_flow_v2`) on flowloom and,
when a TensorFlow install is available (`--tf-python PATH`, default $FLOWLOOM_TF_PYTHON),
on real TensorFlow in a subprocess, and prints µs per iteration and the ratio.

The NumPy floor is the same loop written in NumPy (`while np.less(i, n): i = np.add(i, 1)`),
measured in each process, so that the two processes' figures can be normalised by the load
each saw. `--rounds` alternating flowloom/TF rounds; medians are printed.

The loop is `while_loop(lambda i: i < n, lambda i: i + 1, [0])`: per iteration TF runs Merge,
Less (+ its constant), LoopCond, Switch, Identity, Add (+ its constant), NextIteration and a
dead Exit. The per-iteration figure is the slope between two loop lengths, so the fixed
Session.run cost cancels out.

    python3 bench/while_loop.py [--tf-python /path/to/python] [--n 20000]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

PROGRAM = r'''
import json, sys, time
which, n_long, parallel = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if which == "tf":
    import os
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.disable_control_flow_v2()
else:
    import flowloom as tf

n = tf.placeholder(tf.int32, [], name="n")
r = tf.while_loop(lambda i: i < n, lambda i: i + 1, [0], parallel_iterations=parallel)
assert r.op.type == "Exit"
sess = tf.Session()
sess.run(r, {n: 10})

def seconds(iterations, repeat=5):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = sess.run(r, {n: iterations})
        best = min(best, time.perf_counter() - t0)
        assert out == iterations
    return best

def numpy_seconds(iterations, repeat=5):
    import numpy as np
    limit, one = np.array(iterations, np.int32), np.array(1, np.int32)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        i = np.array(0, np.int32)
        while np.less(i, limit):
            i = np.add(i, one)
        best = min(best, time.perf_counter() - t0)
    return best

n_short = n_long // 10
per_iter = (seconds(n_long) - seconds(n_short)) / (n_long - n_short)
floor = (numpy_seconds(n_long) - numpy_seconds(n_short)) / (n_long - n_short)
print(json.dumps({"us_per_iteration": per_iter * 1e6, "run_us_10": seconds(10) * 1e6,
                  "floor_us_per_iteration": floor * 1e6}))
'''


def run(python, which, n, parallel):
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([python, "-c", PROGRAM, which, str(n), str(parallel)],
                         capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", default=os.environ.get("FLOWLOOM_TF_PYTHON", ""))
    parser.add_argument("--n", type=int, default=20000, help="iterations of the long run")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    have_tf = os.path.exists(args.tf_python)
    print(f"median of {args.rounds} alternating rounds")
    print(f"{'':28}{'flowloom':>12}{'tensorflow':>12}{'ratio':>8}{'fl/floor':>10}"
          f"{'tf/floor':>10}{'normalised':>12}")
    for parallel in (10, 1):
        fls, tfs = [], []
        for _ in range(args.rounds):
            fls.append(run(sys.executable, "flowloom", args.n, parallel))
            if have_tf:
                tfs.append(run(args.tf_python, "tf", args.n, parallel))
        for key, label in (("us_per_iteration", "µs/iteration"),
                           ("run_us_10", "run, 10 iterations (µs)")):
            fl = statistics.median(r[key] for r in fls)
            row = f"{label + f' (p={parallel})':28}{fl:12.2f}"
            if tfs:
                tf = statistics.median(r[key] for r in tfs)
                row += f"{tf:12.2f}{fl / tf:8.2f}"
            if key == "us_per_iteration":
                fl_floor = statistics.median(r[key] / r["floor_us_per_iteration"] for r in fls)
                row += f"{fl_floor:10.2f}"
                if tfs:
                    tf_floor = statistics.median(r[key] / r["floor_us_per_iteration"]
                                                 for r in tfs)
                    row += f"{tf_floor:10.2f}{fl_floor / tf_floor:12.2f}"
            print(row)


if __name__ == "__main__":
    main()
