"""A ps task killed mid-training and started again: the chief's MonitoredTrainingSession
recreates its session (waiting for the new ps), restores the last checkpoint onto it and
trains to the last step. A third cluster start: opt-in (FLOWLOOM_DISTRIBUTED_SLOW=1)."""

import os
import time

import pytest

pytest.importorskip("ray", reason="needs the optional extra flowloom[distributed] (ray)")
if not os.environ.get("FLOWLOOM_DISTRIBUTED_SLOW"):
    pytest.skip("set FLOWLOOM_DISTRIBUTED_SLOW=1 to restart a ps under a training chief "
                "(a minute or two on 2 cores)", allow_module_level=True)

from flowloom.distributed.launch import LocalCluster  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(__file__), "scripts", "recover_task.py")


def test_chief_resumes_from_checkpoint_after_ps_restart(tmp_path):
    cluster = LocalCluster(SCRIPT, [f"--ckpt={tmp_path}"], 1, 1, echo=None,
                           env={"FLOWLOOM_DISTRIBUTED_STEP_TIMEOUT": "20"})
    try:
        cluster.start()
        worker = cluster.workers()[0]
        assert worker.wait_for(r"^step 2\d$", 150), "\n".join(worker.lines[-20:])
        cluster.tasks[("ps", 0)].kill()
        time.sleep(2)
        cluster.start_task("ps", 0)
        assert worker.wait_for(r"^finished", 150), "\n".join(worker.lines[-30:])
        steps = [int(line.split()[1]) for line in worker.lines if line.startswith("step ")]
        # After the restart the global step went back to the last checkpoint (a multiple of
        # 5), not to 0, and training reached the last step.
        drops = [b for a, b in zip(steps, steps[1:]) if b <= a]
        assert drops and all(d > 0 and d % 5 == 0 for d in drops), steps
        assert steps[-1] == 59
    finally:
        cluster.stop()
