"""What `flowloom lint` adds to a program's run time: a 2,000-op script, linted and not.

The script builds 200 scoped dense layers (about 2,000 ops with their variables and
initializers), initializes them and runs the stack 20 times. Each variant runs in its own
process, alternating, best of 5; the figure is linted time / plain time (target < 1.2).
"""

import os
import subprocess
import sys
import tempfile
import time

SCRIPT = """
import tensorflow as tf
x = tf.placeholder(tf.float32, [8, 16])
h = x
for i in range(200):
    with tf.variable_scope("layer%d" % i):
        w = tf.get_variable("w", [16, 16], initializer=tf.glorot_uniform_initializer())
        b = tf.get_variable("b", [16], initializer=tf.zeros_initializer())
        h = tf.nn.relu(tf.matmul(h, w) + b)
with tf.control_dependencies([h]):
    out = tf.identity(h)
import numpy as np
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(20):
        sess.run(out, {x: np.ones([8, 16], np.float32)})
print(len(tf.get_default_graph().get_operations()))
"""


def timed(cmd):
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if "Traceback" in out.stderr:
        raise SystemExit(out.stderr)
    return seconds, out.stdout


def main():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "prog.py")
        with open(path, "w") as f:
            f.write(SCRIPT)
        # The plain run maps `tensorflow` the same way lint does, so only lint differs.
        plain = [sys.executable, "-c", "import sys, runpy, flowloom; "
                 "sys.modules.setdefault('tensorflow', flowloom); "
                 "getattr(flowloom, 'install_as_tensorflow', lambda: None)(); "
                 f"runpy.run_path({path!r}, run_name='__main__')"]
        lint = [sys.executable, "-m", "flowloom.cli.main", "lint", path]
        best = {"plain": [], "lint": []}
        for _ in range(5):
            for name, cmd in (("plain", plain), ("lint", lint)):
                seconds, out = timed(cmd)
                best[name].append(seconds)
        ops = out.strip().splitlines()[0]
        p, q = min(best["plain"]), min(best["lint"])
        print(f"script with {ops} ops: plain {p:.3f} s, under flowloom lint {q:.3f} s "
              f"-> {q / p:.2f}x (target < 1.20x; whole processes, best of 5)")


if __name__ == "__main__":
    main()
