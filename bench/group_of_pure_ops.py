"""Benchmark: 1,000 tiny Add ops fetched through tf.add_n and through tf.group, per op.

The same program runs on flowloom and, in a subprocess, on the TensorFlow named by
FLOWLOOM_TF_PYTHON (compat.v1); the NumPy floor is 1,000 `np.add` calls. Best of 5.

Usage: python3 bench/group_of_pure_ops.py
"""

import json
import os
import subprocess
import sys
import time

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
adds = [tf.add(c, np.float32(i)) for i in range(N)]
fetch = {"add_n": tf.add_n(adds), "group": tf.group(*adds)}
out = {}
with tf.Session() as sess:
    for name, f in fetch.items():
        for _ in range(5):
            sess.run(f)
        best = 1e9
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(20):
                sess.run(f)
            best = min(best, (time.perf_counter() - t) / 20 / N)
        out[name] = best * 1e6
print(json.dumps(out))
"""


def run(which, python):
    out = subprocess.run([python, "-c", PROGRAM, which], capture_output=True, text=True,
                         env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    if out.returncode:
        raise SystemExit(f"{which} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def numpy_floor():
    import numpy as np

    c = np.float32(1.0)
    best = 1e9
    for _ in range(5):
        t = time.perf_counter()
        for i in range(1000):
            np.add(c, np.float32(i))
        best = min(best, (time.perf_counter() - t) / 1000)
    return best * 1e6


def main():
    fl = run("flowloom", sys.executable)
    tf_python = os.environ.get("FLOWLOOM_TF_PYTHON", "")
    tf = run("tf", tf_python) if tf_python else None
    floor = numpy_floor()
    for name in ("add_n", "group"):
        line = f"1,000 Adds via tf.{name}: flowloom {fl[name]:.2f} us/op"
        if tf:
            line += f", TF {tf[name]:.2f} us/op -> {fl[name] / tf[name]:.2f}x TF"
        line += f"; NumPy floor {floor:.2f} us/op -> {fl[name] / floor:.2f}x floor"
        print(line)


if __name__ == "__main__":
    main()
