"""Chief and workers on an in-process cluster: the chief initializes, the others wait for it
(SessionManager, MonitoredTrainingSession, Supervisor), and the seed's mistake — a variable
living on a worker's own task — makes that worker wait until its deadline."""

import logging
import threading
import time

import numpy as np
import pytest

import flowloom as tf
from flowloom.distributed.inprocess import InProcessCluster
from flowloom.train import session_manager

CLUSTER = {"ps": ["ps0:2222"], "worker": ["w0:2222", "w1:2222"]}


def _build(cluster, task, own_variable=None):
    """One worker's graph (each task builds its own, as separate processes do)."""
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf.train.replica_device_setter(
            cluster=cluster.spec, worker_device="/job:worker/task:%d" % task)):
        step = tf.train.get_or_create_global_step()
        w = tf.get_variable("w", [3], initializer=tf.ones_initializer())
        loss = tf.reduce_sum(tf.square(w))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        if own_variable == "global":
            # The seed's mistake: a per-worker variable left in GLOBAL_VARIABLES.
            with tf.device("/job:worker/task:%d" % task):
                tf.Variable(0.0, name="worker_counter")
        elif own_variable == "local":
            with tf.device("/job:worker/task:%d" % task):
                tf.Variable(0.0, name="worker_counter",
                            collections=[tf.GraphKeys.LOCAL_VARIABLES])
    return graph, step, train


def _in_thread(fn):
    out = {}

    def body():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            out["error"] = e

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread, out


def test_variables_on_ps_are_shared_worker_variables_are_not():
    cluster = InProcessCluster(CLUSTER)
    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/job:ps/task:0"):
            shared = tf.Variable(1.0, name="shared")
        with tf.device("/job:worker/task:0"):
            own = tf.Variable(2.0, name="own")
        uninit = tf.report_uninitialized_variables()
    s0 = cluster.session("worker", 0, graph=graph)
    s1 = cluster.session("worker", 1, graph=graph)
    s0.run([shared.initializer, own.initializer])
    assert list(s1.run(uninit)) == []  # both tasks' sessions see worker 0's container here
    graph1 = tf.Graph()
    with graph1.as_default():
        with tf.device("/job:ps/task:0"):
            shared1 = tf.Variable(5.0, name="shared")
        with tf.device("/job:worker/task:1"):
            tf.Variable(2.0, name="own")
        uninit1 = tf.report_uninitialized_variables()
    s1b = cluster.session("worker", 1, graph=graph1)
    assert [n.decode() for n in s1b.run(uninit1)] == ["own"]
    assert s1b.run(shared1) == 1.0  # the chief's value, on the ps
    with pytest.raises(tf.errors.InvalidArgumentError, match="no task /job:ps/task:3"):
        with graph1.as_default(), tf.device("/job:ps/task:3"):
            x = tf.constant(1.0) + 1
        s1b.run(x)


def test_wait_for_session_waits_for_the_chief():
    cluster = InProcessCluster(CLUSTER)
    graph0, step0, _ = _build(cluster, 0)
    graph1, step1, _ = _build(cluster, 1)
    with graph1.as_default():
        ready1 = tf.report_uninitialized_variables()
    worker_sm = tf.train.SessionManager(ready_op=ready1, graph=graph1, recovery_wait_secs=0.05)
    thread, out = _in_thread(lambda: worker_sm.wait_for_session(
        cluster.target("worker", 1), max_wait_secs=20))
    time.sleep(0.3)
    assert thread.is_alive(), "the worker must wait while nothing is initialized"
    with graph0.as_default():
        init0 = tf.global_variables_initializer()
        ready0 = tf.report_uninitialized_variables()
    chief_sm = tf.train.SessionManager(ready_op=ready0, graph=graph0)
    chief = chief_sm.prepare_session(cluster.target("worker", 0), init_op=init0)
    thread.join(10)
    assert "error" not in out, out.get("error")
    assert out["value"].run(step1) == 0 and chief.run(step0) == 0


def test_wait_for_session_deadline():
    cluster = InProcessCluster(CLUSTER)
    graph1, _, _ = _build(cluster, 1)
    with graph1.as_default():
        ready = tf.report_uninitialized_variables()
    sm = tf.train.SessionManager(ready_op=ready, graph=graph1, recovery_wait_secs=0.05)
    start = time.time()
    with pytest.raises(tf.errors.DeadlineExceededError,
                       match="Session was not ready after waiting 0.3 secs"):
        sm.wait_for_session(cluster.target("worker", 1), max_wait_secs=0.3)
    assert time.time() - start < 5


def _train(cluster, task, own_variable, steps, max_wait_secs, start_delay=0.0):
    graph, step, train = _build(cluster, task, own_variable)
    time.sleep(start_delay)
    with graph.as_default():
        with tf.train.MonitoredTrainingSession(
                master=cluster.target("worker", task), is_chief=(task == 0),
                max_wait_secs=max_wait_secs) as sess:
            seen = []
            for _ in range(steps):
                seen.append(sess.run([train, step])[1])
            return seen, sess.run(tf.trainable_variables()[0])


def _fast_recovery(monkeypatch):
    # MonitoredTrainingSession's workers use SessionManager's default wait (30 s, as in TF);
    # the tests poll faster.
    original = tf.train.SessionManager.__init__

    def init(self, *args, **kwargs):
        kwargs["recovery_wait_secs"] = 0.05
        original(self, *args, **kwargs)

    monkeypatch.setattr(tf.train.SessionManager, "__init__", init)


def test_monitored_training_session_chief_and_worker(monkeypatch):
    _fast_recovery(monkeypatch)
    cluster = InProcessCluster(CLUSTER)
    worker, wout = _in_thread(lambda: _train(cluster, 1, "local", 3, 20))
    time.sleep(0.2)
    chief, cout = _in_thread(lambda: _train(cluster, 0, "local", 3, 20, start_delay=0.1))
    chief.join(20)
    worker.join(20)
    assert "error" not in cout and "error" not in wout, (cout.get("error"), wout.get("error"))
    # Both workers update the one global step on the ps: six steps in all.
    steps = cout["value"][0] + wout["value"][0]
    assert len(set(steps)) == 6 and set(steps) <= set(range(7))
    graph, step, _ = _build(cluster, 1)
    assert cluster.session("worker", 1, graph=graph).run(step) == 6
    assert ("", "global_step") in cluster.container("ps", 0)  # the variables live on the ps
    np.testing.assert_allclose(cout["value"][1], wout["value"][1], rtol=0, atol=0.5)


def test_seed_mistake_worker_variable_makes_the_worker_wait(monkeypatch, caplog):
    _fast_recovery(monkeypatch)
    cluster = InProcessCluster(CLUSTER)
    _train(cluster, 0, "global", 1, 5)  # the chief runs fine: it initializes its own copy
    caplog.set_level(logging.INFO, logger=session_manager._log.name)
    with pytest.raises(tf.errors.DeadlineExceededError):
        _train(cluster, 1, "global", 1, 0.3)
    text = caplog.text
    assert "Waiting for the chief to initialize 1 variable(s): worker_counter " \
           "(/job:worker/task:1)" in text
    assert "worker_counter live(s) on this task (/job:worker/task:1)" in text
    # The fix: a local variable, initialized by each worker's local_init_op.
    seen, _ = _train(cluster, 1, "local", 1, 5)
    assert seen == [2]  # the chief ran one step


def test_supervisor_non_chief_waits(monkeypatch):
    cluster = InProcessCluster(CLUSTER)
    graph0, step0, train0 = _build(cluster, 0)
    graph1, step1, train1 = _build(cluster, 1)
    with graph1.as_default():
        sv1 = tf.train.Supervisor(is_chief=False, logdir=None, recovery_wait_secs=0.05)
    thread, out = _in_thread(lambda: sv1.prepare_or_wait_for_session(
        cluster.target("worker", 1)))
    time.sleep(0.3)
    assert thread.is_alive()
    with graph0.as_default():
        sv0 = tf.train.Supervisor(is_chief=True, logdir=None)
        sess0 = sv0.prepare_or_wait_for_session(cluster.target("worker", 0))
        sess0.run(train0)
    thread.join(10)
    assert "error" not in out, out.get("error")
    assert out["value"].run(step1) == 1


def test_workers_wait_example(capsys):
    from flowloom.examples import seeds, workers_wait

    assert workers_wait.workers_wait_for_the_chief in seeds.ALL
    workers_wait.workers_wait_for_the_chief()
    assert capsys.readouterr().out.split("\n")[:-1] == [
        "counter in GLOBAL_VARIABLES: the chief is ready at global step 0",
        "  worker 1: DeadlineExceededError: Session was not ready after waiting 0.5 secs.",
        "counter in LOCAL_VARIABLES: the chief is ready at global step 0",
        "  worker 1 is ready at global step 0"]
