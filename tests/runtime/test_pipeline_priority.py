"""Queue runner threads run at a lower OS priority than the step's threads (runtime/handoff.py),
and the shared workers the step uses never inherit it."""

import os
import sys
import threading

import numpy as np
import pytest

import flowloom as tf
from flowloom.runtime import handoff

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="per-thread nice values are Linux's")


def _nice(thread):
    return os.getpriority(os.PRIO_PROCESS, thread.native_id)


def _runner_nice(monkeypatch, value, enqueue=None):
    """The nice value a queue runner thread runs at, with FLOWLOOM_PIPELINE_NICE=`value`."""
    if value is None:
        monkeypatch.delenv("FLOWLOOM_PIPELINE_NICE", raising=False)
    else:
        monkeypatch.setenv("FLOWLOOM_PIPELINE_NICE", value)
    seen = []
    with tf.Graph().as_default():
        q = tf.FIFOQueue(4, [tf.float32])
        probe = tf.py_func(lambda: seen.append(
            os.getpriority(os.PRIO_PROCESS, threading.get_native_id())) or np.float32(1),
            [], tf.float32)
        runner = tf.train.QueueRunner(q, [q.enqueue([enqueue() if enqueue else probe])])
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = runner.create_threads(sess, coord=coord, start=True)
            sess.run(q.dequeue())
            coord.request_stop()
            sess.run(q.close(cancel_pending_enqueues=True))
            coord.join(threads)
    return seen


def test_a_runner_thread_raises_its_nice_value_by_ten_and_the_main_thread_keeps_its_own():
    base = _nice(threading.main_thread())
    seen = []

    def body(monkeypatch):
        seen.extend(_runner_nice(monkeypatch, None))
    with pytest.MonkeyPatch.context() as mp:
        body(mp)
    assert seen and seen[0] == min(19, base + 10)
    assert _nice(threading.main_thread()) == base


def test_flowloom_pipeline_nice_sets_the_step_and_zero_or_garbage_leaves_runners_alone(
        monkeypatch):
    base = _nice(threading.main_thread())
    assert _runner_nice(monkeypatch, "3")[0] == min(19, base + 3)
    assert _runner_nice(monkeypatch, "0")[0] == base
    assert _runner_nice(monkeypatch, "lots")[0] == base
    monkeypatch.setenv("FLOWLOOM_PIPELINE_NICE", "40")
    assert handoff.pipeline_nice() == 19


def test_the_main_thread_is_never_lowered(monkeypatch):
    monkeypatch.delenv("FLOWLOOM_PIPELINE_NICE", raising=False)
    base = _nice(threading.main_thread())
    handoff.prepare_lowered_threads()
    assert handoff.lower_this_thread() is False
    assert _nice(threading.main_thread()) == base


def _in_a_lowered_thread(monkeypatch, start_child):
    """Runs a thread that lowers itself and starts a child with `start_child(thread)`;
    {lowered, again, self, child: nice value, error}."""
    monkeypatch.delenv("FLOWLOOM_PIPELINE_NICE", raising=False)
    assert handoff.prepare_lowered_threads()
    got = {}

    def child():
        got["child"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    def lowered():
        got["lowered"] = handoff.lower_this_thread()
        got["again"] = handoff.lower_this_thread()  # once per thread
        got["self"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        t = threading.Thread(target=child)
        start_child(t)
        t.join()
        try:
            handoff.start_thread(t)  # started twice
        except RuntimeError as e:
            got["error"] = str(e)
    t = threading.Thread(target=lowered)
    t.start()
    t.join()
    return got


def test_a_thread_a_lowered_thread_starts_itself_inherits_its_priority(monkeypatch):
    # (why start_thread exists) and start_thread passes the starter's error back
    base = _nice(threading.main_thread())
    got = _in_a_lowered_thread(monkeypatch, lambda t: t.start())
    assert got["lowered"] is True and got["again"] is False
    assert got["self"] == got["child"] == min(19, base + 10)
    assert "once" in got["error"]


def test_a_child_started_through_the_starter_keeps_the_process_priority(monkeypatch):
    base = _nice(threading.main_thread())
    got = _in_a_lowered_thread(monkeypatch, handoff.start_thread)
    assert got["self"] == min(19, base + 10)
    assert got["child"] == base


def test_the_kernels_pool_and_inter_op_workers_are_never_lowered_by_a_runner(monkeypatch):
    # A runner whose enqueue is big enough for the kernels' pool, and a two-device step run
    # after it: every shared worker keeps the process's priority.
    from flowloom.ops.nn import kernel_threads

    base = _nice(threading.main_thread())
    big = lambda: tf.reduce_sum(tf.nn.conv2d(  # noqa: E731
        tf.ones([8, 64, 64, 16]), tf.ones([3, 3, 16, 16]), [1, 1, 1, 1], "SAME"))
    _runner_nice(monkeypatch, None, enqueue=big)
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            a = tf.constant(1.0) + 1
        with tf.device("/cpu:1"):
            b = a * 2
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
            assert sess.run(b) == 4.0
    workers = [t for t in threading.enumerate()
               if t.name.startswith(("flowloom-kernels", "flowloom-inter-op",
                                     "flowloom-thread-starter"))]
    if kernel_threads.POOL is not None:
        assert sum(t.name.startswith("flowloom-kernels") for t in workers) == \
            kernel_threads.WORKERS
    assert workers and all(_nice(t) == base for t in workers), \
        [(t.name, _nice(t)) for t in workers]
