"""tf.data.experimental programs written once for TensorFlow 1.15 (when recording, by
record_experimental_datasets.py) and flowloom (tests/input_data/test_experimental_datasets.py).

Each takes `tf` and returns (fetch, inits); the runner pulls elements until OutOfRangeError
(at most 60) and records them with the static output shapes.
"""

import os
import sqlite3
import tempfile

import numpy as np

from dataset_programs import _plain

def _x(tf):
    return tf.data.experimental


def scan_running_sum(tf):
    ds = tf.data.Dataset.range(1, 7).apply(_x(tf).scan(
        tf.constant(0, tf.int64), lambda s, x: (s + x, (s, x * 2))))
    return ds.make_one_shot_iterator().get_next(), []


def scan_tuple_state_and_element(tf):
    ds = tf.data.Dataset.from_tensor_slices((np.arange(5), np.arange(5) * 1.5))
    ds = ds.apply(_x(tf).scan((tf.constant(1, tf.int64), tf.constant(0.0, tf.float64)),
                              lambda s, e: ((s[0] * 2, s[1] + e[1]), s[0] + e[0])))
    return ds.make_one_shot_iterator().get_next(), []


def scan_growing_state(tf):
    # the state's shape changes: TF retraces with the shape relaxed
    ds = tf.data.Dataset.range(4).apply(_x(tf).scan(
        tf.constant([], tf.int64), lambda s, x: (tf.concat([s, [x]], 0), tf.size(s))))
    return ds.make_one_shot_iterator().get_next(), []


def group_by_window_fixed(tf):
    ds = tf.data.Dataset.range(13).apply(_x(tf).group_by_window(
        lambda x: x % 3, lambda k, w: w.batch(3).map(lambda b: (k, b)), window_size=3))
    return ds.make_one_shot_iterator().get_next(), []


def group_by_window_size_func(tf):
    ds = tf.data.Dataset.range(20).map(lambda x: x * 7 % 11).apply(_x(tf).group_by_window(
        lambda x: x % 2, lambda k, w: w.batch(10), window_size_func=lambda k: k + 2))
    return ds.make_one_shot_iterator().get_next(), []


def bucket_padded(tf):
    lengths = [3, 1, 7, 2, 5, 8, 4, 4, 6, 1, 9, 2]
    ds = tf.data.Dataset.from_tensor_slices(np.array(lengths, np.int64)).map(
        lambda n: tf.fill([n], n))
    ds = ds.apply(_x(tf).bucket_by_sequence_length(lambda x: tf.shape(x)[0], [3, 6],
                                                   [2, 3, 2]))
    return ds.make_one_shot_iterator().get_next(), []


def bucket_to_boundary_dict(tf):
    lengths = [3, 1, 7, 2, 5, 4, 4, 6, 1, 2]
    ds = tf.data.Dataset.from_tensor_slices(np.array(lengths, np.int64)).map(
        lambda n: {"tokens": tf.fill([n], tf.cast(n, tf.float32)), "label": n % 2})
    ds = ds.apply(_x(tf).bucket_by_sequence_length(
        lambda e: tf.shape(e["tokens"])[0], [3, 5, 8], [2, 2, 2, 2],
        padding_values={"tokens": -1.0, "label": np.int64(0)}, pad_to_bucket_boundary=True))
    return ds.make_one_shot_iterator().get_next(), []


def bucket_no_padding_drop(tf):
    ds = tf.data.Dataset.range(1, 15).map(lambda n: tf.fill([2], n))
    ds = ds.apply(_x(tf).bucket_by_sequence_length(
        lambda x: tf.cast(x[0] % 5, tf.int32), [2], [3, 2], no_padding=True,
        drop_remainder=True))
    return ds.make_one_shot_iterator().get_next(), []


def sample_seeded(tf):
    ds = _x(tf).sample_from_datasets(
        [tf.data.Dataset.range(6), tf.data.Dataset.range(100, 104),
         tf.data.Dataset.range(200, 210)], [0.5, 0.2, 0.3], seed=17)
    return ds.make_one_shot_iterator().get_next(), []


def sample_uniform_graph_seed(tf):
    tf.set_random_seed(5)
    ds = _x(tf).sample_from_datasets(
        [tf.data.Dataset.from_tensors(np.int64(-1)).repeat(8), tf.data.Dataset.range(5)])
    return ds.make_one_shot_iterator().get_next(), []


def sample_weights_dataset(tf):
    weights = tf.data.Dataset.from_tensor_slices(
        np.array([[0.9, 0.1], [0.1, 0.9]] * 6, np.float32))
    ds = _x(tf).sample_from_datasets(
        [tf.data.Dataset.range(10), tf.data.Dataset.range(50, 60)], weights, seed=3)
    return ds.make_one_shot_iterator().get_next(), []


def choose_round_robin(tf):
    choice = tf.data.Dataset.range(3).repeat(4)
    ds = _x(tf).choose_from_datasets(
        [tf.data.Dataset.from_tensors("a").repeat(), tf.data.Dataset.from_tensors("b").repeat(2),
         tf.data.Dataset.from_tensors("c").repeat()], choice)
    return ds.make_one_shot_iterator().get_next(), []


def random_dataset_seeded(tf):
    ds = _x(tf).RandomDataset(seed=42).take(6)
    return ds.make_one_shot_iterator().get_next(), []


def counter_enumerate(tf):
    ds = tf.data.Dataset.zip((_x(tf).Counter(10, -3), tf.data.Dataset.range(4)))
    ds = ds.apply(_x(tf).enumerate_dataset(start=5))
    return ds.make_one_shot_iterator().get_next(), []


def take_while_unique(tf):
    ds = tf.data.Dataset.from_tensor_slices(np.array([3, 1, 3, 2, 1, 7, 2, 9, 1], np.int64))
    ds = ds.apply(_x(tf).unique()).apply(_x(tf).take_while(lambda x: x < 8))
    return ds.make_one_shot_iterator().get_next(), []


def unique_strings(tf):
    ds = tf.data.Dataset.from_tensor_slices(np.array([b"b", b"a", b"b", b"c", b"a"]))
    return ds.apply(_x(tf).unique()).make_one_shot_iterator().get_next(), []


def single_element(tf):
    value = _x(tf).get_single_element(
        tf.data.Dataset.range(3, 4).map(lambda x: {"a": x * 2, "b": tf.fill([2], x)}))
    return value, [], "once"


def cardinalities(tf):
    d = tf.data.Dataset
    ten = d.range(10)
    cases = [ten, ten.batch(3), ten.batch(3, drop_remainder=True), ten.repeat(3),
             ten.repeat(), ten.take(4), ten.skip(7), ten.skip(20), ten.filter(lambda x: x > 2),
             ten.map(lambda x: x + 1), ten.repeat().take(5), d.zip((ten, d.range(4))),
             ten.concatenate(d.range(5)), ten.shuffle(3), d.from_tensors(1),
             d.from_tensor_slices(np.zeros([7, 2])), ten.prefetch(2), ten.cache(),
             d.range(0).repeat(), ten.take(-1), ten.flat_map(lambda x: d.range(x)),
             _x(tf).RandomDataset(1), d.zip((ten.repeat(), ten.repeat())),
             ten.padded_batch(4, []), ten.repeat(0)]
    return tf.stack([_x(tf).cardinality(c) for c in cases]), [], "once"


def options_merge(tf):
    o = tf.data.Options()
    o.experimental_optimization.map_fusion = True
    o.experimental_threading.private_threadpool_size = 2
    ds = tf.data.Dataset.range(3).with_options(o).map(lambda x: x * 2)
    p = tf.data.Options()
    p.experimental_deterministic = False
    ds = ds.with_options(p)
    merged = ds.options()
    assert merged.experimental_optimization.map_fusion is True
    assert merged.experimental_threading.private_threadpool_size == 2
    assert merged.experimental_deterministic is False
    return ds.make_one_shot_iterator().get_next(), []


def optional_next(tf):
    it = tf.data.Dataset.range(3).map(lambda x: (x, [x * 2])).make_initializable_iterator()
    optional = _x(tf).get_next_as_optional(it)
    value = tf.cond(optional.has_value(), lambda: optional.get_value()[1],
                    lambda: tf.constant([-1], tf.int64))
    return [optional.has_value(), value], [it.initializer], 5


def optional_from_value_and_none(tf):
    some = _x(tf).Optional.from_value({"a": tf.constant([1.5, 2.5]), "b": (tf.constant(3),)})
    none = _x(tf).Optional.none_from_structure(some.value_structure)
    return [some.has_value(), some.get_value(), none.has_value()], [], "once"


def group_by_reducer_sum_count(tf):
    reducer = _x(tf).Reducer(lambda k: tf.constant([0, 0], tf.int64),
                             lambda s, x: s + tf.stack([x, 1]),
                             lambda s: (s[0], s[1] * 10))
    ds = tf.data.Dataset.from_tensor_slices(np.array([5, 3, 8, 2, 7, 3, 9, 4, 1, 6], np.int64))
    ds = ds.apply(_x(tf).group_by_reducer(lambda x: (x * 7) % 4, reducer))
    return ds.make_one_shot_iterator().get_next(), []


def group_by_reducer_growing_state(tf):
    reducer = _x(tf).Reducer(lambda k: (tf.constant([], tf.int64), k),
                             lambda s, e: (tf.concat([s[0], [e[0]]], 0), s[1] + e[1]),
                             lambda items, total: {"items": items, "total": total})
    ds = tf.data.Dataset.range(9).map(lambda x: (x * 2, x))
    ds = ds.apply(_x(tf).group_by_reducer(lambda a, b: b % 3, reducer))
    return ds.make_one_shot_iterator().get_next(), []


def _database():
    path = os.path.join(tempfile.mkdtemp(), "people.sqlite")
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE p (name TEXT, age INTEGER, h REAL, flag INTEGER)")
    connection.executemany("INSERT INTO p VALUES (?, ?, ?, ?)", [
        ("ann", 31, 1.5, 1), ("bob", None, 2.25, 0), ("7cy", 12, None, 5),
        (" -4.5e1x", 2 ** 40, -3.75, None)])
    connection.commit()
    connection.close()
    return path


def sql_rows(tf):
    ds = _x(tf).SqlDataset("sqlite", _database(), "SELECT name, age, h, flag, h, name, age "
                           "FROM p", (tf.string, tf.int64, tf.float64, tf.bool, tf.int16,
                                      tf.int32, tf.string))
    return ds.make_one_shot_iterator().get_next(), []


def tfrecord_writer_round_trip(tf):
    path = os.path.join(tempfile.mkdtemp(), "out.tfrecord.gz")
    records = tf.data.Dataset.range(5).map(lambda x: tf.as_string(x * 11))
    write = _x(tf).TFRecordWriter(path, "GZIP").write(records)
    with tf.Session() as sess:
        sess.run(write)
    ds = tf.data.TFRecordDataset(path, compression_type="GZIP")
    return ds.make_one_shot_iterator().get_next(), []


PROGRAMS = {name: fn for name, fn in list(globals().items())
            if callable(fn) and not name.startswith("_") and fn.__module__ == __name__}


def run(tf, name):
    """The elements program `name` yields, as nested lists."""
    tf.reset_default_graph()
    fetch, inits, *once = PROGRAMS[name](tf)
    out = []
    with tf.Session() as sess:
        for op in inits:
            sess.run(op)
        for _ in range(60 if not once else 1 if once[0] == "once" else once[0]):
            try:
                out.append(_plain(sess.run(fetch)))
            except tf.errors.OutOfRangeError:
                out.append("OutOfRange")
                break
    return {"elements": out, "shapes": [str(t.get_shape()) for t in _flat(fetch)]}


def _flat(value):
    if isinstance(value, dict):
        return [t for k in sorted(value) for t in _flat(value[k])]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _flat(v)]
    return [value]
