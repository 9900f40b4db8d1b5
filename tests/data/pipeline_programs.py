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
            v = sess.run(t)
            out.append([_v(x) for x in v] if isinstance(v, (list, tuple)) else _v(v))
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


def prog_priority_queue_ties(tf):
    """Equal priorities come out in the order TF's heap leaves them; a dequeue_many waits
    for all it asks for before taking any (so a batch is sorted)."""
    import random
    rng = random.Random(5)
    out = {}
    for trial in range(4):
        g = tf.Graph()
        with g.as_default():
            q = tf.PriorityQueue(1000, [tf.int32], shapes=[[]])
            pri = tf.placeholder(tf.int64, [None])
            val = tf.placeholder(tf.int32, [None])
            enq = q.enqueue_many([pri, val])
            k = tf.placeholder(tf.int32, [])
            deq = q.dequeue_many(k)
            with tf.Session() as sess:
                order, counter = [], 0
                for _ in range(8):
                    n = rng.randint(1, 12)
                    sess.run(enq, {pri: [rng.randint(0, 3) for _ in range(n)],
                                   val: list(range(counter, counter + n))})
                    counter += n
                    m = rng.randint(0, n)
                    if m:
                        order.append(_v(sess.run(deq, {k: m})[1]))
                order.append(_v(sess.run(deq, {k: sess.run(q.size())})[1]))
        out["trial%d" % trial] = order
    g = tf.Graph()
    with g.as_default():
        q = tf.PriorityQueue(10, [tf.int32], shapes=[[]])
        enq = q.enqueue_many(([5, 6], [50, 60]))
        late = q.enqueue((1, 10))
        dm = q.dequeue_many(3)
        with tf.Session() as sess:
            sess.run(enq)
            got = []
            t = threading.Thread(target=lambda: got.append(_v(sess.run(dm)[1])))
            t.start()
            time.sleep(0.3)
            sess.run(late)
            t.join(10)
            out["waits_for_whole_batch"] = got
    return out


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
            prog_padding_fifo_queue, prog_priority_queue, prog_priority_queue_ties,
            prog_queue_errors, prog_close_under_waiters]


# -- readers, producers and batching ---------------------------------------------------------

def _files(tf, d):
    """Writes the small files the reader programs read into directory `d`."""
    import gzip
    import os
    for i in range(2):
        with open(os.path.join(d, "t%d.txt" % i), "w") as f:
            f.write("head\n" + "".join("r%d_%d\n" % (i, j) for j in range(3 + i)) +
                    ("tail-no-newline" if i else ""))
        with open(os.path.join(d, "b%d.bin" % i), "wb") as f:
            f.write(b"HDR" + bytes(range(40 * i, 40 * i + 17)) + b"FT")
        with gzip.open(os.path.join(d, "g%d.bin.gz" % i), "wb") as f:
            f.write(bytes(range(20 * i, 20 * i + 12)))
        opts = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)
        with tf.python_io.TFRecordWriter(os.path.join(d, "r%d.tfrecord" % i), opts) as w:
            for j in range(3 + i):
                w.write(("rec%d_%d" % (i, j)).encode() * (j + 1))
    return d


def _strip(d, x):
    if isinstance(x, str):
        return x.replace(d, "DIR")
    if isinstance(x, list):
        return [_strip(d, v) for v in x]
    if isinstance(x, dict):
        return {k: _strip(d, v) for k, v in x.items()}
    return x


def _read_all(tf, sess, fetch, limit=60):
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    out = []
    end = None
    try:
        for _ in range(limit):
            try:
                v = sess.run(fetch)
            except tf.errors.OpError as e:
                end = [type(e).__name__, e.message.split("\n")[0]]
                break
            out.append([_v(x) for x in v] if isinstance(v, (list, tuple)) else _v(v))
    finally:
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
    return {"values": out, "end": end}


def prog_readers(tf):
    import os
    import shutil
    import tempfile
    d = _files(tf, tempfile.mkdtemp())
    r = {}
    try:
        cases = {
            "text": (lambda: tf.TextLineReader(skip_header_lines=1), "t%d.txt", "read"),
            "fixed": (lambda: tf.FixedLengthRecordReader(record_bytes=4, header_bytes=3,
                                                         footer_bytes=2), "b%d.bin", "read"),
            "fixed_hop": (lambda: tf.FixedLengthRecordReader(record_bytes=5, header_bytes=3,
                                                             footer_bytes=2, hop_bytes=3),
                          "b%d.bin", "read"),
            "fixed_gzip": (lambda: tf.FixedLengthRecordReader(record_bytes=5,
                                                              encoding="GZIP"),
                           "g%d.bin.gz", "read"),
            "tfrecord": (lambda: tf.TFRecordReader(options=tf.python_io.TFRecordOptions(
                tf.python_io.TFRecordCompressionType.GZIP)), "r%d.tfrecord", "read"),
            "tfrecord_up_to": (lambda: tf.TFRecordReader(options=tf.python_io.TFRecordOptions(
                tf.python_io.TFRecordCompressionType.GZIP)), "r%d.tfrecord", "up_to"),
            "whole": (lambda: tf.WholeFileReader(), "t%d.txt", "read"),
            "identity": (lambda: tf.IdentityReader(), "t%d.txt", "read"),
        }
        for key in sorted(cases):
            make, pattern, how = cases[key]
            g = tf.Graph()
            with g.as_default():
                files = [os.path.join(d, pattern % i) for i in range(2)]
                q = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
                reader = make()
                if how == "read":
                    fetch = reader.read(q)
                else:
                    fetch = reader.read_up_to(q, 3)
                counts = [reader.num_records_produced(), reader.num_work_units_completed()]
                reset = reader.reset()
                with tf.Session() as sess:
                    sess.run(tf.local_variables_initializer())
                    got = _read_all(tf, sess, fetch)
                    got["counts"] = [int(c) for c in sess.run(counts)]
                    sess.run(reset)
                    got["after_reset"] = [int(c) for c in sess.run(counts)]
                    got["ops"] = sorted(set(op.type for op in g.get_operations()))
                r[key] = _strip(d, got)
    finally:
        shutil.rmtree(d)
    return r


def prog_reader_units_and_state(tf):
    """read_up_to stops at the end of a work unit that gave records; readers that read a
    unit whole finish it with its record; serialize_state / restore_state and their errors."""
    import os
    import shutil
    import tempfile
    d = tempfile.mkdtemp()
    r = {}
    try:
        paths = []
        for i in range(2):
            paths.append(os.path.join(d, "f%d.tfrecord" % i))
            with tf.python_io.TFRecordWriter(paths[-1]) as w:
                for j in range(5):
                    w.write(b"r%d_%d" % (i, j))
            with open(os.path.join(d, "t%d.txt" % i), "w") as f:
                f.write("".join("l%d_%d\n" % (i, j) for j in range(5)))
        readers = {"tfrecord": tf.TFRecordReader, "text": tf.TextLineReader,
                   "identity": tf.IdentityReader, "whole": tf.WholeFileReader}
        for kind in sorted(readers):
            g = tf.Graph()
            with g.as_default():
                names = [os.path.join(d, "t%d.txt" % i) for i in range(2)] \
                    if kind == "text" else paths
                q = tf.train.string_input_producer(names, shuffle=False, num_epochs=1)
                reader = readers[kind]()
                k, _ = reader.read_up_to(q, 3)
                units = reader.num_work_units_completed()
                got = []
                with tf.Session() as sess:
                    sess.run(tf.local_variables_initializer())
                    coord = tf.train.Coordinator()
                    threads = tf.train.start_queue_runners(sess, coord)
                    for _ in range(8):
                        try:
                            got.append([len(sess.run(k)), int(sess.run(units))])
                        except tf.errors.OutOfRangeError:
                            got.append("end")
                            break
                    coord.request_stop()
                    coord.join(threads)
                r["units_" + kind] = got
        g = tf.Graph()
        with g.as_default():
            q = tf.FIFOQueue(10, tf.string)
            enq = q.enqueue_many([["a", "bb", "ccc"]])
            reader = tf.IdentityReader(name="idr")
            k, v = reader.read(q)
            state = reader.serialize_state()
            ph = tf.placeholder(tf.string)
            restore = reader.restore_state(ph)
            counts = [reader.num_records_produced(), reader.num_work_units_completed()]
            other = tf.TFRecordReader(name="tfr")
            with tf.Session() as sess:
                sess.run(enq)
                r["s0"] = _v(sess.run(state).decode("latin-1"))
                sess.run(k)
                sess.run(k)
                r["s2"] = list(bytearray(sess.run(state)))
                r["whole"] = list(bytearray(sess.run(tf.WholeFileReader().serialize_state())))
                r["supports"] = [reader.supports_serialize, other.supports_serialize,
                                 tf.WholeFileReader().supports_serialize]
                r["tfr"] = _err(tf, lambda: sess.run(other.serialize_state()))
                r["tfr_restore"] = _err(tf, lambda: sess.run(other.restore_state("")))
                for name, data in [("bad", b"\xff\xff\n\"'"),
                                   ("negative", b"\x08" + b"\xff" * 9 + b"\x01"),
                                   ("in_progress", b"\x08\x05\x10\x02\x22\x02q\n"),
                                   ("ok", b"\x08\x07\x10\x07\x18\x09\x22\x02zz")]:
                    r[name] = _err(tf, lambda: sess.run(restore, {ph: data}))
                    r[name + "_counts"] = [int(c) for c in sess.run(counts)]
                    r[name + "_state"] = list(bytearray(sess.run(state)))
                r["next"] = _v(sess.run([k, v]))
                r["next_state"] = list(bytearray(sess.run(state)))
    finally:
        shutil.rmtree(d)
    return r


def prog_producers(tf):
    r = {}
    g = tf.Graph()
    with g.as_default():
        q = tf.train.range_input_producer(5, num_epochs=2, shuffle=False, capacity=4)
        x = q.dequeue()
        s = tf.train.slice_input_producer([tf.constant([10, 20, 30]),
                                           tf.constant([[1, 2], [3, 4], [5, 6]])],
                                          num_epochs=1, shuffle=False)
        r["summaries"] = [t.op.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]
        r["locals"] = [v.op.name for v in tf.local_variables()]
        r["runners"] = [qr.name for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]
        r["ops"] = [(op.type, op.name) for op in g.get_operations()]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            r["range"] = _read_all(tf, sess, x)
            r["slice"] = _read_all(tf, sess, s)
    g = tf.Graph()
    with g.as_default():
        q = tf.train.string_input_producer(["a", "b", "c", "d", "e"], num_epochs=2, seed=9)
        x = q.dequeue()
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            r["shuffled"] = _read_all(tf, sess, x)
    g = tf.Graph()
    with g.as_default():
        r["null"] = None
        try:
            tf.train.string_input_producer([])
        except ValueError as e:
            r["null"] = str(e)
    return r


def _run_enqueues_then_close(tf, sess):
    """Runs every queue runner's enqueue ops once on this thread, then closes the queues:
    the queues' contents (so a seeded shuffle's order) do not depend on thread timing."""
    for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):
        for op in qr.enqueue_ops:
            sess.run(op)
        sess.run(qr.close_op)


def prog_batching(tf):
    r = {}
    g = tf.Graph()
    with g.as_default():
        data = tf.constant(list(range(30)))
        labels = tf.constant([[i, -i] for i in range(30)])
        b = tf.train.shuffle_batch([data, labels], batch_size=7, capacity=40,
                                   min_after_dequeue=5, seed=11, enqueue_many=True,
                                   allow_smaller_final_batch=True)
        r["shapes"] = [str(t.shape) for t in b]
        r["summaries"] = [t.op.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]
        r["ops"] = [(op.type, op.name) for op in g.get_operations()]
        with tf.Session() as sess:
            _run_enqueues_then_close(tf, sess)
            r["shuffle_batch"] = _drain(tf, sess, b)
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(3)
        data = tf.constant(list(range(20)))
        b = tf.train.shuffle_batch({"x": data}, batch_size=6, capacity=30, min_after_dequeue=2,
                                   enqueue_many=True)
        r["dict_keys"] = sorted(b)
        with tf.Session() as sess:
            _run_enqueues_then_close(tf, sess)
            r["graph_seeded"] = _drain(tf, sess, b["x"])
    g = tf.Graph()
    with g.as_default():
        a = tf.constant([[1, 2], [3, 4], [5, 6]])
        lens = tf.constant([1, 2, 1])
        ragged = tf.placeholder(tf.int32, [None])
        b = tf.train.batch([ragged], batch_size=2, dynamic_pad=True, capacity=5,
                           allow_smaller_final_batch=True)
        j = tf.train.batch_join([[a], [a * 10]], batch_size=2, enqueue_many=True)
        keep = lens.shape
        mb = tf.train.maybe_batch([tf.constant([0, 1, 2, 3, 4, 5])],
                                  tf.constant([True, False, True, True, False, True]), 2,
                                  enqueue_many=True)
        r["batch_shapes"] = [str(b.shape), str(j.shape), str(mb.shape), str(keep)]
        with tf.Session() as sess:
            qr_pad = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)[0]
            for n in (1, 3, 2):
                sess.run(qr_pad.enqueue_ops[0], {ragged: list(range(1, n + 1))})
            sess.run(qr_pad.close_op)
            r["padded"] = _drain(tf, sess, b)
            for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)[1:]:
                for op in qr.enqueue_ops:
                    sess.run(op)
                sess.run(qr.close_op)
            r["join"] = _drain(tf, sess, j)
            r["maybe"] = _drain(tf, sess, mb)
    return r


def prog_coordinator(tf):
    r = {}
    coord = tf.train.Coordinator()

    def worker(kind):
        with coord.stop_on_exception():
            if kind == "bad":
                raise ValueError("boom from thread")
            while not coord.should_stop():
                time.sleep(0.01)

    threads = [threading.Thread(target=worker, args=(k,)) for k in ("ok", "bad", "ok")]
    for t in threads:
        t.start()
    try:
        coord.join(threads, stop_grace_period_secs=5)
        r["join"] = None
    except ValueError as e:
        r["join"] = ["ValueError", str(e)]
    r["should_stop"] = coord.should_stop()
    try:
        try:
            raise RuntimeError("after join")
        except RuntimeError as e:
            coord.request_stop(e)  # joined already: raised here (within its handler, as TF
            r["after_join"] = None  # re-raises the current exception)
    except RuntimeError as e:
        r["after_join"] = ["RuntimeError", str(e)]
    coord.clear_stop()
    r["cleared"] = [coord.should_stop(), coord.joined]
    coord.request_stop(tf.errors.OutOfRangeError(None, None, "end of data"))
    coord.join([], stop_grace_period_secs=1)
    r["out_of_range_is_clean"] = True
    coord = tf.train.Coordinator()
    r["wait_for_stop"] = coord.wait_for_stop(0.05)
    coord.request_stop()
    r["wait_after"] = coord.wait_for_stop(0.05)
    g = tf.Graph()
    with g.as_default():
        q = tf.FIFOQueue(5, tf.float32, shapes=[()])
        bad = tf.placeholder_with_default(tf.constant([1.0, 2.0]), [None])
        enq = q.enqueue(tf.reshape(bad, []))
        qr = tf.train.QueueRunner(q, [enq])
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = qr.create_threads(sess, coord=coord, start=True)
            r["runner_threads"] = len(threads)
            try:
                coord.join(threads, stop_grace_period_secs=5)
                r["runner_error"] = None
            except tf.errors.OpError as e:
                r["runner_error"] = [type(e).__name__, e.message.split("\n")[0]]
            r["queue_closed_by_cancel"] = bool(sess.run(q.is_closed()))
    return r


PROGRAMS += [prog_readers, prog_reader_units_and_state, prog_producers, prog_batching, prog_coordinator]


# -- the managed training loop ----------------------------------------------------------------

def _recorder_classes(tf, log):
    class Recorder(tf.train.SessionRunHook):
        def __init__(self, name, stop_at=None):
            self.name = name
            self.stop_at = stop_at

        def begin(self):
            log.append([self.name, "begin", tf.get_default_graph().finalized])

        def after_create_session(self, session, coord):
            log.append([self.name, "after_create_session", type(session).__name__,
                        type(coord).__name__,
                        int(session.run(tf.train.get_global_step()))])

        def before_run(self, run_context):
            fetches = run_context.original_args.fetches
            log.append([self.name, "before_run", type(fetches).__name__,
                        type(run_context.session).__name__])
            return tf.train.SessionRunArgs({"step": tf.train.get_global_step()})

        def after_run(self, run_context, run_values):
            step = int(run_values.results["step"])
            log.append([self.name, "after_run", step,
                        type(run_values.run_metadata).__name__])
            if self.stop_at is not None and step >= self.stop_at:
                run_context.request_stop()

        def end(self, session):
            log.append([self.name, "end", int(session.run(tf.train.get_global_step()))])

    class Listener(tf.train.CheckpointSaverListener):
        def begin(self):
            log.append(["listener", "begin"])

        def before_save(self, session, global_step_value):
            log.append(["listener", "before_save", int(global_step_value)])

        def after_save(self, session, global_step_value):
            log.append(["listener", "after_save", int(global_step_value)])

        def end(self, session, global_step_value):
            log.append(["listener", "end", int(global_step_value)])

    return Recorder, Listener


def _ckpt_names(tf, d):
    import os
    state = tf.train.get_checkpoint_state(d)
    if state is None:
        return None
    return [os.path.basename(p) for p in state.all_model_checkpoint_paths]


def prog_monitored_training_session(tf):
    import shutil
    import tempfile
    d = tempfile.mkdtemp()
    r = {}
    try:
        for run in ("first", "resumed"):
            log = []
            Recorder, Listener = _recorder_classes(tf, log)
            g = tf.Graph()
            with g.as_default():
                step = tf.train.get_or_create_global_step()
                w = tf.Variable(1.0, name="w")
                loss = w * w
                train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
                tf.summary.scalar("loss", loss)
                hooks = [Recorder("a"), tf.train.StopAtStepHook(last_step=5 if run == "first"
                                                                else 8), Recorder("b")]
                saver_hook = tf.train.CheckpointSaverHook(d, save_steps=2,
                                                          listeners=[Listener()])
                final = tf.train.FinalOpsHook([w, step])
                with tf.train.MonitoredTrainingSession(
                        checkpoint_dir=d, hooks=hooks, chief_only_hooks=[saver_hook, final],
                        save_checkpoint_secs=None, save_summaries_steps=3,
                        log_step_count_steps=2) as sess:
                    calls = 0
                    while not sess.should_stop():
                        sess.run(train)
                        calls += 1
                r[run] = {"log": log, "calls": calls, "checkpoints": _ckpt_names(tf, d),
                          "final": [round(float(final.final_ops_values[0]), 5),
                                    int(final.final_ops_values[1])]}
    finally:
        shutil.rmtree(d)
    return r


def prog_monitored_session_input_end(tf):
    """A queue-fed loop under MonitoredTrainingSession ends cleanly at OutOfRangeError."""
    r = {}
    log = []
    Recorder, _ = _recorder_classes(tf, log)
    g = tf.Graph()
    with g.as_default():
        step = tf.train.get_or_create_global_step()
        q = tf.train.range_input_producer(7, num_epochs=1, shuffle=False)
        b = tf.train.batch([q.dequeue()], batch_size=3)
        with tf.control_dependencies([b]):  # no step counted for the run that fails
            inc = tf.assign_add(step, 1)
        got = []
        with tf.train.MonitoredTrainingSession(hooks=[Recorder("rec")]) as sess:
            while not sess.should_stop():
                got.append(_v(sess.run([b, inc])[0]))
        r["batches"] = got
        r["log"] = log
    g = tf.Graph()
    with g.as_default():
        step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [])
        loss = tf.identity(x)
        inc = tf.assign_add(step, 1)
        hook = tf.train.NanTensorHook(loss)
        feed = tf.train.FeedFnHook(lambda: {x: float("nan") if len(log) > 3 else 1.0})
        try:
            with tf.train.MonitoredTrainingSession(hooks=[hook, feed, Recorder("nan")]) as sess:
                while not sess.should_stop():
                    sess.run(inc)
            r["nan"] = None
        except RuntimeError as e:
            r["nan"] = [type(e).__name__, str(e)]
        r["nan_log_len"] = len(log)
    g = tf.Graph()
    with g.as_default():
        step = tf.train.get_or_create_global_step()
        v = tf.Variable(3, name="v")
        scaffold = tf.train.Scaffold()
        with tf.train.SingularMonitoredSession(scaffold=scaffold) as sess:
            r["singular"] = [int(sess.run(v)), type(sess.raw_session()).__name__,
                             tf.get_default_graph().finalized,
                             [op.name for op in [scaffold.init_op, scaffold.local_init_op]],
                             scaffold.ready_op.name,
                             scaffold.ready_for_local_init_op.name]
        r["unfinalized_after"] = tf.get_default_graph().finalized
    return r


PROGRAMS += [prog_monitored_training_session, prog_monitored_session_input_end]


def prog_supervisor(tf):
    import os
    import shutil
    import tempfile
    d = tempfile.mkdtemp()
    r = {}
    try:
        g = tf.Graph()
        with g.as_default():
            step = tf.train.get_or_create_global_step()
            q = tf.train.range_input_producer(10, num_epochs=1, shuffle=False)
            x = q.dequeue()
            w = tf.Variable(0, name="w")
            train = tf.group(tf.assign_add(step, 1), tf.assign_add(w, x))
            tf.summary.scalar("w", w)
            sv = tf.train.Supervisor(logdir=d, save_model_secs=3600, save_summaries_secs=3600)
            r["pieces"] = [sv.init_op.name, sv.ready_op.name,
                           sv.summary_op.name, sv.global_step.op.name, sv.is_chief,
                           sv.save_path.replace(d, "DIR"), g.finalized]
            steps = 0
            with sv.managed_session() as sess:
                while not sv.should_stop():
                    sess.run(train)
                    steps += 1
            r["steps"] = steps
            r["should_stop"] = sv.should_stop()
            r["files"] = sorted(f for f in os.listdir(d) if not f.startswith("events"))
        g = tf.Graph()
        with g.as_default():
            step = tf.train.get_or_create_global_step()
            w = tf.Variable(0, name="w")
            bad = tf.reshape(w, tf.placeholder_with_default([2], [1]))
            sv = tf.train.Supervisor(logdir=d, save_model_secs=3600, save_summaries_secs=3600)
            try:
                with sv.managed_session() as sess:
                    r["restored"] = int(sess.run(step)) >= 0  # (saved while training ran)
                    sess.run(bad)
                r["error"] = None
            except tf.errors.OpError as e:
                r["error"] = [type(e).__name__, e.message.split("\n")[0]]
    finally:
        shutil.rmtree(d)
    return r


PROGRAMS += [prog_supervisor]
