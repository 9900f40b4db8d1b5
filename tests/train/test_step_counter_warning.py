"""StepCounterHook warns that the global step has not been increased the first 5 times in
the process, all hooks together, as TF 1.15 (tests/data/step_counter_warning_tf.json, made by
tests/data/record_step_counter_warning.py)."""

import json
import os
import subprocess
import sys

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_warning_counts_match_tf_1_15():
    program = ("import sys; sys.path.insert(0, %r)\n"
               "import flowloom as tf\n"
               "from flowloom.train.monitored_session import _HookedSession\n"
               "import step_counter_warning_program as p\n"
               "p.main(tf, _HookedSession)\n" % DATA)
    # A fresh process: the limit counts every warning logged from that line.
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=ROOT), timeout=300)
    assert out.returncode == 0, out.stderr
    with open(os.path.join(DATA, "step_counter_warning_tf.json")) as f:
        assert json.loads(out.stdout.strip().splitlines()[-1]) == json.load(f)
