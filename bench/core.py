"""Core benchmarks (issue 13): Session.run overhead and graph-construction speed.

Three figures, each from the same TF1 program run on flowloom and on real TensorFlow:

- `run_us`: `sess.run` of the seed graph (assign_add + identity under control_dependencies);
- `build_us_per_op`: a chain of 20,000 `tf.add`, per op;
- `layer_us`: scoped dense layers (`variable_scope` + 2 `get_variable` + matmul + add + relu),
  per layer (the layer's initializer ops included, as `get_variable` makes them).

Construction figures come as wall time and as the process's CPU time: on a shared, loaded
machine the CPU time is the steadier of the two (building a graph is single-threaded in both
libraries, so it does not hide work done on other threads). Each construction figure is the
steady cost: every process first builds a small untimed graph of the same kind, so what a
library does once on first use (flowloom loads its op families then, TF at import) is not
spread over the timed units; `bench/import_time.py` measures that start-up cost, import plus a
first program. The timed builds are the best of three.

flowloom and TensorFlow cannot share a process, so they run in alternating subprocesses,
`--rounds` times; each figure is the median over rounds of each process's best of a few
repeats, and the ratio flowloom / TF is the ratio of the medians (lower is better; the
construction goal is <= 0.05x). TensorFlow is the one named by `--tf-python`, else
$FLOWLOOM_TF1_PYTHON (TF 1.15), else $FLOWLOOM_TF_PYTHON (TF 2.x compat.v1); with none,
flowloom's figures are printed alone.

    python3 bench/core.py [--rounds 5] [--tf-python /path/to/python] [--only build,layer]
                          [--before DIR]   # DIR: a checkout of an earlier flowloom
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

# Runs on TF 1.15's Python 3.7 too: keep the syntax plain.
PROGRAM = r'''
import json, sys, time
which, only = sys.argv[1], sys.argv[2].split(",")
if which == "tf":
    import os
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.logging.set_verbosity(tf.logging.ERROR)
else:
    import flowloom as tf

def best_of(fn, repeat):
    return min(fn() for _ in range(repeat))

def timed(fn, repeat, n):
    """(best wall seconds, best CPU seconds) per unit of `fn(n)` over `repeat` calls, after
    one untimed `fn(n // 10)` (first-use loading)."""
    fn(max(1, n // 10))
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = fn(n)
        walls.append(w / n)
        cpus.append(c / n)
    return min(walls), min(cpus)

out = {}
if "run" in only:
    # 1. sess.run of the seed graph: assign_add + identity under control_dependencies.
    g = tf.Graph()
    with g.as_default():
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
        out["run_us"] = best_of(run_calls, 5) * 1e6
        sess.close()

if "build" in only:
    # 2. graph construction: a chain of 20,000 tf.add.
    def build(n):
        g = tf.Graph()
        with g.as_default():
            t = tf.constant(0.0)
            one = tf.constant(1.0)
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(n):
                t = tf.add(t, one)
            return time.perf_counter() - t0, time.process_time() - c0
    wall, cpu = timed(build, 3, 20000)
    out["build_us_per_op"], out["build_cpu_us_per_op"] = wall * 1e6, cpu * 1e6

if "layer" in only:
    # 3. graph construction: scoped dense layers, the way TF1 models build them.
    def layers(n, width=64):
        g = tf.Graph()
        with g.as_default():
            h = tf.placeholder(tf.float32, [None, width])
            t0, c0 = time.perf_counter(), time.process_time()
            for i in range(n):
                with tf.variable_scope("layer%d" % i):
                    w = tf.get_variable("weights", [width, width])
                    b = tf.get_variable("biases", [width],
                                        initializer=tf.zeros_initializer())
                    h = tf.nn.relu(tf.matmul(h, w) + b)
            return time.perf_counter() - t0, time.process_time() - c0
    wall, cpu = timed(layers, 3, 200)
    out["layer_us"], out["layer_cpu_us"] = wall * 1e6, cpu * 1e6
print(json.dumps(out))
'''

ROWS = (("run", "run_us", "sess.run(seed graph), us/call", 0.5),
        ("build", "build_us_per_op", "construction, 20,000-op add chain, us/op", 0.05),
        ("build", "build_cpu_us_per_op", "  the same, CPU time", 0.05),
        ("layer", "layer_us", "construction, scoped dense layer, us/layer", 0.05),
        ("layer", "layer_cpu_us", "  the same, CPU time", 0.05))


def measure(python, which, only, root=None):
    root = root or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    # (run in `root`: `python -c` puts the working directory first on sys.path, so a run
    # started in another checkout would import that checkout's flowloom instead)
    out = subprocess.run([python, "-c", PROGRAM, which, ",".join(only)], capture_output=True,
                         text=True, env=env, cwd=root)
    if out.returncode:
        raise SystemExit(f"{which} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def find_tf_python(explicit):
    for cand in (explicit, os.environ.get("FLOWLOOM_TF1_PYTHON"),
                 os.environ.get("FLOWLOOM_TF_PYTHON")):
        if cand and os.path.exists(cand):
            ok = subprocess.run([cand, "-c", "import tensorflow"], capture_output=True)
            if ok.returncode == 0:
                return cand
    return None


def tf_version(python):
    out = subprocess.run([python, "-c", "import tensorflow as tf; print(tf.__version__)"],
                         capture_output=True, text=True,
                         env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    return out.stdout.strip().splitlines()[-1] if out.returncode == 0 else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tf-python")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="run,build,layer",
                    help="comma-separated subset of run,build,layer")
    ap.add_argument("--before", metavar="DIR",
                    help="a checkout of an earlier flowloom, measured in the same rounds")
    args = ap.parse_args()
    only = [k for k in args.only.split(",") if k]
    tfp = find_tf_python(args.tf_python)
    fls, tfs, befores = [], [], []
    for _ in range(args.rounds):
        fls.append(measure(sys.executable, "flowloom", only))
        if tfp:
            tfs.append(measure(tfp, "tf", only))
        if args.before:
            befores.append(measure(sys.executable, "flowloom", only, root=args.before))
    where = f"TensorFlow {tf_version(tfp)}" if tfp else "no TensorFlow (set FLOWLOOM_TF1_PYTHON)"
    print(f"median of {args.rounds} alternating rounds; {where}")
    extra = f"{'before':>10}{'bef/TF':>8}" if befores else ""
    print(f"{'benchmark':<44}{'flowloom':>10}{'TF':>10}{'fl/TF':>8}{'target':>8}{extra}")
    for key, field, label, target in ROWS:
        if key not in only:
            continue
        fl = statistics.median(r[field] for r in fls)
        tf = statistics.median(r[field] for r in tfs) if tfs else None
        line = f"{label:<44}{fl:10.2f}" + (f"{tf:10.2f}{fl / tf:8.3f}{target:8.2f}" if tf
                                           else f"{'n/a':>10}{'':>16}")
        if befores:
            b = statistics.median(r[field] for r in befores)
            line += f"{b:10.2f}" + (f"{b / tf:8.3f}" if tf else "")
        print(line)
    if tfs:
        per_round = {f: [a[f] / b[f] for a, b in zip(fls, tfs)] for _, f, _, _ in ROWS
                     if f in fls[0]}
        print("per-round ratios: " + "; ".join(
            f"{f} " + " ".join(f"{r:.3f}" for r in rs) for f, rs in per_round.items()))


if __name__ == "__main__":
    main()
