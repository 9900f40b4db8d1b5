"""Input-pipeline programs that run unchanged on TensorFlow 1.x and on flowloom.

Each `prog_*` takes the `tf` module and returns a JSON-able dict of what it observed (values in
dequeue order, the step at which OutOfRangeError came, error classes and messages, op types
and names). `record_pipelines.py` runs them on TF 1.15 (FLOWLOOM_TF1_PYTHON) and stores the
results in pipelines_tf.json; tests/data_pipelines/test_against_tf.py runs them on flowloom.
Written for Python 3.7 (the TF 1.15 interpreter) as well.
"""

import threading
import time

import numpy as np


def _v(x):
    x = np.asarray(x)
    if x.dtype == object or x.dtype.kind == "S":
        return [b.decode() if isinstance(b, bytes) else b for b in x.ravel().tolist()]
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


def _drain(tf, sess, t, limit=100):
    """Runs `t` until OutOfRangeError; returns (values, number of successful steps)."""
    out = []
    for _ in range(limit):
        try:
            out.append(_v(sess.run(t)))
        except tf.errors.OutOfRangeError:
            return out
    return out + ["no OutOfRangeError"]


def prog_fifo_queue(tf):
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(5, [tf.int32, tf.string], shapes=[[], [2]])
        enq = q.enqueue_many(([1, 2, 3, 4, 5], [[b"a", b"b"]] * 5))
        one = q.enqueue((9, [b"x", b"y"]))
        x, s = q.dequeue()
        many = q.dequeue_many(2)
        up_to = q.dequeue_up_to(2)
        size = q.size()
        closed = q.is_closed()
        close = q.close()
        r = {"ops": [(op.type, op.name) for op in g.get_operations()],
             "shapes": [str(t.shape) for t in [x, s, many[0], many[1], up_to[0]]]}
        with tf.Session() as sess:
            sess.run(enq)
            r["size"] = int(sess.run(size))
            r["first"] = [_v(v) for v in sess.run([x, s])]
            r["many"] = [_v(v) for v in sess.run(many)]
            sess.run(one)
            r["closed_before"] = bool(sess.run(closed))
            sess.run(close)
            r["closed_after"] = bool(sess.run(closed))
            r["enqueue_closed"] = _err(tf, lambda: sess.run(one))
            r["many_short"] = _err(tf, lambda: sess.run(many[0]))
            r["up_to"] = _err(tf, lambda: sess.run(up_to))
            r["up_to_rest"] = _err(tf, lambda: sess.run(up_to))
            r["empty"] = _err(tf, lambda: sess.run(x))
            r["up_to_empty"] = _err(tf, lambda: sess.run(up_to))
    return r


def prog_random_shuffle_seeds(tf):
    r = {}
    for seed in (1, 7, 12345):
        g = tf.Graph()
        with g.as_default():
            q = tf.RandomShuffleQueue(20, 3, tf.int32, shapes=[()], seed=seed)
            enq = q.enqueue_many((list(range(20)),))
            d = q.dequeue()
            dm = q.dequeue_many(4)
            close = q.close()
            with tf.Session() as sess:
                sess.run(enq)
                got = [_v(sess.run(d)) for _ in range(5)] + [_v(sess.run(dm))]
                sess.run(close)
                got.append(_drain(tf, sess, d))
                r[str(seed)] = got
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(42)
        q = tf.RandomShuffleQueue(10, 0, tf.int32, shapes=[()])
        enq = q.enqueue_many((list(range(10)),))
        d = q.dequeue_up_to(4)
        close = q.close()
        with tf.Session() as sess:
            sess.run(enq)
            sess.run(close)
            r["graph_seed"] = _drain(tf, sess, d)
            r["graph_seed_attrs"] = [q.queue_ref.op.get_attr("seed"),
                                     q.queue_ref.op.get_attr("seed2")]
    return r


def prog_random_shuffle_min_after_dequeue(tf):
    g = tf.Graph()
    with g.as_default():
        q = tf.RandomShuffleQueue(10, 4, tf.int32, shapes=[()], seed=3)
        enq = q.enqueue_many((list(range(6)),))
        d = q.dequeue()
        close = q.close()
        opts = tf.RunOptions(timeout_in_ms=300)
        with tf.Session() as sess:
            sess.run(enq)
            a = _v(sess.run(d))
            b = _v(sess.run(d))
            blocked = _err(tf, lambda: sess.run(d, options=opts))
            sess.run(close)
            return {"two": [a, b], "blocked": blocked, "rest": _drain(tf, sess, d)}


def prog_padding_fifo_queue(tf):
    g = tf.Graph()
    with g.as_default():
        q = tf.PaddingFIFOQueue(10, [tf.int32, tf.string], shapes=[[None], [None, 2]])
        p1 = tf.placeholder(tf.int32, [None])
        p2 = tf.placeholder(tf.string, [None, 2])
        enq = q.enqueue((p1, p2))
        dm = q.dequeue_many(3)
        d = q.dequeue()
        with tf.Session() as sess:
            for n in (1, 3, 2, 4):
                sess.run(enq, {p1: list(range(n)),
                               p2: np.array([[b"s", b"t"]] * (n % 3), dtype=object
                                            ).reshape(n % 3, 2)})
            return {"many": [_v(v) for v in sess.run(dm)],
                    "static": [str(t.shape) for t in dm],
                    "one": [_v(v) for v in sess.run(d)],
                    "bad_shape": _err(tf, lambda: sess.run(enq, {p1: [1], p2: [[b"a", b"b"]]})),
                    }


def prog_priority_queue(tf):
    g = tf.Graph()
    with g.as_default():
        q = tf.PriorityQueue(10, [tf.string], shapes=[[]])
        enq = q.enqueue_many(([5, 1, 9, 3], [b"five", b"one", b"nine", b"three"]))
        one = q.enqueue((2, b"two"))
        dm = q.dequeue_many(3)
        d = q.dequeue()
        with tf.Session() as sess:
            sess.run(enq)
            sess.run(one)
            return {"many": [_v(v) for v in sess.run(dm)],
                    "one": [_v(v) for v in sess.run(d)],
                    "ops": [op.type for op in g.get_operations()]}


def prog_queue_errors(tf):
    r = {}
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(2, tf.float32, shapes=[[2]])
        ph = tf.placeholder(tf.float32)
        enq = q.enqueue(ph)
        enq_many = q.enqueue_many(ph)
        d = q.dequeue()
        opts = tf.RunOptions(timeout_in_ms=200)
        with tf.Session() as sess:
            r["bad_shape"] = _err(tf, lambda: sess.run(enq, {ph: [1., 2., 3.]}))
            r["bad_many"] = _err(tf, lambda: sess.run(enq_many, {ph: [[1., 2., 3.]]}))
            r["timeout_dequeue"] = _err(tf, lambda: sess.run(d, options=opts))
            sess.run(enq_many, {ph: [[1., 2.], [3., 4.]]})
            r["timeout_enqueue"] = _err(tf, lambda: sess.run(enq, {ph: [5., 6.]},
                                                             options=opts))
            r["after_timeout"] = [_v(sess.run(d)), _v(sess.run(d))]
    return r


def prog_close_under_waiters(tf):
    """A dequeue blocked on an empty queue and an enqueue blocked on a full one, released by
    closing the queue, then by closing the session."""
    r = {}
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(1, tf.int32, shapes=[()])
        d = q.dequeue()
        enq = q.enqueue(7)
        close = q.close()
        close_cancel = q.close(cancel_pending_enqueues=True)
        sess = tf.Session()
        got = []

        def waiter(fetch):
            try:
                sess.run(fetch)
                got.append("ok")
            except tf.errors.OpError as e:
                got.append([type(e).__name__, e.message.split("\n")[0]])

        t = threading.Thread(target=waiter, args=(d,))
        t.start()
        time.sleep(0.3)
        sess.run(close)
        t.join(5)
        r["dequeue_on_close"] = got.pop() if got else "hung"
        sess.close()
        sess = tf.Session()
        sess.run(enq)
        t = threading.Thread(target=waiter, args=(enq,))
        t.start()
        time.sleep(0.3)
        sess.run(close_cancel)
        t.join(5)
        r["enqueue_on_cancel"] = got.pop() if got else "hung"
        sess.close()
        sess = tf.Session()
        sess.run(enq)
        threads = [threading.Thread(target=waiter, args=(f,)) for f in (enq,)]
        for t in threads:
            t.start()
        time.sleep(0.3)
        sess.close()
        for t in threads:
            t.join(5)
        r["enqueue_on_session_close"] = got.pop() if got else "hung"
        sess = tf.Session()
        t = threading.Thread(target=waiter, args=(d,))
        t.start()
        time.sleep(0.3)
        sess.close()
        t.join(5)
        r["dequeue_on_session_close"] = got.pop() if got else "hung"
    return r


PROGRAMS = [prog_fifo_queue, prog_random_shuffle_seeds, prog_random_shuffle_min_after_dequeue,
            prog_padding_fifo_queue, prog_priority_queue, prog_queue_errors,
            prog_close_under_waiters]
