"""`flowloom launch --ps 1 --workers 2` runs an unchanged TF1 trainer (import tensorflow,
tf.app.flags, replica_device_setter, SyncReplicasOptimizer, MonitoredTrainingSession with a
chief) as three processes, prefixes their output, and stops the cluster when the workers are
done. The sync token queue and the gradient accumulators live on the ps; both workers end
with the same weights, read from the ps."""

import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("ray", reason="needs the optional extra flowloom[distributed] (ray)")

SCRIPT = os.path.join(os.path.dirname(__file__), "scripts", "tf1_trainer.py")


def test_launch_runs_tf1_trainer():
    env = dict(os.environ, FLOWLOOM_DISTRIBUTED_STEP_TIMEOUT="30")
    out = subprocess.run([sys.executable, "-m", "flowloom", "launch", "--ps", "1",
                          "--workers", "2", SCRIPT, "--steps=8", "--sync"],
                         capture_output=True, text=True, timeout=170, env=env)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-3000:]
    for task in (0, 1):
        # A traceback that a cancelled queue-runner thread prints at shutdown shares the pipe
        # (Python writes "Exception in thread " and the name in separate writes), so the
        # result line may follow such a fragment on its output line.
        done = re.findall(rf"^\[worker:{task}\] .*?done task {task}: .*last global step "
                          r"(\d+), .*w on (\S+)$", text, re.M)
        assert done, text[-3000:]
        assert done[0][1] == "/job:ps/task:0"
        assert int(done[0][0]) >= 7
    weights = [line.split("weights ")[1] for line in text.splitlines()
               if line.startswith("[worker:") and " weights " in line]
    assert len(weights) == 2 and weights[0] == weights[1], text[-3000:]
    assert "[launch] ps_hosts=localhost:" in text
