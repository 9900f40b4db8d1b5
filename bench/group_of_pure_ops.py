"""Benchmark: the executor's per-op cost, with 1,000 tiny Add ops, per op.

Four graphs of 1,000 `Add`s, each fetched through `tf.add_n` and through `tf.group`:

- `fed_add_n`, `fed_group`: every Add reads a fed placeholder, so nothing can be folded and
  every op runs each step (the executor's own cost per op);
- `add_n`, `group`: every Add reads constants (both TF and flowloom fold them or prune them).

The same program runs on flowloom and, in a subprocess, on the TensorFlow named by
FLOWLOOM_TF_PYTHON (compat.v1), in alternating processes, `--rounds` times; each figure is
the median over rounds of each process's best of 5. The NumPy floor is the same math written
directly in NumPy (1,000 `np.add` calls and their sum), measured in each process: on a shared
machine the load differs between the two processes, so the ratio of the two processes'
floor ratios ("normalised") is the steadier comparison.

Usage: python3 bench/group_of_pure_ops.py [--rounds 3]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

PROGRAM = r"""
import json, sys, time
import numpy as np
if sys.argv[1] == "tf":
    import tensorflow as _tf
    tf = _tf.compat.v1
    tf.disable_v2_behavior()
else:
    import flowloom as tf
N = 1000
c = tf.constant(np.float32(1.0))
x = tf.placeholder(tf.float32, [])
adds = [tf.add(c, np.float32(i)) for i in range(N)]
fed = [tf.add(x, np.float32(i)) for i in range(N)]
fetch = {"add_n": tf.add_n(adds), "group": tf.group(*adds),
         "fed_add_n": tf.add_n(fed), "fed_group": tf.group(*fed)}
feed = {x: np.float32(1.0)}


def best_of(fn):
    for _ in range(5):
        fn()
    best = 1e9
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(20):
            fn()
        best = min(best, (time.perf_counter() - t) / 20 / N)
    return best * 1e6


out = {}
with tf.Session() as sess:
    for name, f in fetch.items():
        out[name] = best_of(lambda: sess.run(f, feed))
xv = np.array(np.float32(1.0))
consts = [np.array(np.float32(i)) for i in range(N)]


def floor():
    vals = [np.add(xv, k) for k in consts]
    s = vals[0].copy()
    for v in vals[1:]:
        s += v
    return s


out["floor_add_n"] = best_of(floor)
out["floor_group"] = best_of(lambda: [np.add(xv, k) for k in consts])
print(json.dumps(out))
"""

ROWS = (("fed_add_n", "1,000 Adds of a fed value via tf.add_n", "floor_add_n"),
        ("fed_group", "1,000 Adds of a fed value via tf.group", "floor_group"),
        ("add_n", "1,000 Adds of constants via tf.add_n", None),
        ("group", "1,000 Adds of constants via tf.group", None))


def run(which, python):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([python, "-c", PROGRAM, which], capture_output=True, text=True,
                         env=env)
    if out.returncode:
        raise SystemExit(f"{which} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    tf_python = os.environ.get("FLOWLOOM_TF_PYTHON", "")
    fls, tfs = [], []
    for _ in range(args.rounds):
        fls.append(run("flowloom", sys.executable))
        if tf_python:
            tfs.append(run("tf", tf_python))

    def median(runs, key):
        return statistics.median(r[key] for r in runs)

    print(f"median of {args.rounds} alternating rounds, us/op")
    for key, label, floor_key in ROWS:
        fl = median(fls, key)
        line = f"{label}: flowloom {fl:.2f}"
        if tfs:
            tf = median(tfs, key)
            line += f", TF {tf:.2f} -> {fl / tf:.2f}x TF"
        if floor_key:
            fl_floor = statistics.median(r[key] / r[floor_key] for r in fls)
            line += f"; {fl_floor:.2f}x the NumPy floor"
            if tfs:
                tf_floor = statistics.median(r[key] / r[floor_key] for r in tfs)
                line += f" (TF {tf_floor:.2f}x) -> normalised {fl_floor / tf_floor:.2f}x TF"
        print(line)


if __name__ == "__main__":
    main()
