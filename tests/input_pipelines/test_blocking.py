"""Blocking queue ops: waits that give back the inter-op limit, deadlines, shared queues.

Every wait here is bounded (timeouts, joins with a limit) so a regression fails, not hangs.
"""

import threading

import numpy as np
import pytest

import flowloom as tf


def _in_thread(fn):
    out = {}

    def target():
        try:
            out["value"] = fn()
        except Exception as e:  # noqa: BLE001 - handed to the test
            out["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, out


def test_partitioned_dequeue_releases_inter_op_slot():
    # One inter-op slot, two devices: a dequeue blocked on /cpu:1 must not keep the enqueue
    # (another partitioned run, from another thread) from running.
    config = tf.ConfigProto(device_count={"CPU": 2}, inter_op_parallelism_threads=1)
    with tf.Graph().as_default():
        q = tf.FIFOQueue(4, tf.float32, shapes=[()])
        with tf.device("/cpu:1"):
            got = q.dequeue() * 2.0
        with tf.device("/cpu:1"):
            v = tf.constant(3.0) + 1.0
        enq = q.enqueue(v)
        with tf.Session(config=config) as sess:
            t, out = _in_thread(lambda: sess.run(got))
            t.join(0.2)
            assert t.is_alive()
            sess.run(enq)
            t.join(10)
            assert not t.is_alive()
            assert out == {"value": 8.0}


def test_dequeue_many_larger_than_capacity_fills_incrementally():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(2, tf.int32, shapes=[()])
        x = tf.placeholder(tf.int32, [None])
        enq = q.enqueue_many(x)
        batch = q.dequeue_many(5)
        with tf.Session() as sess:
            t, out = _in_thread(lambda: sess.run(batch))
            sess.run(enq, {x: [1, 2, 3, 4, 5, 6]})
            t.join(10)
            assert out["value"].tolist() == [1, 2, 3, 4, 5]
            assert sess.run(q.size()) == 1


def test_operation_timeout_from_config():
    config = tf.ConfigProto(operation_timeout_in_ms=100)
    with tf.Graph().as_default():
        q = tf.FIFOQueue(1, tf.int32, shapes=[()])
        d = q.dequeue()
        with tf.Session(config=config) as sess:
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run(d)
            # The deadline ends with the run: the next run waits again for a value.
            sess.run(q.enqueue(4))
            assert sess.run(d) == 4


def test_op_timeout_attr_bounds_the_wait():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(1, tf.int32, shapes=[()])
        from flowloom.framework.apply_op import apply_op

        d = apply_op("QueueDequeueV2", (q.queue_ref,), component_types=[tf.int32],
                     timeout_ms=50).outputs[0]
        with tf.Session() as sess:
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run(d)


def test_shared_name_within_a_session_and_type_check():
    with tf.Graph().as_default():
        q1 = tf.FIFOQueue(3, tf.int32, shapes=[()], shared_name="shared_q")
        q2 = tf.FIFOQueue(3, tf.int32, shapes=[()], shared_name="shared_q")
        bad = tf.FIFOQueue(3, tf.float32, shapes=[()], shared_name="shared_q")
        with tf.Session() as sess:
            sess.run(q1.enqueue(11))
            assert sess.run(q2.dequeue()) == 11
            with pytest.raises(tf.errors.InvalidArgumentError, match="component types"):
                sess.run(bad.size())
        # Another session has its own queues (TF's DirectSession).
        with tf.Session() as sess:
            assert sess.run(q2.size()) == 0


def test_blocked_runs_from_many_threads_all_end_on_session_close():
    with tf.Graph().as_default():
        empty = tf.FIFOQueue(1, tf.int32, shapes=[()])
        full = tf.FIFOQueue(1, tf.int32, shapes=[()])
        d = empty.dequeue_many(2)
        e = full.enqueue(1)
        sess = tf.Session()
        sess.run(e)
        waiters = [_in_thread(lambda f=(d if i % 2 else e): sess.run(f)) for i in range(6)]
        for t, _ in waiters:
            t.join(0.05)
        sess.close()
        for t, out in waiters:
            t.join(10)
            assert not t.is_alive()
        errors = [type(out.get("error")).__name__ for _, out in waiters]
        assert errors == ["CancelledError"] * 6


def test_named_components_and_from_list():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(3, [tf.int32, tf.float32], shapes=[[], [2]], names=["a", "b"])
        enq = q.enqueue({"a": 1, "b": [2.0, 3.0]})
        out = q.dequeue()
        assert sorted(out) == ["a", "b"]
        qa = tf.FIFOQueue(2, tf.int32, shapes=[()])
        qb = tf.FIFOQueue(2, tf.int32, shapes=[()])
        idx = tf.placeholder(tf.int32, [])
        chosen = tf.QueueBase.from_list(idx, [qa, qb])
        with tf.Session() as sess:
            sess.run(enq)
            got = sess.run(out)
            assert got["a"] == 1 and np.allclose(got["b"], [2, 3])
            sess.run(qb.enqueue(5))
            assert sess.run(chosen.dequeue(), {idx: 1}) == 5


def test_reader_waiting_for_work_ends_on_session_close():
    with tf.Graph().as_default():
        filenames = tf.FIFOQueue(4, tf.string, shapes=[()])
        key, value = tf.TextLineReader().read(filenames)
        sess = tf.Session()
        t, out = _in_thread(lambda: sess.run(value))
        t.join(0.2)
        assert t.is_alive()
        sess.close()
        t.join(10)
        assert not t.is_alive()
        assert isinstance(out.get("error"), tf.errors.CancelledError)


def test_monitored_session_exits_with_runner_threads_blocked_on_a_full_queue():
    # The producer fills its queue (capacity 2) and blocks; leaving the block cancels it.
    import time

    with tf.Graph().as_default():
        tf.train.get_or_create_global_step()
        q = tf.train.range_input_producer(1000, capacity=2, shuffle=False)
        x = q.dequeue()
        before = set(threading.enumerate())
        start = time.time()
        with tf.train.MonitoredSession() as sess:
            assert sess.run(x) == 0
            time.sleep(0.2)  # the runner thread is now blocked in its enqueue
        assert time.time() - start < 30
        left = [t for t in set(threading.enumerate()) - before
                if t.is_alive() and not t.name.startswith("flowloom-")]  # (pool workers stay)
        assert not left, left


def test_only_runs_whose_blocking_ops_are_independent_get_a_thread_each():
    # A reader's read feeding an enqueue waits in order (the queue runner's run stays on the
    # calling thread); a dequeue beside the enqueue that feeds it needs one thread each.
    from flowloom.runtime import blocking
    from flowloom.runtime.pruning import prune

    with tf.Graph().as_default():
        files = tf.train.string_input_producer(["a.txt"])
        _, line = tf.TextLineReader().read(files)
        q = tf.FIFOQueue(4, tf.string, shapes=[()])
        enqueue_line = q.enqueue(line)
        assert not blocking.independent_waits(prune([enqueue_line], set()))
        dequeue, enqueue = q.dequeue(), q.enqueue("x")
        assert blocking.independent_waits(prune([dequeue.op, enqueue], set()))
        with tf.control_dependencies([enqueue]):
            after = tf.identity(q.dequeue())
        assert not blocking.independent_waits(prune([after.op], set()))
        with tf.Session() as sess:
            assert sess.run(after) == b"x"
