"""`flowloom run` on TF1 scripts (tests/data/compat_scripts/) against what TF 1.15 printed.

The recording (tests/data/compat_scripts_tf1.json, by tests/data/record_compat_scripts.py)
holds each run's stdout, exit status and the stderr lines a program shows of itself.
"""

import json
import os
import subprocess
import sys

import pytest

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
sys.path.insert(0, DATA)
import compat_runs  # noqa: E402

RECORDED = json.load(open(os.path.join(DATA, "compat_scripts_tf1.json")))


def flowloom_run(script, args):
    env = dict(os.environ, PYTHONHASHSEED="0")
    env.pop("FLOWLOOM_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "flowloom", "run", script] + args,
                          cwd=os.path.join(DATA, "compat_scripts"), capture_output=True,
                          text=True, env=env, timeout=300)


@pytest.mark.parametrize("run", sorted(compat_runs.RUNS))
def test_script_runs_as_on_tensorflow(run):
    script, args = compat_runs.RUNS[run]
    p = flowloom_run(script, args)
    want = RECORDED[run]
    assert p.stdout == want["stdout"], p.stderr[-3000:]
    assert compat_runs.normalize_stderr(p.stderr) == want["stderr"]
    assert p.returncode == want["rc"]
