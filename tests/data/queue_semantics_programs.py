"""Queue-kernel semantics programs that run unchanged on TensorFlow 1.x and on flowloom.

Each `prog_*` takes the `tf` module and returns a JSON-able dict of what it observed: queue
sizes as blocked attempts advance, which waiters completed, error classes and first message
lines. `record_pipelines.py` runs them on TF 1.15 (FLOWLOOM_TF1_PYTHON) and stores the
results in queue_semantics_tf.json; tests/input_pipelines/test_against_tf.py runs
them on flowloom. Written for Python 3.7 (the TF 1.15 interpreter) as well.
"""

import threading
import time

import numpy as np


def _v(x):
    x = np.asarray(x)
    return x.tolist()


def _err(tf, fn):
    """The value `fn()` returns (as lists), or [error class, first line of its message]."""
    try:
        out = fn()
    except tf.errors.OpError as e:
        return [type(e).__name__, e.message.split("\n")[0]]
    if isinstance(out, (list, tuple)):
        return [_v(v) for v in out]
    return None if out is None else _v(out)


def _wait_for(cond, limit=5.0):
    end = time.time() + limit
    while not cond() and time.time() < end:
        time.sleep(0.01)


def _thread(target):
    t = threading.Thread(target=target)
    t.daemon = True
    t.start()
    return t


def prog_big_enqueue_many(tf):
    """An enqueue_many of 10 into a queue of capacity 5 refills each freed slot before the
    dequeue that freed it returns (the size stays 5 until the batch is in)."""
    r = {}
    with tf.Graph().as_default():
        q = tf.FIFOQueue(5, tf.int32, ((),))
        enq = q.enqueue_many((list(range(1, 11)),))
        deq = q.dequeue()
        size = q.size()
        with tf.Session() as sess:
            done = []
            t = _thread(lambda: (sess.run(enq), done.append(True)))
            _wait_for(lambda: sess.run(size) == 5)
            sizes, values = [], []
            for _ in range(5):
                values.append(int(sess.run(deq)))
                sizes.append(int(sess.run(size)))
            t.join(5)
            r["enqueue_done"] = bool(done)
            for _ in range(5):
                values.append(int(sess.run(deq)))
                sizes.append(int(sess.run(size)))
            r["sizes"] = sizes
            r["values"] = values
    return r


def prog_close_behind_enqueue(tf):
    """close() without cancel_pending_enqueues waits behind a blocked enqueue, which then
    completes; closing twice, enqueuing after close, close(cancel) of a closed queue."""
    r = {}
    with tf.Graph().as_default():
        q = tf.FIFOQueue(4, tf.float32)
        fill = q.enqueue_many(([10.0, 20.0, 30.0, 40.0],))
        blocked_enq = q.enqueue((50.0,))
        blocked_many = q.enqueue_many(([60.0, 70.0],))
        close = q.close()
        close_cancel = q.close(cancel_pending_enqueues=True)
        deq = q.dequeue()
        with tf.Session() as sess:
            sess.run(fill)
            log = []

            def run(name, op):
                r[name] = _err(tf, lambda: sess.run(op))
                log.append(name)

            t1 = _thread(lambda: run("enqueue", blocked_enq))
            time.sleep(0.3)
            t2 = _thread(lambda: run("enqueue_many", blocked_many))
            time.sleep(0.3)
            t3 = _thread(lambda: run("close", close))
            time.sleep(0.3)
            r["closed_while_enqueues_wait"] = bool(sess.run(q.is_closed()))
            r["done_before_dequeue"] = sorted(log)
            got = []
            for _ in range(3):
                got.append(float(sess.run(deq)))
            for t in (t1, t2, t3):
                t.join(5)
            r["done"] = sorted(log)
            r["closed"] = bool(sess.run(q.is_closed()))
            r["drained"] = got + [_err(tf, lambda: sess.run(deq)) for _ in range(5)]
            r["close_again"] = _err(tf, lambda: sess.run(close))
            r["close_cancel_again"] = _err(tf, lambda: sess.run(close_cancel))
            r["enqueue_after_close"] = _err(tf, lambda: sess.run(blocked_enq))
            r["empty_enqueue_many_after_close"] = _err(
                tf, lambda: sess.run(q.enqueue_many((np.zeros([0], np.float32),))))
    return r


def prog_cancel_pending_enqueues(tf):
    """close(cancel_pending_enqueues=True) fails a blocked enqueue_many that had put part of
    its batch in; a plain close queued behind it fails with it."""
    r = {}
    with tf.Graph().as_default():
        q = tf.FIFOQueue(3, tf.int32, shapes=[()])
        many = q.enqueue_many(([1, 2, 3, 4, 5],))
        close = q.close()
        cancel = q.close(cancel_pending_enqueues=True)
        with tf.Session() as sess:
            t1 = _thread(lambda: r.__setitem__("enqueue_many", _err(tf, lambda: sess.run(many))))
            _wait_for(lambda: sess.run(q.size()) == 3)
            t2 = _thread(lambda: r.__setitem__("close", _err(tf, lambda: sess.run(close))))
            time.sleep(0.3)
            r["cancel"] = _err(tf, lambda: sess.run(cancel))
            t1.join(5)
            t2.join(5)
            r["left"] = _err(tf, lambda: sess.run(q.dequeue_up_to(10)))
    return r


def prog_shared_queue_errors(tf):
    """A second handle op of a shared queue asking for other attrs fails when it runs."""
    r = {}
    with tf.Graph().as_default():
        pairs = {
            "capacity": (tf.FIFOQueue(10, tf.float32, shared_name="a"),
                         tf.FIFOQueue(15, tf.float32, shared_name="a")),
            "types": (tf.FIFOQueue(10, tf.float32, shared_name="b"),
                      tf.FIFOQueue(10, tf.int32, shared_name="b")),
            "shapes_none_some": (tf.FIFOQueue(10, tf.float32, shared_name="c"),
                                 tf.FIFOQueue(10, tf.float32, shapes=[(1, 2)],
                                              shared_name="c")),
            "shapes_some_none": (tf.FIFOQueue(10, tf.float32, shapes=[(1, 2)], shared_name="d"),
                                 tf.FIFOQueue(10, tf.float32, shared_name="d")),
            "shapes_differ": (tf.FIFOQueue(10, tf.float32, shapes=[(1, 2)], shared_name="e"),
                              tf.FIFOQueue(10, tf.float32, shapes=[(1, 3)], shared_name="e")),
            "two_types": (tf.FIFOQueue(10, tf.float32, shared_name="f"),
                          tf.FIFOQueue(10, (tf.float32, tf.int32), shared_name="f")),
            "min_after_dequeue": (tf.RandomShuffleQueue(10, 5, tf.float32, shared_name="g"),
                                  tf.RandomShuffleQueue(10, 4, tf.float32, shared_name="g")),
            "seeds": (tf.RandomShuffleQueue(10, 5, tf.float32, seed=12, shared_name="h"),
                      tf.RandomShuffleQueue(10, 5, tf.float32, seed=13, shared_name="h")),
            "seed_unset": (tf.RandomShuffleQueue(10, 5, tf.float32, seed=12, shared_name="i"),
                           tf.RandomShuffleQueue(10, 5, tf.float32, shared_name="i")),
            "padding_shapes": (tf.PaddingFIFOQueue(10, tf.float32, [(None, 2)], shared_name="j"),
                               tf.PaddingFIFOQueue(10, tf.float32, [(None, 3)],
                                                   shared_name="j")),
            "priority_types": (tf.PriorityQueue(10, [tf.float32], [()], shared_name="k"),
                               tf.PriorityQueue(10, [tf.int32], [()], shared_name="k")),
            "same": (tf.FIFOQueue(10, tf.float32, shapes=[(2,)], shared_name="l"),
                     tf.FIFOQueue(10, tf.float32, shapes=[(2,)], shared_name="l")),
        }
        with tf.Session() as sess:
            for name in sorted(pairs):
                first, second = pairs[name]
                sess.run(first.queue_ref.op)
                r[name] = _err(tf, lambda: sess.run(second.queue_ref.op))
    return r


def prog_dequeue_many_shapes(tf):
    """DequeueMany/DequeueUpTo need queues with shapes, even for n = 0."""
    r = {}
    with tf.Graph().as_default():
        fifo = tf.FIFOQueue(10, tf.float32)
        shuffle = tf.RandomShuffleQueue(10, 0, tf.float32)
        shaped = tf.FIFOQueue(10, [tf.float32, tf.int32], shapes=[(2, 3), ()])
        with tf.Session() as sess:
            sess.run(fifo.enqueue((1.0,)))
            sess.run(shuffle.enqueue((1.0,)))
            for name, q in (("fifo", fifo), ("shuffle", shuffle)):
                for n in (0, 1):
                    r["%s_many_%d" % (name, n)] = _err(tf, lambda: sess.run(q.dequeue_many(n)))
                    r["%s_up_to_%d" % (name, n)] = _err(tf,
                                                        lambda: sess.run(q.dequeue_up_to(n)))
            r["shaped_many_0"] = [list(np.shape(v)) for v in sess.run(shaped.dequeue_many(0))]
            sess.run(shaped.close())
            r["shaped_closed_many_0"] = [list(np.shape(v))
                                         for v in sess.run(shaped.dequeue_up_to(0))]
    return r


def prog_closed_partial_dequeue(tf):
    """A dequeue_many that took part of its batch when the queue closed puts it back and
    fails naming what it still wanted; dequeue_up_to then gets those elements."""
    r = {}
    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, tf.int32, shapes=[()])
        many = q.dequeue_many(4)
        with tf.Session() as sess:
            t = _thread(lambda: r.__setitem__("dequeue_many", _err(tf, lambda: sess.run(many))))
            time.sleep(0.3)
            sess.run(q.enqueue_many(([1, 2],)))
            time.sleep(0.2)
            r["size_while_waiting"] = int(sess.run(q.size()))
            sess.run(q.close())
            t.join(5)
            r["size_after"] = int(sess.run(q.size()))
            r["up_to"] = _err(tf, lambda: sess.run(q.dequeue_up_to(4)))
            r["up_to_empty"] = _err(tf, lambda: sess.run(q.dequeue_up_to(4)))
            r["dequeue_empty"] = _err(tf, lambda: sess.run(q.dequeue()))
    return r


def prog_failing_run_cancels_its_dequeue(tf):
    """A run whose other op fails cancels its own blocked dequeue and ends with that error;
    the queue serves later runs normally."""
    r = {}
    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, [tf.int32], shapes=[()])
        a = q.dequeue()
        b = tf.Assert(False, ["Before enqueue"])
        with tf.control_dependencies([b]):
            c = q.enqueue(33)
        with tf.Session() as sess:
            out = []
            t = _thread(lambda: out.append(_err(tf, lambda: sess.run([a, c]))))
            t.join(10)
            if not out:
                r["run"] = "hung"  # closing the session releases it
                return r
            r["run"] = [out[0][0], "Before enqueue" in out[0][1]]
            sess.run(q.enqueue(7))
            r["later"] = int(sess.run(a))
    return r


def prog_get_attr_strings(tf):
    """Operation.get_attr gives string attrs (and lists of them) as bytes."""
    with tf.Graph().as_default():
        q = tf.FIFOQueue(3, tf.float32, shared_name="shared")
        with tf.container("test"):
            q2 = tf.FIFOQueue(3, tf.float32)
            v = tf.Variable(1.0, name="v")
        with tf.colocate_with(v):
            c = tf.identity(v)
        x = tf.placeholder(tf.float32, [1, 4, 4, 1])
        pool = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 1, 1, 1], "SAME")
        out = []
        for op, name in ((q.queue_ref.op, "container"), (q.queue_ref.op, "shared_name"),
                         (q2.queue_ref.op, "container"), (v.op, "container"),
                         (c.op, "_class"), (pool.op, "padding"), (pool.op, "data_format"),
                         (pool.op, "ksize")):
            value = op.get_attr(name)
            items = value if isinstance(value, list) else [value]
            out.append([name, [type(i).__name__ for i in items],
                        [i.decode() if isinstance(i, bytes) else i for i in items]])
    return {"attrs": out}


def prog_enqueue_and_dequeue_in_one_run(tf):
    """Blocking ops of one run that wake each other: TF's queue kernels wait without holding a
    thread, so the dequeue of a step waits while the step's enqueue fills its queue."""
    r = {}
    g = tf.Graph()
    with g.as_default():
        opts = tf.RunOptions(timeout_in_ms=5000)
        q = tf.FIFOQueue(10, tf.float32, shapes=[()])
        d, e = q.dequeue(), q.enqueue(3.0)
        dm, em = q.dequeue_many(3), q.enqueue_many([[1.0, 2.0, 4.0]])
        a, b = tf.FIFOQueue(2, tf.int32, shapes=[()]), tf.FIFOQueue(2, tf.int32, shapes=[()])
        # Each queue's dequeue feeds the other's enqueue: b waits for a's enqueue of 5.
        da, db = a.dequeue(), b.dequeue()
        ea, eb = a.enqueue(5), b.enqueue(da + 1)
        closed = tf.FIFOQueue(2, tf.float32, shapes=[()])
        close = closed.close()
        e_closed = closed.enqueue(1.0)
        with tf.Session() as sess:
            r["dequeue_enqueue"] = _err(tf, lambda: sess.run([d, e], options=opts))
            r["many"] = _err(tf, lambda: sess.run([dm, em], options=opts))
            r["chain"] = _err(tf, lambda: sess.run([db, ea, eb], options=opts))
            r["two_waits_time_out"] = _err(
                tf, lambda: sess.run([d, dm], options=tf.RunOptions(timeout_in_ms=300)))
            sess.run(close)
            # The enqueue fails at once (closed); the step ends, its waiting dequeue with it.
            r["failing_enqueue"] = _err(tf, lambda: sess.run([d, e_closed], options=opts))
            r["size_after"] = _v(sess.run(q.size()))
    return r


PROGRAMS = [prog_big_enqueue_many, prog_close_behind_enqueue, prog_cancel_pending_enqueues,
            prog_shared_queue_errors, prog_dequeue_many_shapes, prog_closed_partial_dequeue,
            prog_failing_run_cancels_its_dequeue, prog_get_attr_strings,
            prog_enqueue_and_dequeue_in_one_run]
