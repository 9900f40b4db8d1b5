"""A run whose op fails ends with that error while another of its ops waits on a queue: on one
thread the ops that do not depend on a blocking op run first (runtime/pruning.py); across
devices the failing partition cancels the run's waits (its blocking.Cancellation). TF 1.15
gives InvalidArgumentError for both (fifo_queue_test testDequeueEnqueueFail; recorded in
tests/data/queue_semantics_tf.json)."""

import threading

import pytest

import flowloom as tf
from flowloom.runtime import blocking
from flowloom.runtime.pruning import prune


def _run_in_thread(fn, seconds=20):
    out = []

    def target():
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - the test looks at it
            out.append(e)

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert out, "the run hung"
    return out[0]


def test_blocking_ops_ordered_after_independent_ones():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, tf.int32, shapes=[()])
        a = q.dequeue()
        b = tf.identity(tf.constant(1), name="independent")
        after = tf.identity(a, name="after_dequeue")
        order = prune([after.op, a.op, b.op], set())
        names = [op.name for op in order]
        assert names.index("independent") < names.index(a.op.name) < names.index("after_dequeue")


def test_failing_op_ends_run_with_blocked_dequeue_one_device():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, tf.int32, shapes=[()])
        a = q.dequeue()
        b = tf.Assert(False, ["Before enqueue"])
        with tf.control_dependencies([b]):
            c = q.enqueue(33)
        with tf.Session() as sess:
            err = _run_in_thread(lambda: sess.run([a, c]))
            assert isinstance(err, tf.errors.InvalidArgumentError)
            assert "Before enqueue" in str(err)
            sess.run(q.enqueue(5))
            assert sess.run(a) == 5  # nothing of the failed run waits in the queue


def test_failing_partition_cancels_blocked_dequeue_on_other_device():
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            q = tf.FIFOQueue(10, tf.int32, shapes=[()])
            a = q.dequeue()
        with tf.device("/cpu:1"):
            x = tf.placeholder(tf.float32)
            bad = tf.check_numerics(x, "bad value")
        config = tf.ConfigProto(device_count={"CPU": 2})
        with tf.Session(config=config) as sess:
            for _ in range(2):  # once on the worker threads, once after a plan switch
                err = _run_in_thread(lambda: sess.run([a, bad], {x: float("nan")}))
                assert isinstance(err, tf.errors.InvalidArgumentError), err
                assert "bad value" in str(err)
            sess.run(q.enqueue(5))
            assert sess.run(a) == 5


@pytest.mark.parametrize("which", ["run", "parent"])
def test_run_cancellation_wakes_a_wait(which):
    cond = threading.Condition()
    session_wide = blocking.Cancellation()
    run = blocking.Cancellation(parent=session_wide)
    got = []

    def waiter(cancellation):
        try:
            with blocking.cancellable(cancellation), cond:
                blocking.wait_until(cond, lambda: False)
        except tf.errors.CancelledError as e:
            got.append(e)

    t = threading.Thread(target=waiter, args=(run,), daemon=True)
    t.start()
    t.join(0.2)
    assert t.is_alive()
    (run if which == "run" else session_wide).cancel("stop")
    t.join(5)
    assert len(got) == 1 and "stop" in str(got[0])


if __name__ == "__main__":
    pytest.main([__file__])
