"""embedding_lookup over partitioned tables, shards of unknown size, NumPy tables and
transforms; embedding_lookup_sparse's float16 and rank-3 cases; the scatter shape check;
control dependencies on IndexedSlices; ParallelDynamicStitch (found by TF 1.15's
embedding_ops_test)."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.array import data_flow_ops
from flowloom.ops.nn import embedding_ops


def _shards(table, n, strategy):
    """The rows each shard holds under TF's partition strategies."""
    rows = table.shape[0]
    if strategy == "mod":
        return [table[i::n] for i in range(n)]
    sizes = [rows // n + (1 if i < rows % n else 0) for i in range(n)]
    return np.split(table, np.cumsum(sizes)[:-1])


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_lookup_over_shards_and_partitioned_variable(strategy):
    table = np.arange(13 * 4, dtype=np.float32).reshape(13, 4)
    ids = np.array([[0, 12, 5], [7, 7, 3]])
    with tf.Graph().as_default(), tf.Session() as sess:
        shards = [tf.placeholder(tf.float32, shape=None) for _ in range(5)]
        feed = dict(zip(shards, _shards(table, 5, strategy)))
        out = tf.nn.embedding_lookup(shards, ids, partition_strategy=strategy)
        np.testing.assert_array_equal(sess.run(out, feed), table[ids])
        # A partitioned variable holds contiguous blocks: "div" reads its rows back.
        pv = tf.get_variable("t", initializer=tf.constant(table),
                             partitioner=tf.min_max_variable_partitioner(5, min_slice_size=1))
        assert len(list(pv)) == 5
        sess.run(tf.global_variables_initializer())
        got = tf.nn.embedding_lookup(pv, ids, partition_strategy="div")
        assert got.get_shape().as_list() == [2, 3, 4]
        np.testing.assert_array_equal(sess.run(got), table[ids])


def test_numpy_tables_and_transform():
    table = np.random.RandomState(0).rand(6, 3) + 2.0
    ids = np.array([[1, 5], [0, 2]])
    with tf.Graph().as_default(), tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.nn.embedding_lookup(table, ids)), table[ids])
        norms = np.linalg.norm(table, axis=1)
        for shards in ([table], [table[0::2], table[1::2]]):
            out = embedding_ops._embedding_lookup_and_transform(
                shards, ids, transform_fn=lambda x: tf.norm(x, axis=1))
            np.testing.assert_allclose(sess.run(out), norms[ids], rtol=1e-6)


def test_lookup_sparse_float16_and_rank3_no_weights():
    table = np.arange(3 * 2 * 2, dtype=np.float16).reshape(3, 2, 2)
    with tf.Graph().as_default(), tf.Session() as sess:
        ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([0, 2, 1], tf.int64),
                              [3, 2])
        out = tf.nn.embedding_lookup_sparse(tf.constant(table), ids, None, combiner="sqrtn")
        assert out.dtype == tf.float32  # combined in float32, as TF
        expected = np.stack([(table[0] + table[2]) / np.sqrt(2), np.zeros((2, 2)), table[1]])
        np.testing.assert_allclose(sess.run(out), expected, rtol=1e-6)
        with pytest.raises(TypeError, match="SparseTensor"):
            tf.nn.embedding_lookup_sparse(tf.constant(table), [0, 1], None)


def test_scatter_add_checks_update_shapes_at_build_time():
    with tf.Graph().as_default():
        var = tf.Variable(tf.zeros([8, 4, 4]))
        indices = tf.placeholder(tf.int32, shape=[3])
        tf.scatter_add(var, indices, tf.placeholder(tf.float32, shape=[3, 4, 4]))
        tf.scatter_add(var, indices, tf.constant(1.0))  # a scalar update is allowed
        with pytest.raises(ValueError, match="ScatterAdd"):
            tf.scatter_add(var, indices, tf.placeholder(tf.float32, shape=[4, 4, 4]))
        with pytest.raises(ValueError):
            tf.scatter_sub(var, indices, tf.placeholder(tf.float32, shape=[3, 4, 3]))


def test_control_dependencies_take_indexed_slices():
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        grad = tf.gradients(tf.gather(tf.square(x), [1]), x)[0]  # Square's grad gets slices
        assert grad.get_shape().as_list() == [2, 2]
        slices = tf.IndexedSlices(tf.constant([1.0]), tf.constant([0]))
        with tf.control_dependencies([slices]):
            y = tf.identity(x)
        assert slices.op in y.op.control_inputs


def test_parallel_dynamic_stitch():
    with tf.Graph().as_default(), tf.Session() as sess:
        out = data_flow_ops.parallel_dynamic_stitch(
            [tf.constant([0, 2]), tf.constant([1, 3])],
            [tf.constant([[1, 1], [3, 3]]), tf.constant([[2, 2], [4, 4]])])
        assert out.op.type == "ParallelDynamicStitch"
        np.testing.assert_array_equal(sess.run(out), [[1, 1], [2, 2], [3, 3], [4, 4]])
        data = tf.constant([1.0, 2.0])
        grad = tf.gradients(data_flow_ops.parallel_dynamic_stitch([tf.constant([1, 0])],
                                                                  [data]) * [3.0, 5.0], data)
        np.testing.assert_array_equal(sess.run(grad[0]), [5.0, 3.0])
