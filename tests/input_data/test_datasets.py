"""tf.data semantics beyond the recorded programs: errors, shuffling, threads, graphs."""

import threading
import time

import numpy as np
import pytest

import flowloom as tf


def _drain(sess, t, feed=None, limit=1000):
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(t, feed))
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("did not end")


def test_out_of_range_then_reinitialize():
    it = tf.data.Dataset.range(3).make_initializable_iterator()
    x = it.get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="not been initialized"):
            sess.run(x)
        sess.run(it.initializer)
        assert _drain(sess, x) == [0, 1, 2]
        with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
            sess.run(x)
        sess.run(it.initializer)
        assert sess.run(x) == 0


def test_structure_properties_and_errors():
    ds = tf.data.Dataset.from_tensor_slices((np.zeros([4, 3], np.float32), np.arange(4)))
    assert ds.output_types == (tf.float32, tf.int64)
    assert [s.as_list() for s in ds.output_shapes] == [[3], []]
    batched = ds.batch(2, drop_remainder=True)
    assert [s.as_list() for s in batched.output_shapes] == [[2, 3], [2]]
    assert batched.output_classes == (tf.Tensor, tf.Tensor)
    it = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
    with pytest.raises(TypeError, match="Expected output types"):
        it.make_initializer(ds)
    with pytest.raises(ValueError, match="scalar boolean"):
        ds.filter(lambda a, b: a)
    outer = tf.constant(2.0)
    captured = ds.map(lambda a, b: a * outer)  # captured: the MapDataset's other_arguments
    assert captured._variant.op.inputs[1] is outer
    with pytest.raises(RuntimeError, match="eager execution"):
        iter(ds)


def test_seeded_shuffle_is_a_reproducible_permutation_reshuffled_each_epoch():
    ds = tf.data.Dataset.range(20).shuffle(8, seed=3).repeat(2)
    x = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        first = _drain(sess, x)
    tf.reset_default_graph()
    x = tf.data.Dataset.range(20).shuffle(8, seed=3).repeat(2).make_one_shot_iterator() \
        .get_next()
    with tf.Session() as sess:
        again = _drain(sess, x)
    assert first == again
    assert sorted(first[:20]) == list(range(20)) and sorted(first[20:]) == list(range(20))
    assert first[:20] != first[20:] and first[:20] != list(range(20))


def test_prefetch_thread_ends_when_the_session_closes():
    def slow():
        for i in range(10 ** 6):
            yield i

    ds = tf.data.Dataset.from_generator(slow, tf.int64, tf.TensorShape([])).prefetch(4)
    x = ds.make_one_shot_iterator().get_next()
    before = threading.active_count()
    sess = tf.Session()
    assert sess.run(x) == 0
    sess.close()
    deadline = time.time() + 5
    while threading.active_count() > before and time.time() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= before


def test_num_parallel_calls_runs_calls_at_once():
    active = []
    peak = []
    lock = threading.Lock()

    def work(x):
        with lock:
            active.append(1)
            peak.append(len(active))
        time.sleep(0.05)
        with lock:
            active.pop()
        return x

    def gen():
        yield from range(8)

    ds = tf.data.Dataset.from_generator(gen, tf.int64, tf.TensorShape([]))
    ds = ds.map(lambda x: tf.py_func(work, [x], tf.int64), num_parallel_calls=4) \
        if hasattr(tf, "py_func") else None
    if ds is None:
        pytest.skip("tf.py_func is not in flowloom yet")
    x = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert [int(v) for v in _drain(sess, x)] == list(range(8))
    assert max(peak) >= 2


def test_the_graph_holds_tfs_op_types():
    ds = tf.data.TFRecordDataset(["a.tfrecord"]).map(lambda r: tf.strings.length(r)
                                                     if hasattr(tf, "strings") and
                                                     hasattr(tf.strings, "length")
                                                     else tf.identity(r),
                                                     num_parallel_calls=2)
    ds = ds.shuffle(10).batch(4).repeat().prefetch(1)
    ds.make_one_shot_iterator().get_next()
    types = [op.type for op in tf.get_default_graph().get_operations()]
    for t in ("TFRecordDataset", "ParallelMapDataset", "ShuffleDataset", "BatchDatasetV2",
              "RepeatDataset", "PrefetchDataset", "OneShotIterator", "IteratorGetNext"):
        assert t in types
    gd = tf.get_default_graph().as_graph_def()
    pmap = next(n for n in gd.node if n.op == "ParallelMapDataset")
    assert pmap.attr["f"].func.name.startswith("__flowloom_map_")


def test_missing_file_is_not_found():
    x = tf.data.TextLineDataset("/nonexistent/file.txt").make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.NotFoundError):
            sess.run(x)


def test_list_files(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_text("x")
    ds = tf.data.Dataset.list_files(str(tmp_path / "*.txt"), shuffle=False)
    x = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert [v.decode() for v in _drain(sess, x)] == [str(tmp_path / "a.txt"),
                                                        str(tmp_path / "b.txt")]


def test_string_slices_batch():
    # A 1-D string component sliced and batched (feature dicts of predict input_fns).
    ds = tf.data.Dataset.from_tensor_slices({"a": [30], "r": ["x"]}).batch(100)
    with tf.Session() as sess:
        got = sess.run(ds.make_one_shot_iterator().get_next())
    assert got["r"].tolist() == [b"x"] and got["a"].tolist() == [30]
