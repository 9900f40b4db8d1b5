"""Start-up cost: `import flowloom` against `import numpy` alone and TF 1.15's `import tensorflow`.

  python3 bench/import_time.py [--rounds 7]

Each figure is the median wall time (and CPU time, which a loaded machine disturbs less) of
fresh processes (`python -c ...`), run in alternating
rounds (flowloom, numpy, TF, flowloom, ...) so that the machine's load hits them alike. Two
cases per library: the bare import, and the import plus a first program (a placeholder, a
variable, a dense layer of tf.nn ops, one Session.run), which is what a TF1 script pays before
its own work. TF 1.15 is the Python named by FLOWLOOM_TF1_PYTHON (skipped when unset).
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FIRST_PROGRAM = """
x = tf.placeholder(tf.float32, [None, 3])
w = tf.Variable(tf.ones([3, 2]))
y = tf.nn.relu(tf.matmul(x, w) + 1.0)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    sess.run(y, {x: [[1.0, 2.0, 3.0]]})
"""


def cases(tf1_python):
    out = [("numpy", sys.executable, "import numpy"),
           ("flowloom", sys.executable, "import flowloom"),
           ("flowloom + first program", sys.executable,
            "import flowloom as tf" + FIRST_PROGRAM)]
    if tf1_python:
        out += [("TF 1.15", tf1_python, "import tensorflow"),
                ("TF 1.15 + first program", tf1_python,
                 "import tensorflow as tf" + FIRST_PROGRAM)]
    return out


def timed(python, code, root=ROOT):
    """(wall seconds, CPU seconds) of one fresh process running `code`."""
    env = dict(os.environ, PYTHONPATH=root, TF_CPP_MIN_LOG_LEVEL="3")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([python, "-c", code], check=True, env=env, cwd=root,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--root", default=ROOT,
                        help="the checkout whose flowloom is timed (another worktree: before/after)")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    tf1 = os.environ.get("FLOWLOOM_TF1_PYTHON")
    todo = cases(tf1)
    empty = {python: [] for _, python, _ in todo}
    times = {name: [] for name, _, _ in todo}
    for name, python, code in todo:  # warm the file caches and .pyc files once
        timed(python, code, root)
    for _ in range(args.rounds):
        for python in empty:
            empty[python].append(timed(python, "pass", root))
        for name, python, code in todo:
            times[name].append(timed(python, code, root))
    med = {name: statistics.median(w for w, _ in v) for name, v in times.items()}
    cpu = {name: statistics.median(c for _, c in v) for name, v in times.items()}
    base = {python: statistics.median(w for w, _ in v) for python, v in empty.items()}
    base_cpu = {python: statistics.median(c for _, c in v) for python, v in empty.items()}
    print(f"flowloom from {root}; load average {os.getloadavg()[0]:.1f}; {args.rounds} rounds; "
          "median wall seconds of fresh processes (and less the interpreter's own start-up)")
    print(f"  {'':26s} {'wall':>7s} {'net':>7s} {'CPU':>7s} {'net CPU':>7s}")
    for python in base:
        print(f"  {'empty interpreter':26s} {base[python]:7.3f} {'':7s} {base_cpu[python]:7.3f}"
              f"          {python}")
    for name, python, _ in todo:
        print(f"  {name:26s} {med[name]:7.3f} {med[name] - base[python]:7.3f} {cpu[name]:7.3f} "
              f"{cpu[name] - base_cpu[python]:7.3f}")
    for label, m in (("wall", med), ("CPU", cpu)):
        line = f"{label}: import flowloom / import numpy {m['flowloom'] / m['numpy']:.2f}x"
        if tf1:
            first = m["flowloom + first program"] / m["TF 1.15 + first program"]
            line += (f"; / import tensorflow (1.15) {m['flowloom'] / m['TF 1.15']:.3f}x; with the "
                     f"first program {first:.3f}x")
        print(line)
    if not tf1:
        print("TF 1.15 skipped: set FLOWLOOM_TF1_PYTHON to a Python with TensorFlow 1.15")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
