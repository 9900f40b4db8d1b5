"""A local Ray cluster of 1 ps + 2 workers, each task its own process (mlp_task.py), on two
Ray nodes of this machine (the ps's actor pinned to the second node, a stand-in for another
machine): asynchronous MLP training on variables that live on the ps, then a worker killed
(the other goes on), then the ps killed (the worker's next step fails with UnavailableError
or AbortedError within seconds). test_launch.py runs `flowloom launch` on one node."""

import os

import pytest

pytest.importorskip("ray", reason="needs the optional extra flowloom[distributed] (ray)")

from flowloom.distributed.launch import LocalCluster  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(__file__), "scripts", "mlp_task.py")
ENV = {"FLOWLOOM_DISTRIBUTED_STEP_TIMEOUT": "30", "FLOWLOOM_DISTRIBUTED_CONNECT_TIMEOUT": "60"}


def _final(task):
    line = task.wait_for(r"^final |^error |Traceback", 120)
    if line is None or not line.startswith("final"):
        try:
            task.proc.wait(timeout=10)  # the whole traceback
        except Exception:  # noqa: BLE001 - still running: show what it printed
            pass
    assert line is not None and line.startswith("final"), \
        f"{task.label} did not finish training:\n" + "\n".join(task.lines[-40:])
    _, step, weights = line.split()
    return int(step), float(weights)


def test_async_training_worker_kill_and_ps_kill():
    cluster = LocalCluster(SCRIPT, ["--steps=10"], num_ps=1, num_workers=2, echo=None,
                           env=ENV, two_nodes=True)
    try:
        cluster.start()
        w0, w1 = cluster.workers()
        ps = cluster.tasks[("ps", 0)]
        step0, weights0 = _final(w0)
        step1, weights1 = _final(w1)
        # Both workers trained the same variables (on the ps): one global step, one model.
        assert step0 == step1 == 20
        assert weights0 == pytest.approx(weights1, abs=1e-5)
        devices = w0.wait_for(r"^devices ", 1).split()
        assert devices[1:] == ["/job:ps/task:0", "/job:worker/task:0", "/job:ps/task:0"]
        _, ps_node0, worker_node0 = w0.wait_for(r"^nodes ", 1).split()
        _, ps_node1, worker_node1 = w1.wait_for(r"^nodes ", 1).split()
        assert ps_node0 == ps_node1 and worker_node0 == worker_node1 != ps_node0

        # A killed worker does not stop the other (once both have read the final model).
        assert w0.wait_count(r"^alive", 1, 30), "\n".join(w0.lines[-20:])
        assert w1.wait_count(r"^alive", 1, 30), "\n".join(w1.lines[-20:])
        w1.kill()
        w1.proc.wait(timeout=10)
        seen = len([line for line in w0.lines if line.startswith("alive")])
        assert w0.wait_count(r"^alive", seen + 5, 30), "\n".join(w0.lines[-20:])
        assert not any(line.startswith("error") for line in w0.lines)

        # A killed ps makes the worker's next step fail within seconds, with TF's error.
        ps.kill()
        line = w0.wait_for(r"^error ", 30)
        assert line is not None, "worker hung after the ps died:\n" + "\n".join(w0.lines[-20:])
        _, cls, seconds = line.split()
        assert cls in ("UnavailableError", "AbortedError")
        assert float(seconds) < 10.0
        assert w0.proc.wait(timeout=10) == 3
    finally:
        cluster.stop()
