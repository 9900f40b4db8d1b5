"""SparseTensors and IndexedSlices through tf.cond and tf.while_loop, component by component
(nest's `expand_composites`), with TF 1.15's shape invariants for them.

Found by TF 1.15's control_flow_ops_py_test (testCondSparseTensor, testCondIndexedSlices*,
testWhileShapeInference{SparseTensor,IndexedSlices}, testWhileBadShape*, testWhileGrad_*),
which failed with "Expected string, got SparseTensor".
"""

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import nest


def _sparse():
    return tf.SparseTensor(tf.constant([[0], [3]], dtype=tf.int64), tf.constant([2.0, 4.0]),
                           tf.constant([10], dtype=tf.int64))


def test_nest_expands_composites_only_when_asked():
    st = _sparse()
    assert nest.flatten([st]) == [st]
    assert nest.flatten([st], expand_composites=True) == [st.indices, st.values, st.dense_shape]
    back = nest.pack_sequence_as([st], [st.indices, st.values * 2, st.dense_shape],
                                 expand_composites=True)
    assert isinstance(back[0], tf.SparseTensor) and back[0].indices is st.indices
    with pytest.raises(TypeError):
        nest.assert_same_structure(st, tf.IndexedSlices(st.values, st.indices),
                                   expand_composites=True)


def test_cond_of_sparse_tensors_and_indexed_slices():
    st = _sparse()
    pred = tf.less(1, 2)
    r = tf.cond(pred, lambda: tf.SparseTensor(st.indices + 1, st.values + 1, st.dense_shape),
                lambda: tf.SparseTensor(st.indices, st.values - 1, st.dense_shape))
    assert isinstance(r, tf.SparseTensor) and r.values.shape.as_list() == [2]
    v = tf.constant([10])
    i32, i64 = tf.constant([0]), tf.constant([0], dtype=tf.int64)
    s = tf.cond(pred, lambda: tf.IndexedSlices(v + 1, i32), lambda: tf.IndexedSlices(v - 1, i64))
    assert isinstance(s, tf.IndexedSlices) and s.indices.dtype == tf.int64  # TF casts
    with tf.Session() as sess:
        vals, ind, svals = sess.run([r.values, r.indices, s.values])
    np.testing.assert_array_equal(vals, [3.0, 5.0])
    np.testing.assert_array_equal(ind, [[1], [4]])
    np.testing.assert_array_equal(svals, [11])


def test_while_loop_over_sparse_tensor_and_indexed_slices():
    st = _sparse()
    i = tf.constant(0)

    def c(i, _):
        return i < 10

    _, r = tf.while_loop(c, lambda i, x: [i + 1, tf.SparseTensor(x.indices, x.values * 2.0,
                                                                 x.dense_shape)], [i, st])
    # TF's default invariant for a SparseTensor: any number of values, the same rank.
    assert r.indices.shape.as_list() == [None, 1] and r.values.shape.as_list() == [None]
    grad = tf.gradients(r.values, st.values)[0]
    xs = tf.IndexedSlices(tf.constant([[2.0, 4.0], [3.0, 5.0]]), tf.constant([0, 3]),
                          tf.constant([10, 2]))
    _, r2 = tf.while_loop(c, lambda i, x: [i + 1, tf.IndexedSlices(x.values * 2.0, x.indices,
                                                                   x.dense_shape)], [i, xs])
    assert r2.values.shape.as_list() == [2, 2] and r2.dense_shape.shape.as_list() == [2]
    with tf.Session() as sess:
        vals, g = sess.run([r.values, grad])
    np.testing.assert_allclose(vals, [2048.0, 4096.0])
    np.testing.assert_allclose(g, [1024.0, 1024.0])


def test_while_loop_sparse_shape_invariants():
    st = _sparse()
    i = tf.constant(0)

    def grow_rank(i, x):
        return [i + 1, tf.SparseTensor(tf.concat([x.indices, [[0], [0]]], axis=1), x.values,
                                       tf.concat([x.dense_shape, [10]], axis=0))]
    with pytest.raises(ValueError, match="is not compatible with"):
        tf.while_loop(lambda i, _: i < 10, lambda i, x: [i + 1, x], [i, st],
                      [i.get_shape(), tf.TensorShape([5])])
    with pytest.raises(ValueError):
        tf.while_loop(lambda i, _: i < 3, grow_rank, [i, st])
    _, r = tf.while_loop(lambda i, _: i < 3, grow_rank, [i, st],
                         [i.get_shape(), tf.TensorShape([None])])
    assert r.indices.shape.as_list() == [None, None]
    with tf.Session() as sess:
        assert sess.run(r.dense_shape).tolist() == [10, 10, 10, 10]


def test_cond_returning_namedtuples_inside_a_while_loop():
    import collections

    Pair = collections.namedtuple("Pair", "a b")

    def body(i, m):
        r, _ = tf.cond(tf.constant(True), lambda: (Pair(m * 2, m * 4), m),
                       lambda: (Pair(m * 4, m * 2), m))
        return [i + 1, r.a]
    it, m = tf.while_loop(lambda i, m: i < 3, body, [tf.constant(0), tf.ones([2, 2])])
    assert it.shape.as_list() == [] and m.shape.as_list() == [2, 2]
    with tf.Session() as sess:
        assert sess.run(m)[0, 0] == 8.0
