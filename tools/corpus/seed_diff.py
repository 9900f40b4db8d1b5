"""Where a seeded corpus program's random ops first take other seeds than under TF 1.15.

    python tools/corpus/seed_diff.py ID [ID ...]

Under TF 1.15's rule a random op without its own seed takes the number of ops made before it
as its op seed, so one extra or missing op anywhere earlier changes every later random
value. This runs the program (prepared as run.py prepares it) under TF and under flowloom,
each with an exit hook that lists the default graph's random ops (name, type, seed, seed2)
and its op count, and prints the first place where the two lists part.
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from common import cache_dir, load_manifest  # noqa: E402
import run as harness  # noqa: E402

HOOK = r"""
import atexit, json, os, runpy, sys
if os.environ.get("SEED_DIFF_FLOWLOOM"):
    import flowloom
    flowloom.install_as_tensorflow()
import tensorflow as tf

def _dump():
    g = tf.get_default_graph()
    ops = g.get_operations()
    rows = []
    for i, op in enumerate(ops):
        try:
            seed2 = op.get_attr("seed2")
            seed = op.get_attr("seed")
        except Exception:
            continue
        rows.append([i, op.name, op.type, int(seed), int(seed2)])
    with open(os.environ["SEED_DIFF_OUT"], "w") as f:
        json.dump({"ops": len(ops), "random": rows,
                   "names": [op.name + " " + op.type for op in ops]}, f)

atexit.register(_dump)
script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
runpy.run_path(script, run_name="__main__")
"""


def run_side(python, script, cwd, flowloom_side):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as hook:
        hook.write(HOOK)
    out = hook.name + ".json"
    env = dict(os.environ, SEED_DIFF_OUT=out, TF_CPP_MIN_LOG_LEVEL="3", FLOWLOOM_SEED_RULES="1",
               PYTHONPATH=os.pathsep.join(p for p in (harness.SHIMS, os.environ.get(
                   "PYTHONPATH")) if p), MPLBACKEND="Agg")
    if flowloom_side:
        env["SEED_DIFF_FLOWLOOM"] = "1"
    subprocess.run([python, hook.name, script], cwd=cwd, env=env, capture_output=True,
                   timeout=600, stdin=subprocess.DEVNULL)
    try:
        with open(out) as f:
            return json.load(f)
    except OSError:
        return None


def keep_lists(tf_side, fl_side):
    if os.environ.get("SEED_DIFF_KEEP"):
        with open(os.environ["SEED_DIFF_KEEP"], "w") as f:
            json.dump({"tf": tf_side, "flowloom": fl_side}, f)


def main(ids):
    base_dir = cache_dir(required=True)
    entries = {e["id"]: e for e in load_manifest()["programs"]}
    tf_python = os.environ.get("FLOWLOOM_TF1_PYTHON")
    for wanted in ids:
        entry = next(e for i, e in entries.items() if wanted in i)
        with tempfile.TemporaryDirectory(prefix="seed-diff-") as tmp:
            cwd, script, _ = harness.prepare(entry, tmp, os.path.join(base_dir, "data"))
            tf_side = run_side(tf_python, script, cwd, False)
            fl_side = run_side(sys.executable, script, cwd, True)
        keep_lists(tf_side, fl_side)
        print(f"== {entry['id']}: TF {tf_side and tf_side['ops']} ops, "
              f"flowloom {fl_side and fl_side['ops']} ops")
        if not tf_side or not fl_side:
            print("   a side did not finish")
            continue
        for a, b in zip(tf_side["random"], fl_side["random"]):
            if a[3:] != b[3:]:
                print(f"   first differing random op: TF {a} / flowloom {b}")
                lo = min(a[0], b[0])
                # op types may differ (Add / AddV2); names decide where the lists part
                names_tf = [n.split(" ")[0] for n in tf_side["names"]]
                names_fl = [n.split(" ")[0] for n in fl_side["names"]]
                k = next((i for i, (x, y) in enumerate(zip(names_tf, names_fl)) if x != y), lo)
                print(f"   op lists part at #{k}:")
                print("     TF:      ", tf_side["names"][max(0, k - 2):k + 8])
                print("     flowloom:", fl_side["names"][max(0, k - 2):k + 8])
                break
        else:
            print(f"   all {min(len(tf_side['random']), len(fl_side['random']))} random ops "
                  "take the same seeds")


if __name__ == "__main__":
    main(sys.argv[1:])
