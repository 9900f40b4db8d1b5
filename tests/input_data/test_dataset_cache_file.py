"""Dataset.cache(filename): TF's file layout both ways, the lockfile, incomplete passes; and
dataset functions capturing tensors of the graph around them (the GraphDef keeps them as the
dataset op's other_arguments, as TF's does). Element values against TF are in
test_datasets_vs_tf.py (cache_file, capture_*)."""

import os
import shutil
import subprocess

import numpy as np
import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
TF1 = os.environ.get("FLOWLOOM_TF1_PYTHON")


def _drain(nxt, sess, limit=100):
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(nxt))
        except tf.errors.OutOfRangeError:
            return out
    raise AssertionError("no OutOfRangeError")


def test_reads_a_cache_tf_wrote_instead_of_its_input(tmp_path):
    shutil.copytree(os.path.join(DATA, "dataset_cache_tf"), tmp_path / "c")
    with tf.Graph().as_default():
        # a different input: a cache that exists is read, its input never runs
        ds = tf.data.Dataset.range(100).map(
            lambda x: (x, tf.fill([2], tf.cast(x, tf.float32)), tf.as_string(x)))
        nxt = ds.cache(str(tmp_path / "c" / "cache")).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            got = _drain(nxt, sess)
    assert [int(a) for a, _, _ in got] == [0, 7, 14, 21]
    assert [b.tolist() for _, b, _ in got] == [[0, 0], [0.5, 0.5], [1, 1], [1.5, 1.5]]
    assert [c for _, _, c in got] == [b"0", b"1", b"2", b"3"]


def test_incomplete_pass_writes_nothing_and_lockfile_guards_writers(tmp_path):
    prefix = str(tmp_path / "cache")
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(5).cache(prefix)
        a = ds.make_initializable_iterator()
        b = ds.make_initializable_iterator()
        na, nb = a.get_next(), b.get_next()
        with tf.Session() as sess:
            sess.run([a.initializer, b.initializer])
            assert sess.run(na) == 0
            assert os.path.exists(prefix + "_0.lockfile")
            with pytest.raises(tf.errors.AlreadyExistsError, match="concurrent caching"):
                sess.run(nb)
            sess.run(a.initializer)  # the first pass stops early: nothing is cached
        assert not os.path.exists(prefix + ".index")
        assert not os.path.exists(prefix + "_0.lockfile")
        with tf.Session() as sess:
            sess.run(a.initializer)
            assert [int(v) for v in _drain(na, sess)] == [0, 1, 2, 3, 4]
        assert os.path.exists(prefix + ".index")
        assert not os.path.exists(prefix + "_0.lockfile")


@pytest.mark.skipif(not TF1, reason="FLOWLOOM_TF1_PYTHON is not set (TF 1.15 reads the cache)")
def test_tf_reads_a_cache_flowloom_wrote(tmp_path):
    prefix = str(tmp_path / "cache")
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3).map(lambda x: (x * 3, tf.as_string(x))).cache(prefix)
        nxt = ds.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            _drain(nxt, sess)
    program = (
        "import tensorflow as tf, sys\n"
        "ds = tf.data.Dataset.range(50).map(lambda x: (x, tf.as_string(x + 1))).cache(sys.argv[1])\n"
        "n = ds.make_one_shot_iterator().get_next()\n"
        "with tf.Session() as s:\n"
        "    try:\n"
        "        while True: print(s.run(n))\n"
        "    except tf.errors.OutOfRangeError: pass\n")
    out = subprocess.run([TF1, "-c", program, prefix], capture_output=True, text=True,
                         env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"), timeout=300)
    assert out.stdout.split("\n")[:3] == ["(0, b'0')", "(3, b'1')", "(6, b'2')"], out.stderr


def test_captured_tensors_are_the_dataset_ops_other_arguments():
    g = tf.Graph()
    with g.as_default():
        scale = tf.placeholder(tf.float32, [], name="scale")
        offset = tf.constant([1.0, 2.0], name="offset")
        ds = tf.data.Dataset.from_tensor_slices(np.ones([4, 2], np.float32))
        ds = ds.map(lambda x: x * scale + offset, num_parallel_calls=2)
        ds = ds.filter(lambda x: tf.reduce_sum(x) > scale)
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
    nodes = {n.name: n for n in g.as_graph_def().node}
    pmap = next(n for n in nodes.values() if n.op == "ParallelMapDataset")
    assert pmap.input[1:3] == ["scale", "offset"]
    assert [t for t in pmap.attr["Targuments"].list.type] == [1, 1]  # DT_FLOAT
    filt = next(n for n in nodes.values() if n.op == "FilterDataset")
    assert filt.input[1:] == ["scale"]
    with tf.Session(graph=g) as sess:
        sess.run(it.initializer, {scale: 2.0})
        got = _drain(nxt, sess)
    assert [v.tolist() for v in got] == [[3.0, 4.0]] * 4


def test_a_function_may_not_use_a_tensor_of_an_unrelated_graph():
    other = tf.Graph()
    with other.as_default():
        stray = tf.constant(1, tf.int64)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="must be from the same graph"):
            tf.data.Dataset.range(3).map(lambda x: x + stray)
