"""Records TF 1.15's output for the runs in compat_runs.py (stdout, exit status, kept stderr).

Run: FLOWLOOM_TF1_PYTHON=/path/to/tf1/python python3 tests/data/record_compat_scripts.py
(writes compat_scripts_tf1.json next to this file).
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compat_runs  # noqa: E402

python = os.environ.get("FLOWLOOM_TF1_PYTHON")
if not python:
    sys.exit("set FLOWLOOM_TF1_PYTHON to a Python with TensorFlow 1.15")
env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONHASHSEED="0")
out = {}
for name, (script, args) in compat_runs.RUNS.items():
    p = subprocess.run([python, script] + args, cwd=os.path.join(HERE, "compat_scripts"),
                       capture_output=True, text=True, env=env, timeout=300)
    out[name] = {"rc": p.returncode, "stdout": p.stdout,
                 "stderr": compat_runs.normalize_stderr(p.stderr)}
    print(name, p.returncode)
with open(os.path.join(HERE, "compat_scripts_tf1.json"), "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
