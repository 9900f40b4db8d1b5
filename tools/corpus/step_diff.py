"""Where a seeded corpus program's values first part from TF 1.15's, run by run.

    python tools/corpus/step_diff.py ID [--runs N] [--show K]

seed_diff.py says whether the random ops take TF's seeds; this says where the numbers part when
they do. The program (prepared as run.py prepares it) runs under TF and under flowloom, each
with a hook on Session.run that, for the first N calls (default 4), keeps what the call fetched,
the values of the random ops outside control flow that the call ran (added to its fetches, so
they are the draws the step used), and every global variable after the call. The two records
are then compared call by call: the first call where a value differs, and its K (default 12)
largest differences (max |a-b|, and that over the value's largest magnitude), so one can tell an
initializer or a random draw that differs (large, from the first call) from float32
summation-order drift (a few ulps, growing over the steps).
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from common import cache_dir, load_manifest  # noqa: E402
import run as harness  # noqa: E402

HOOK = r"""
import os, runpy, sys
import numpy as np
if os.environ.get("STEP_DIFF_FLOWLOOM"):
    import flowloom
    flowloom.install_as_tensorflow()
import tensorflow as tf

RUNS = int(os.environ["STEP_DIFF_RUNS"])
OUT = os.environ["STEP_DIFF_OUT"]
_record, _calls = {}, [0]
_original = tf.Session.run
_RANDOM = {"RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt",
           "RandomShuffle", "Multinomial", "RandomGamma", "RandomPoisson", "RandomPoissonV2"}


def _flat(value, prefix, out):
    if isinstance(value, dict):
        for k in sorted(value, key=str):
            _flat(value[k], "%s/%s" % (prefix, k), out)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _flat(v, "%s/%d" % (prefix, i), out)
    else:
        a = np.asarray(value) if value is not None else None
        if a is not None and a.dtype.kind in "fiub":
            out[prefix] = a


def _graph_elements(fetches, out):
    if isinstance(fetches, dict):
        for v in fetches.values():
            _graph_elements(v, out)
    elif isinstance(fetches, (list, tuple)):
        for v in fetches:
            _graph_elements(v, out)
    elif hasattr(fetches, "op"):
        out.append(fetches.op)
    elif hasattr(fetches, "type") and hasattr(fetches, "inputs"):
        out.append(fetches)


def _random_ran(fetches):
    # random ops this call runs outside control flow: the walk stops at Merge (cond, while)
    seen, stack, found = set(), [], []
    _graph_elements(fetches, stack)
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        if op.type in _RANDOM:
            found.append(op.outputs[0])
        if op.type == "Merge":
            continue
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return sorted(found, key=lambda t: t.name)


def _run(self, fetches, feed_dict=None, options=None, run_metadata=None):
    n = _calls[0]
    if n >= RUNS:
        return _original(self, fetches, feed_dict, options, run_metadata)
    _calls[0] += 1
    rand = _random_ran(fetches)
    both = _original(self, [fetches, rand], feed_dict, options, run_metadata)
    result = both[0]
    _flat(result, "c%d/fetch" % n, _record)
    for t, v in zip(rand, both[1]):
        _record["c%d/random/%s" % (n, t.name)] = np.asarray(v)
    vs = self.graph.get_collection("variables")
    if vs:
        for v, val in zip(vs, _original(self, vs)):
            _record["c%d/var/%s" % (n, v.name)] = np.asarray(val)
    np.savez(OUT, **_record)
    return result


tf.Session.run = _run
script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
runpy.run_path(script, run_name="__main__")
"""


def run_side(python, script, cwd, flowloom_side, runs):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as hook:
        hook.write(HOOK)
    out = hook.name + ".npz"
    env = dict(os.environ, STEP_DIFF_OUT=out, STEP_DIFF_RUNS=str(runs), TF_CPP_MIN_LOG_LEVEL="3",
               FLOWLOOM_SEED_RULES="1", PYTHONPATH=harness.SHIMS + os.pathsep + os.environ.get(
                   "PYTHONPATH", ""), MPLBACKEND="Agg", CUDA_VISIBLE_DEVICES="",
               PYTHONHASHSEED="0")
    if flowloom_side:
        env["STEP_DIFF_FLOWLOOM"] = "1"
    p = subprocess.run([python, hook.name, script], cwd=cwd, env=env, capture_output=True,
                       timeout=900, stdin=subprocess.DEVNULL, text=True)
    if p.returncode != 0:
        print("   %s side: exit %s: %s" % ("flowloom" if flowloom_side else "TF", p.returncode,
                                          p.stderr.strip().splitlines()[-1:]))
    try:
        with np.load(out) as z:
            return {k: z[k] for k in z.files}
    except OSError:
        return None


def differences(tf_rec, fl_rec):
    """[(call, key, max |a-b|, max |a-b| / max |a|, shape)] of the values that differ."""
    rows = []
    for key in sorted(set(tf_rec) & set(fl_rec)):
        a, b = tf_rec[key], fl_rec[key]
        call = int(key.split("/")[0][1:])
        if a.shape != b.shape:
            rows.append((call, key, float("inf"), float("inf"), "%s/%s" % (a.shape, b.shape)))
            continue
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        if np.array_equal(a64, b64, equal_nan=True):
            continue
        d = np.abs(a64 - b64)
        scale = max(float(np.nanmax(np.abs(a64))) if a64.size else 0.0, 1e-30)
        rows.append((call, key, float(np.nanmax(d)), float(np.nanmax(d)) / scale, str(a.shape)))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ids", nargs="+")
    ap.add_argument("--runs", type=int, default=4, help="Session.run calls recorded")
    ap.add_argument("--show", type=int, default=12, help="differences shown per call")
    ap.add_argument("--keep", default=None, help="also save both records here (tf.npz, fl.npz)")
    args = ap.parse_args(argv)
    base_dir = cache_dir(required=True)
    entries = {e["id"]: e for e in load_manifest()["programs"]}
    tf_python = os.environ.get("FLOWLOOM_TF1_PYTHON")
    for wanted in args.ids:
        entry = next(e for i, e in entries.items() if wanted in i)
        with tempfile.TemporaryDirectory(prefix="step-diff-") as tmp:
            cwd, script, _ = harness.prepare(entry, tmp, os.path.join(base_dir, "data"))
            tf_rec = run_side(tf_python, script, cwd, False, args.runs)
            fl_rec = run_side(sys.executable, script, cwd, True, args.runs)
        print("== %s" % entry["id"])
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            for name, rec in (("tf", tf_rec), ("fl", fl_rec)):
                if rec:
                    np.savez(os.path.join(args.keep, name + ".npz"), **rec)
        if not tf_rec or not fl_rec:
            print("   a side recorded nothing")
            continue
        only = sorted(set(tf_rec) ^ set(fl_rec))
        if only:
            print("   recorded on one side only: %s" % only[:8])
        rows = differences(tf_rec, fl_rec)
        calls = sorted({k.split("/")[0] for k in tf_rec}, key=lambda c: int(c[1:]))
        for c in calls:
            n = int(c[1:])
            here = sorted((r for r in rows if r[0] == n), key=lambda r: -r[3])
            same = sum(1 for k in tf_rec if k.startswith(c + "/") and k in fl_rec) - len(here)
            print("   call %d: %d values equal, %d differ" % (n, same, len(here)))
            for _, key, d, rel, shape in here[:args.show]:
                print("     %-60s %s max|d| %.3g (%.3g of max|TF|)" % (key[len(c) + 1:], shape, d, rel))


if __name__ == "__main__":
    main()
