"""Core benchmarks (issue 2): Session.run overhead and graph-construction speed.

Runs the same TF1 program on flowloom and, when a TensorFlow install is available
(`--tf-python PATH`, default $FLOWLOOM_TF_PYTHON), on
real TensorFlow in a subprocess, and prints the figures and their ratios.

    python3 bench/core.py [--tf-python /path/to/python]
"""

import argparse
import json
import os
import subprocess
import sys

PROGRAM = r'''
import json, sys, time
which = sys.argv[1]
if which == "tf":
    import os
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import flowloom as tf

def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        best = min(best, fn())
    return best

# 1. sess.run of the seed graph: assign_add + identity under control_dependencies.
x = tf.Variable(0.0)
x_plus_1 = tf.assign_add(x, 1)
with tf.control_dependencies([x_plus_1]):
    y = tf.identity(x)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
for _ in range(200):
    sess.run(y)
def run_calls(n=2000):
    t0 = time.perf_counter()
    for _ in range(n):
        sess.run(y)
    return (time.perf_counter() - t0) / n
run_us = best_of(run_calls, 5) * 1e6

# 2. graph construction: a chain of 20,000 tf.add.
def build(n=20000):
    g = tf.Graph()
    with g.as_default():
        t = tf.constant(0.0)
        one = tf.constant(1.0)
        t0 = time.perf_counter()
        for _ in range(n):
            t = tf.add(t, one)
        return (time.perf_counter() - t0) / n
build_us = best_of(build, 2) * 1e6
print(json.dumps({"run_us": run_us, "build_us_per_op": build_us}))
'''


def measure(python, which):
    out = subprocess.run([python, "-c", PROGRAM, which], capture_output=True, text=True,
                         check=True, env=dict(os.environ, PYTHONPATH=os.getcwd()))
    return json.loads(out.stdout.strip().splitlines()[-1])


def find_tf_python(explicit):
    for cand in [explicit or os.environ.get("FLOWLOOM_TF_PYTHON")]:
        if cand and os.path.exists(cand):
            ok = subprocess.run([cand, "-c", "import tensorflow"], capture_output=True)
            if ok.returncode == 0:
                return cand
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tf-python")
    args = ap.parse_args()
    fl = measure(sys.executable, "flowloom")
    tfp = find_tf_python(args.tf_python)
    tf = measure(tfp, "tf") if tfp else None
    print(f"{'benchmark':<34}{'flowloom':>12}{'TensorFlow':>12}{'ratio':>8}")
    for key, label in (("run_us", "sess.run(seed graph), us/call"),
                       ("build_us_per_op", "graph construction, us/op")):
        t = f"{tf[key]:12.1f}" if tf else f"{'n/a':>12}"
        r = f"{fl[key] / tf[key]:8.3f}" if tf else f"{'':>8}"
        print(f"{label:<34}{fl[key]:12.1f}{t}{r}")
    if tf:
        print(f"\nsess.run: flowloom takes {fl['run_us'] / tf['run_us']:.2f}x TensorFlow's time "
              f"(target <= 0.5x); graph construction is {tf['build_us_per_op'] / fl['build_us_per_op']:.1f}x "
              "faster (target >= 20x)")


if __name__ == "__main__":
    main()
