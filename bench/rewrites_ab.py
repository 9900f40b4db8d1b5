"""Training steps with graph rewrites on vs off vs TensorFlow 1.15, in alternating processes.

For each model (the MLP of bench/mlp_step.py, the CNN of bench/cnn_step.py, the LSTM of
bench/lstm_step.py) each round starts three processes, in an order that rotates from round
to round: flowloom with its rewrites on, flowloom with `FLOWLOOM_REWRITES=0`, and TensorFlow
1.15 (the Python named by FLOWLOOM_TF1_PYTHON; skipped clearly when unset). Each process
builds the step, times it and reports ms/step, the final loss and its peak RSS; the flowloom
processes also time the NumPy floor of the MLP and CNN (bench/*_step.py) after their own
step. Prints the medians over the rounds and the ratios. Every process runs on `--threads`
threads (BLAS, flowloom's kernel workers, TF's pools; default 1) and is timed in process CPU
time by default (`--clock wall` for wall time): on a shared, loaded machine wall time mostly
measures the neighbours.

    python3 bench/rewrites_ab.py [--rounds 3] [--models mlp,cnn,lstm] [--steps 10]
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")


def _peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _import_tf(kind):
    if kind == "tf":
        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
        return tf
    sys.path.insert(0, ROOT)
    import flowloom as tf

    return tf


def _best_ms(run_steps, steps, clock, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        t0 = clock()
        run_steps(steps)
        best = min(best, (clock() - t0) / steps * 1e3)
    return best


def child(model, kind, steps, floor, threads, clock_name):
    """Runs one model's step in this process; prints one JSON line."""
    import time

    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    sys.path.insert(0, BENCH)
    tf = _import_tf(kind)
    result = {}
    config = tf.ConfigProto(intra_op_parallelism_threads=threads,
                            inter_op_parallelism_threads=threads)
    if model == "mlp":
        import mlp_step

        run_steps, final_loss, close = mlp_step.build_step(tf, True, config)
        result["ms"] = _best_ms(run_steps, steps, clock)
        result["loss"] = final_loss()
        close()
        result["rss_mib"] = _peak_rss_mib()
        if floor:
            result["floor_ms"] = _best_ms(mlp_step.numpy_step(), steps, clock)
    elif model == "cnn":
        import cnn_step

        cnn_step.CLOCK = clock
        seconds, result["loss"] = cnn_step.time_graph(tf, steps, config)
        result["ms"] = seconds * 1e3
        result["rss_mib"] = _peak_rss_mib()
        if floor:
            result["floor_ms"] = cnn_step.time_numpy(steps) * 1e3
    else:
        raise SystemExit(f"unknown model {model}")
    print(json.dumps(result))


def _run_child(python, model, kind, steps, floor, env_extra, threads, clock):
    # BLAS reads its thread count at import: each process starts with it set.
    env_extra = dict(env_extra, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
                     MKL_NUM_THREADS=str(threads), FLOWLOOM_NN_THREADS=str(threads))
    env = dict(os.environ, **env_extra)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    if model == "lstm":  # bench/lstm_step.py runs its own program in a subprocess
        sys.path.insert(0, BENCH)
        import lstm_step

        if clock == "cpu" and "process_time" not in lstm_step.PROGRAM:
            lstm_step.PROGRAM = lstm_step.PROGRAM.replace("time.perf_counter()",
                                                          "time.process_time()")
        saved = dict(os.environ)
        os.environ.update(env_extra)
        try:
            args = argparse.Namespace(steps=steps, optimizer="adam", hidden=256, time=50,
                                      batch=32, intra_op=threads)
            out = lstm_step.run(python, "tf" if kind == "tf" else "flowloom", args)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        return {"ms": out["median_ms"], "loss": out["loss"]}
    argv = [python, os.path.abspath(__file__), "--child", model, "--kind", kind,
            "--steps", str(steps), "--threads", str(threads), "--clock", clock] + \
        (["--floor"] if floor else [])
    out = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=1800)
    if out.returncode != 0:
        raise RuntimeError(f"{model}/{kind} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--models", default="mlp,cnn,lstm")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--child")
    ap.add_argument("--kind", default="on")
    ap.add_argument("--floor", action="store_true")
    ap.add_argument("--threads", type=int, default=1,
                    help="BLAS, kernel and intra-op threads of every process (default 1: the "
                    "machine is shared)")
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                    help="process CPU time (default: what a loaded shared machine barely "
                    "moves) or wall time")
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.kind, args.steps, args.floor, args.threads, args.clock)
    tf1 = os.environ.get("FLOWLOOM_TF1_PYTHON", "")
    kinds = [("on", sys.executable, {"FLOWLOOM_REWRITES": "1"}),
             ("off", sys.executable, {"FLOWLOOM_REWRITES": "0"})]
    if tf1 and os.path.exists(tf1):
        kinds.append(("tf", tf1, {}))
    else:
        print("FLOWLOOM_TF1_PYTHON is not set: TensorFlow 1.15 is not measured")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          f"{args.rounds} rounds x {args.steps} steps, {args.threads} thread(s), "
          f"{args.clock} time")
    for model in args.models.split(","):
        got = {k: [] for k, _, _ in kinds}
        for r in range(args.rounds):
            order = kinds[r % len(kinds):] + kinds[:r % len(kinds)]
            for kind, python, env in order:
                got[kind].append(_run_child(python, model, kind, args.steps,
                                            kind != "tf" and model != "lstm", env, args.threads,
                                            args.clock))
        med = {k: statistics.median(x["ms"] for x in v) for k, v in got.items()}
        line = f"{model:5s} ms/step: on {med['on']:8.2f}  off {med['off']:8.2f}"
        line += f"  on/off {med['on'] / med['off']:.2f}x"
        if "tf" in med:
            line += f"  tf {med['tf']:8.2f}  on/tf {med['on'] / med['tf']:.2f}x" \
                    f"  off/tf {med['off'] / med['tf']:.2f}x"
        floors = [x["floor_ms"] for k in ("on", "off") for x in got[k] if "floor_ms" in x]
        if floors:
            line += f"  on/numpy {med['on'] / statistics.median(floors):.2f}x"
        print(line, flush=True)
        if floors:
            # Each process's step over its own floor: what the neighbours' load cancels from.
            per = {k: statistics.median(x["ms"] / x["floor_ms"] for x in got[k])
                   for k in ("on", "off")}
            print(f"      over each process's NumPy floor: on {per['on']:.2f}x  off "
                  f"{per['off']:.2f}x  (normalised on/off {per['on'] / per['off']:.2f}x)")
        losses = {k: v[-1]["loss"] for k, v in got.items()}
        print(f"      final losses: {losses}")
        print(f"      all ms: { {k: [round(x['ms'], 1) for x in v] for k, v in got.items()} }")
        rss = {k: max(x["rss_mib"] for x in v) for k, v in got.items() if "rss_mib" in v[0]}
        if rss:
            text = "  ".join(f"{k} {v:.0f} MiB" for k, v in rss.items())
            if "tf" in rss:
                text += f"  on/tf {rss['on'] / rss['tf']:.2f}x"
            print(f"      peak RSS: {text}", flush=True)


if __name__ == "__main__":
    main()
