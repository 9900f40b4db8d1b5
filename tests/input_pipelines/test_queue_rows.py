"""Queues of fixed-shape elements keep them in rows of one array per component
(ops/data/queue_resource._Slab): the same elements, order and blocking as element storage."""

import numpy as np

import flowloom as tf
from flowloom.ops.data import queue_resource


def _drain(use_slab, kind, monkeypatch):
    # Element storage is what queues of unknown shapes use (they cannot dequeue_many, as in
    # TF), so the comparison switches the rows off for the same fixed-shape queue.
    monkeypatch.setattr(queue_resource.Queue, "uses_slab", use_slab)
    with tf.Graph().as_default():
        shapes = [[3], []]
        if kind == "shuffle":
            q = tf.RandomShuffleQueue(50, 5, [tf.float32, tf.string], shapes=shapes, seed=7)
        else:
            q = tf.FIFOQueue(50, [tf.float32, tf.string], shapes=shapes)
        x = tf.placeholder(tf.float32, [None, 3])
        s = tf.placeholder(tf.string, [None])
        many = q.enqueue_many([x, s])
        one = q.enqueue([x[0], s[0]])
        take = q.dequeue_many(4)
        take_one = q.dequeue()
        left = q.dequeue_up_to(100)
        close = q.close()
        with tf.Session() as sess:
            data = np.arange(60, dtype=np.float32).reshape(20, 3)
            names = np.array([b"r%d\x00" % i for i in range(20)], object)
            sess.run(many, {x: data[:12], s: names[:12]})
            sess.run(one, {x: data[12:13], s: names[12:13]})
            out = [sess.run(take), sess.run(take_one)]
            sess.run(many, {x: data[13:], s: names[13:]})
            out.append(sess.run(take))
            sess.run(close)
            out.append(sess.run(left))
            try:
                sess.run(take_one)
            except tf.errors.OutOfRangeError:
                out.append("end")
    return out


def _equal(a, b):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        if u == "end" or v == "end":
            assert u == v
            continue
        for p, q in zip(u, v):
            np.testing.assert_array_equal(p, q)


def test_rows_storage_equals_element_storage(monkeypatch):
    for kind in ("fifo", "shuffle"):
        rows = _drain(True, kind, monkeypatch)
        elements = _drain(False, kind, monkeypatch)
        _equal(rows, elements)
        assert rows[-1] == "end"
        if kind == "fifo":
            assert rows[1][1] == b"r4\x00"
        assert sorted(b for part in rows[:-1] for b in (
            part[1] if isinstance(part[1], np.ndarray) else [part[1]])) == \
            sorted(b"r%d\x00" % i for i in range(20))


_HANDOFF = r"""
import sys
import flowloom as tf
before = sys.getswitchinterval()
q = tf.FIFOQueue(4, [tf.int32], shapes=[[]])
tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue([1])]))
with tf.Session() as sess:
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess, coord)
    sess.run(q.dequeue())
    coord.request_stop()
    coord.join(threads)
print(before, sys.getswitchinterval())
"""


def test_queue_runners_lower_the_switch_interval():
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    got = {}
    for setting in ("", "0"):
        env = dict(os.environ, PYTHONPATH=root, FLOWLOOM_SWITCH_INTERVAL=setting)
        out = subprocess.run([sys.executable, "-c", _HANDOFF], capture_output=True, text=True,
                             env=env, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        got[setting] = [float(v) for v in out.stdout.split()]
    assert got[""][0] == 0.005 and got[""][1] == 0.001
    assert got["0"] == [0.005, 0.005]


def test_shuffle_dequeue_many_takes_as_single_dequeues():
    """RandomShuffleQueue: a dequeue_many of k picks the elements k single dequeues pick
    (one Philox word each, `word % size`, the last element moved into the taken slot)."""
    from flowloom.ops.data.queue_resource import RandomShuffleQueue

    def queue():
        q = RandomShuffleQueue("q", [tf.int64], [None], 1000, 3, 11, 5)
        for i in range(40):
            q._put((i,))
        return q

    many, single = queue(), queue()
    taken = []
    assert many._take_many(30, taken) == 30
    one_by_one = [single._take() for _ in range(30)]
    assert taken == one_by_one
    assert sorted(many._items) == sorted(single._items) and many._items == single._items
    assert many._take_many(30, []) == 7  # min_after_dequeue 3 of the 10 left stay


def test_shuffle_words_are_philox_in_order_across_refills():
    """The queue's words, taken in batches (arrays) and one at a time (integers) in any mix,
    are the Philox stream of its seeds in order, across the blocks computed ahead."""
    from flowloom.ops.data import shuffle_random
    from flowloom.ops.random import philox

    state = philox.PhiloxState(11, 5)
    want = philox.blocks(state.key, state.reserve(3 * shuffle_random._BLOCKS),
                         3 * shuffle_random._BLOCKS).ravel().tolist()
    rng = shuffle_random.SingleSamplePhilox(11, 5)
    got = []
    sizes = [1, 128, 0, 5000, 3191, 1, 1, 129, 8192, 3000]
    for k in sizes:
        if k == 1:
            got.append(rng())
            assert type(got[-1]) is int
        else:
            words = rng.take(k)
            assert words.dtype == np.uint32 and words.shape == (k,)
            got.extend(words.tolist())
    assert got == want[:sum(sizes)]


def test_shuffle_dequeue_many_across_refills_takes_as_single_dequeues():
    from flowloom.ops.data.queue_resource import RandomShuffleQueue

    many = RandomShuffleQueue("q", [tf.int64], [None], 100000, 0, 3, 4)
    single = RandomShuffleQueue("q", [tf.int64], [None], 100000, 0, 3, 4)
    for q in (many, single):
        for i in range(30000):
            q._put((i,))
    for k in (128, 7000, 1, 9000, 128):
        taken = []
        assert many._take_many(k, taken) == k
        assert taken == [single._take() for _ in range(k)]
    assert many._items == single._items


def test_one_element_enqueue_into_room_takes_no_attempt(monkeypatch):
    """A single enqueue with room and nobody waiting before it goes straight into a row (a
    queue runner's run); a dequeue waiting for it is released, and a full queue still
    blocks and takes its turn."""
    import threading

    attempts = []
    real = queue_resource._Attempt
    monkeypatch.setattr(queue_resource, "_Attempt",
                        lambda run: attempts.append(1) or real(run))
    with tf.Graph().as_default():
        q = tf.FIFOQueue(3, [tf.float32, tf.int32], shapes=[[2], []])
        x = tf.placeholder(tf.float32, [2])
        n = tf.placeholder(tf.int32, [])
        one = q.enqueue([x, n])
        take = q.dequeue()
        with tf.Session() as sess:
            got = []
            waiter = threading.Thread(target=lambda: got.append(sess.run(take)))
            waiter.start()
            while not attempts:  # the dequeue waits in its line
                threading.Event().wait(0.01)
            count = len(attempts)
            for i in range(3):
                sess.run(one, {x: [i, -i], n: i})
            waiter.join(10)
            assert not waiter.is_alive() and got[0][1] == 0
            assert got[0][0].tolist() == [0.0, 0.0]
            assert len(attempts) == count  # no attempt for the three enqueues
            sess.run(one, {x: [3, -3], n: 3})  # room for one more: 1, 2, 3
            blocked = threading.Thread(target=lambda: sess.run(one, {x: [4, -4], n: 4}))
            blocked.start()
            blocked.join(0.3)
            assert blocked.is_alive()  # full: it waits in the line
            order = [sess.run(take)[1] for _ in range(4)]
            blocked.join(10)
            assert order == [1, 2, 3, 4] and not blocked.is_alive()


def _drain_direct(use_slab, monkeypatch, batches):
    monkeypatch.setattr(queue_resource.Queue, "uses_slab", use_slab)
    dtypes = [tf.float32, tf.int64, tf.bool, tf.float16, tf.uint8, tf.string]
    shapes = [(2, 3), (4,), (2, 2), (3,), (), ()]
    q = queue_resource.Queue("rows", dtypes, shapes, 100)
    out = []
    for batch in batches:
        q.enqueue(batch, many=True)
        out.append(q.dequeue(3))
    out.append(q.dequeue(q.size()))
    return out


def test_rows_of_many_dtypes_and_layouts_equal_element_storage(monkeypatch):
    # Whole rows are copied as single items when a batch's dtype and layout match the
    # storage's; strided or other-typed batches take the elementwise copy. Both keep values.
    rng = np.random.RandomState(3)

    def batch(n, strided=False, other_types=False):
        comps = [rng.rand(2 * n, 2, 3).astype(np.float32), rng.randint(-9, 9, (n, 4)),
                 rng.rand(n, 2, 2) > 0.5, rng.rand(n, 3).astype(np.float16),
                 rng.randint(0, 255, n).astype(np.uint8),
                 np.array([b"s%d\x00" % i for i in range(n)], object)]
        comps[0] = comps[0][::2] if strided else comps[0][:n]  # a strided view, or rows
        if other_types:
            comps[0] = comps[0].astype(np.float64)
            comps[3] = comps[3].astype(np.float32)
        return comps

    batches = [batch(5), batch(4, strided=True), batch(6, other_types=True), batch(3)]
    rows = _drain_direct(True, monkeypatch, batches)
    elements = _drain_direct(False, monkeypatch, batches)
    assert len(rows) == len(elements)
    want_types = [np.float32, np.int64, np.bool_, np.float16, np.uint8, object]
    for a, b in zip(rows, elements):
        for p, q, t in zip(a, b, want_types):
            # rows hold the queue's dtypes (element storage keeps what it was given)
            assert p.dtype == t and p.shape == q.shape
            np.testing.assert_array_equal(p, q.astype(t))
    np.testing.assert_array_equal(rows[0][0], batches[0][0][:3])


def test_elements_that_are_not_exact_arrays_take_the_checked_way():
    """An element of exactly the components' arrays goes into its row unchecked; anything
    else (lists, other dtypes, wrong shapes) is converted and checked first, as before."""
    import pytest

    q = queue_resource.Queue("q", [tf.float32, tf.int32], [(2,), ()], 10)
    q.enqueue((np.array([1.5, 2.5], np.float32), np.array(3, np.int32)))
    q.enqueue(([4.0, 5.0], 6))
    q.enqueue((np.array([7, 8], np.int64), np.array(9.0)))
    for bad in ((np.zeros(3, np.float32), np.array(1, np.int32)),
                (np.zeros((2,), np.float32),)):
        with pytest.raises(tf.errors.InvalidArgumentError):
            q.enqueue(bad)
    values, ints = q.dequeue(3)
    assert values.dtype == np.float32 and ints.dtype == np.int32
    assert values.tolist() == [[1.5, 2.5], [4.0, 5.0], [7.0, 8.0]] and ints.tolist() == [3, 6, 9]
