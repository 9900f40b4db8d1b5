"""Batch-safe map functions run on chunks of elements (flowloom/data/vectorize.py): the same
elements, errors and input consumption as the element-by-element run."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.data import functions
from flowloom.ops.data.dataset_ops import FUNCTIONS

SPEC = {"x": tf.FixedLenFeature([4], tf.float32), "y": tf.FixedLenFeature([], tf.int64),
        "raw": tf.FixedLenFeature([], tf.string, default_value=b"abcdefgh")}


def _example(i):
    feature = {"x": tf.train.Feature(float_list=tf.train.FloatList(value=[i, i + .5, -i, 2])),
               "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 7]))}
    if i % 3:
        raw = bytes(range(i % 200, i % 200 + 8))
        feature["raw"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[raw]))
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def _parse(record):
    f = tf.parse_single_example(record, SPEC)
    x = tf.reshape(tf.transpose(tf.reshape(f["x"] * 2.0 + 1.0, [2, 2])), [-1])
    raw = tf.cast(tf.decode_raw(f["raw"], tf.uint8), tf.int32)
    return {"x": x, "y": tf.cast(f["y"], tf.float32) - 3.0, "raw": raw + tf.cast(f["y"], tf.int32),
            "big": tf.maximum(f["x"], 1.5) > 2.0}


def _write(path, records):
    with tf.python_io.TFRecordWriter(path) as w:
        for r in records:
            w.write(r)


def _run(make, vectorize, monkeypatch, limit=100000):
    monkeypatch.setattr(functions, "VECTORIZE", vectorize)
    out, error = [], None
    with tf.Graph().as_default():
        t = tf.data.make_one_shot_iterator(make()).get_next()
        with tf.Session() as sess:
            try:
                for _ in range(limit):
                    out.append(sess.run(t))
            except tf.errors.OpError as e:
                error = e
    return out, error


def _equal(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert sorted(x) == sorted(y)
        for k in x:
            assert x[k].dtype == y[k].dtype and x[k].shape == y[k].shape, k
            np.testing.assert_array_equal(x[k], y[k])


@pytest.mark.parametrize("calls", [None, 3])
def test_vectorized_map_equals_per_element(tmp_path, monkeypatch, calls):
    path = str(tmp_path / "a.tfrecord")
    _write(path, [_example(i) for i in range(300)])

    def make():
        return tf.data.TFRecordDataset([path]).map(_parse, num_parallel_calls=calls) \
            .shuffle(50, seed=3).batch(7)

    fast, e1 = _run(make, True, monkeypatch)
    slow, e2 = _run(make, False, monkeypatch)
    assert isinstance(e1, tf.errors.OutOfRangeError) and isinstance(e2, tf.errors.OutOfRangeError)
    assert len(fast) == 43
    _equal(fast, slow)


def test_the_parse_function_is_batch_safe_and_random_is_not():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(np.array([_example(1)], object))
        ds.map(_parse)
        ds.map(lambda r: tf.random_uniform([]) + tf.cast(
            tf.parse_single_example(r, SPEC)["y"], tf.float32))
        ds.map(lambda r: tf.parse_single_example(r, {"v": tf.VarLenFeature(tf.int64)})["v"]
               .values)
        fns = list(FUNCTIONS[tf.get_default_graph()].values())  # in the order traced
        got = [f.bind(()).batched() is not None for f in fns]
    assert got == [True, False, False]


def test_bad_record_raises_at_the_same_element(tmp_path, monkeypatch):
    path = str(tmp_path / "b.tfrecord")
    records = [_example(i) for i in range(40)]
    records[29] = b"\x0a\x05not an example"
    _write(path, records)

    def make():
        return tf.data.TFRecordDataset([path]).map(_parse, num_parallel_calls=2)

    fast, e1 = _run(make, True, monkeypatch)
    slow, e2 = _run(make, False, monkeypatch)
    assert len(fast) == len(slow) == 29
    _equal(fast, slow)
    assert type(e1) is type(e2) is tf.errors.InvalidArgumentError
    assert str(e1).split("\n")[0] == str(e2).split("\n")[0]


def test_input_error_after_part_of_a_chunk(tmp_path, monkeypatch):
    path = str(tmp_path / "c.tfrecord")
    _write(path, [_example(i) for i in range(20)])
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[:-30])  # the last record is cut short

    def make():
        return tf.data.TFRecordDataset([path]).map(_parse)

    fast, e1 = _run(make, True, monkeypatch)
    slow, e2 = _run(make, False, monkeypatch)
    assert len(fast) == len(slow) == 19
    _equal(fast, slow)
    assert type(e1) is type(e2) is tf.errors.DataLossError


def test_short_iteration_pulls_little_ahead(monkeypatch):
    pulled = []

    def gen():
        for i in range(1000):
            pulled.append(i)
            yield i

    def make():
        return tf.data.Dataset.from_generator(gen, tf.int64, []).map(lambda v: v * 2).take(3)

    out, e = _run(make, True, monkeypatch)
    assert [int(v) for v in out] == [0, 2, 4] and isinstance(e, tf.errors.OutOfRangeError)
    assert len(pulled) <= 8
