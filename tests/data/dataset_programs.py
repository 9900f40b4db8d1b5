"""tf.data programs written once for TensorFlow 1.15 (when recording) and flowloom (in tests).

Each takes `tf` and a scratch directory, builds a pipeline and returns (fetch, feed, inits):
the element tensors, a feed_dict, and initializer ops to run first. The runner pulls
elements until OutOfRangeError (at most 200).
"""

import gzip
import os

import numpy as np


def slices_map_batch(tf, d):
    ds = tf.data.Dataset.from_tensor_slices((np.arange(10), np.arange(10) * 2.0))
    ds = ds.map(lambda a, b: (a + 1, b * 10)).filter(lambda a, b: tf.equal(a % 2, 0)).batch(2)
    return ds.make_one_shot_iterator().get_next(), None, []


def dict_elements(tf, d):
    ds = tf.data.Dataset.from_tensor_slices({"x": np.arange(6, dtype=np.float32).reshape(3, 2),
                                             "y": np.array([1, 2, 3])})
    ds = ds.map(lambda e: {"x": e["x"] * 2, "y": e["y"] + 1, "z": tf.reduce_sum(e["x"])})
    return ds.make_one_shot_iterator().get_next(), None, []


def range_repeat_take_skip(tf, d):
    ds = tf.data.Dataset.range(2, 20, 3).repeat(2).skip(3).take(6)
    return ds.make_one_shot_iterator().get_next(), None, []


def padded(tf, d):
    ds = tf.data.Dataset.range(1, 6).map(lambda n: tf.fill([tf.cast(n, tf.int32)], n))
    ds = ds.padded_batch(2, padded_shapes=[None], padding_values=tf.constant(-1, tf.int64))
    return ds.make_one_shot_iterator().get_next(), None, []


def padded_fixed_drop(tf, d):
    ds = tf.data.Dataset.range(1, 6).map(lambda n: tf.fill([tf.cast(n, tf.int32)], n))
    ds = ds.padded_batch(2, padded_shapes=[6], drop_remainder=True)
    return ds.make_one_shot_iterator().get_next(), None, []


def zip_concat(tf, d):
    a = tf.data.Dataset.range(3)
    b = tf.data.Dataset.from_tensor_slices(np.array([b"x", b"y", b"z", b"w"]))
    ds = tf.data.Dataset.zip((a, b)).concatenate(tf.data.Dataset.zip((tf.data.Dataset.range(
        7, 9), tf.data.Dataset.from_tensors(b"q").repeat())))
    return ds.make_one_shot_iterator().get_next(), None, []


def flat_map_interleave(tf, d):
    ds = tf.data.Dataset.range(1, 4).flat_map(
        lambda n: tf.data.Dataset.from_tensors(n).repeat(n))
    ds = ds.interleave(lambda n: tf.data.Dataset.range(n * 10, n * 10 + 3), cycle_length=2,
                       block_length=2)
    return ds.make_one_shot_iterator().get_next(), None, []


def window_flat_map(tf, d):
    ds = tf.data.Dataset.range(7).window(3, shift=2, drop_remainder=True)
    ds = ds.flat_map(lambda w: w.batch(3))
    return ds.make_one_shot_iterator().get_next(), None, []


def unbatch_cache(tf, d):
    ds = tf.data.Dataset.from_tensor_slices(np.arange(12).reshape(3, 2, 2)).apply(
        tf.data.experimental.unbatch()).cache().repeat(2).prefetch(2)
    return ds.make_one_shot_iterator().get_next(), None, []


def parallel_map_and_batch(tf, d):
    ds = tf.data.Dataset.range(9).apply(tf.data.experimental.map_and_batch(
        lambda x: tf.square(x), batch_size=4, num_parallel_calls=3))
    return ds.make_one_shot_iterator().get_next(), None, []


def map_and_batch_drop_remainder(tf, d):
    ds = tf.data.Dataset.range(11).apply(tf.data.experimental.map_and_batch(
        lambda x: (x * 3, tf.fill([2], x)), batch_size=3, num_parallel_batches=2,
        drop_remainder=True))
    return ds.make_one_shot_iterator().get_next(), None, []


def parallel_interleave_blocks(tf, d):
    ds = tf.data.Dataset.range(1, 7).apply(tf.data.experimental.parallel_interleave(
        lambda x: tf.data.Dataset.range(x * 10, x * 10 + x % 4), cycle_length=3,
        block_length=2))
    return ds.make_one_shot_iterator().get_next(), None, []


def parallel_interleave_prefetch_one(tf, d):
    ds = tf.data.Dataset.from_tensor_slices(np.array([3, 0, 5, 1, 0, 4, 2, 2])).apply(
        tf.data.experimental.parallel_interleave(
            lambda x: tf.data.Dataset.range(x * 10, x * 11), cycle_length=2, block_length=3,
            prefetch_input_elements=1))
    return ds.make_one_shot_iterator().get_next(), None, []


def initializable_with_placeholder(tf, d):
    n = tf.placeholder(tf.int64, [], name="n")
    it = tf.data.Dataset.range(n).map(lambda x: x * 2).make_initializable_iterator()
    return it.get_next(), {n: 5}, [it.initializer]


def reinitializable(tf, d):
    train = tf.data.Dataset.range(3)
    test = tf.data.Dataset.range(100, 102)
    it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    nxt = it.get_next()
    return nxt, None, [it.make_initializer(test)]


def generator(tf, d):
    def gen():
        for i in range(4):
            yield i, [float(i)] * i

    ds = tf.data.Dataset.from_generator(gen, (tf.int32, tf.float32),
                                        (tf.TensorShape([]), tf.TensorShape([None])))
    ds = ds.padded_batch(2, ([], [None]))
    return ds.make_one_shot_iterator().get_next(), None, []


def _write_files(d):
    paths = []
    for k in range(2):
        p = os.path.join(d, f"lines{k}.txt")
        with open(p, "wb") as f:
            f.write(b"header\n" + b"".join(b"line %d-%d\r\n" % (k, i) for i in range(3)))
        paths.append(p)
    fixed = os.path.join(d, "fixed.bin")
    with open(fixed, "wb") as f:
        f.write(b"HH" + bytes(range(12)) + b"F")
    gz = os.path.join(d, "lines.txt.gz")
    with gzip.open(gz, "wb") as f:
        f.write(b"a\nbb\nccc")
    return paths, fixed, gz


def text_lines(tf, d):
    paths, _, gz = _write_files(d)
    ds = tf.data.TextLineDataset(paths).skip(1).concatenate(
        tf.data.TextLineDataset(gz, compression_type="GZIP"))
    return ds.make_one_shot_iterator().get_next(), None, []


def fixed_length(tf, d):
    _, fixed, _ = _write_files(d)
    ds = tf.data.FixedLengthRecordDataset(fixed, 4, header_bytes=2, footer_bytes=1)
    ds = ds.map(lambda r: tf.decode_raw(r, tf.uint8))
    return ds.make_one_shot_iterator().get_next(), None, []


def tfrecords(tf, d):
    path = os.path.join(d, "data.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        for i in range(5):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i * 0.5, -i]))}))
            w.write(ex.SerializeToString())

    def parse(record):
        f = tf.parse_single_example(record, {"label": tf.FixedLenFeature([], tf.int64),
                                             "x": tf.FixedLenFeature([2], tf.float32)})
        return f["x"], f["label"]

    ds = tf.data.TFRecordDataset([path]).map(parse, num_parallel_calls=2).batch(2)
    return ds.make_one_shot_iterator().get_next(), None, []


def string_handles(tf, d):
    a = tf.data.Dataset.range(3).make_one_shot_iterator()
    b = tf.data.Dataset.range(10, 12).make_initializable_iterator()
    handle = tf.placeholder(tf.string, [], name="handle")
    it = tf.data.Iterator.from_string_handle(handle, a.output_types, a.output_shapes)
    return (it.get_next(), a.string_handle(), b.string_handle()), "handles", [b.initializer]


# -- functions that capture tensors of the graph around them ---------------------------------

def capture_constant(tf, d):
    c = tf.constant([10, 20], tf.int64)
    ds = tf.data.Dataset.range(4).map(lambda x: x + c[1]).filter(lambda x: x > c[0] + 10)
    return ds.make_one_shot_iterator().get_next(), None, []


def capture_placeholder_initializable(tf, d):
    p = tf.placeholder(tf.int64, [], name="p")
    ds = tf.data.Dataset.range(6).map(lambda x: x * p, num_parallel_calls=2)
    ds = ds.filter(lambda x: tf.not_equal(x % 2, 0) | tf.equal(p, 2))
    it = ds.make_initializable_iterator()
    return it.get_next(), {"p:0": 3}, [it.initializer]


def capture_nested_flat_map(tf, d):
    n = tf.constant(2, tf.int64)
    ds = tf.data.Dataset.range(3).flat_map(
        lambda x: tf.data.Dataset.range(n).map(lambda y: y + x * 10 + n))
    ds = ds.interleave(lambda v: tf.data.Dataset.from_tensors(v * n).repeat(n), cycle_length=2)
    return ds.make_one_shot_iterator().get_next(), None, []


def capture_variable_initializable(tf, d):
    v = tf.Variable(5, dtype=tf.int64, name="v")
    ds = tf.data.Dataset.range(3).map(lambda x: (x + v, tf.cast(x, tf.float32) * 0.5))
    it = ds.make_initializable_iterator()
    return it.get_next(), None, [v.initializer, it.initializer]


# -- seeded shuffles ----------------------------------------------------------------------------

def shuffle_op_seed(tf, d):
    ds = tf.data.Dataset.range(20).shuffle(5, seed=7)
    return ds.make_one_shot_iterator().get_next(), None, []


def shuffle_graph_seed_buffer_larger(tf, d):
    tf.set_random_seed(3)
    ds = tf.data.Dataset.range(12).shuffle(100)
    return ds.make_one_shot_iterator().get_next(), None, []


def shuffle_reshuffle_each_epoch(tf, d):
    ds = tf.data.Dataset.range(8).shuffle(4, seed=11).repeat(3)
    return ds.make_one_shot_iterator().get_next(), None, []


def shuffle_same_order_each_epoch(tf, d):
    ds = tf.data.Dataset.range(8).shuffle(8, seed=5, reshuffle_each_iteration=False).repeat(2)
    return ds.make_one_shot_iterator().get_next(), None, []


def shuffle_batch_map(tf, d):
    ds = tf.data.Dataset.range(30).map(lambda x: x * 3).shuffle(10, seed=123).batch(4)
    return ds.make_one_shot_iterator().get_next(), None, []


def shuffle_and_repeat_fused(tf, d):
    ds = tf.data.Dataset.range(6).apply(
        tf.data.experimental.shuffle_and_repeat(4, count=3, seed=9))
    return ds.make_one_shot_iterator().get_next(), None, []


# -- cache(filename) ----------------------------------------------------------------------------

def cache_file(tf, d):
    path = os.path.join(d, "cache")
    ds = tf.data.Dataset.range(5).map(lambda x: (x * 2, tf.fill([2], tf.cast(x, tf.float32))))
    ds = ds.cache(path).repeat(2)
    return ds.make_one_shot_iterator().get_next(), None, []


PROGRAMS = {name: fn for name, fn in list(globals().items())
            if callable(fn) and not name.startswith("_") and fn.__module__ == __name__}


def run(tf, name, d):
    """The elements program `name` yields, as nested lists, and the static structure."""
    tf.reset_default_graph()
    fetch, feed, inits = PROGRAMS[name](tf, d)
    out = []
    with tf.Session() as sess:
        for op in inits:
            sess.run(op, feed if isinstance(feed, dict) else None)
        if feed == "handles":
            nxt, ha, hb = fetch
            ha, hb = sess.run([ha, hb])
            handle = tf.get_default_graph().get_tensor_by_name("handle:0")
            for h in (ha, hb, ha):
                out.append(_plain(sess.run(nxt, {handle: h})))
            return out
        for _ in range(200):
            try:
                out.append(_plain(sess.run(fetch, feed)))
            except tf.errors.OutOfRangeError:
                out.append("OutOfRange")
                break
    return out


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    arr = np.asarray(value)
    if arr.dtype == object or arr.dtype.kind == "S":
        return {"bytes": [v.decode("latin-1") if isinstance(v, bytes) else str(v)
                          for v in arr.reshape(-1)], "shape": list(arr.shape)}
    return {"values": arr.reshape(-1).tolist(), "shape": list(arr.shape),
            "dtype": arr.dtype.name}
