"""tf.sparse_add / tf.sparse.add: SparseAdd (with its threshold), SparseTensorDenseAdd, and
their gradients (SparseAddGrad), checked against NumPy and the analytic gradients
(finite differences: tests/gradient_cases/sparse_cases.py)."""

import numpy as np
import pytest

import flowloom as tf


def _st(indices, values, shape, dtype=tf.float64):
    return tf.SparseTensor(tf.constant(indices, tf.int64), tf.constant(values, dtype), shape)


def test_sparse_plus_sparse_merges_and_thresholds():
    a = _st([[0, 0], [1, 1], [2, 0]], [1.0, 2.0, 3.0], [3, 3])
    b = _st([[0, 0], [1, 2], [2, 0]], [-1.0, 5.0, -2.9], [3, 3])
    total = tf.sparse_add(a, b)
    small = tf.sparse.add(a, b, threshold=0.5)
    assert total.dense_shape.op.type == "Const"  # the static shape is known: a constant
    with tf.Session() as sess:
        t, s = sess.run([total, small])
    # 1 + -1 = 0 is kept at threshold 0 (|0| >= 0), as TF's kernel does.
    assert t.indices.tolist() == [[0, 0], [1, 1], [1, 2], [2, 0]]
    assert np.allclose(t.values, [0.0, 2.0, 5.0, 0.1])
    assert s.indices.tolist() == [[1, 1], [1, 2]] and s.values.tolist() == [2.0, 5.0]
    assert t.dense_shape.tolist() == [3, 3]


def test_sparse_plus_dense_and_errors():
    a = _st([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
    dense = tf.sparse_add(tf.constant([[10.0, 20.0], [30.0, 40.0]], tf.float64), a)
    assert dense.op.type == "SparseTensorDenseAdd"
    with pytest.raises(TypeError, match="At least one input should be SparseTensor"):
        tf.sparse_add(tf.constant(1.0), tf.constant(2.0))
    other = tf.SparseTensor(tf.constant([[0, 0]], tf.int64), tf.constant([1.0], tf.float64),
                            tf.placeholder_with_default(tf.constant([2, 3], tf.int64), [2]))
    mismatch = tf.sparse_add(a, other)  # the shapes differ only at run time
    with tf.Session() as sess:
        assert sess.run(dense).tolist() == [[10.0, 21.0], [32.0, 40.0]]
        with pytest.raises(tf.errors.InvalidArgumentError, match="shapes do not match"):
            sess.run(mismatch)


def test_gradients_route_to_the_summed_entries():
    av = tf.constant([1.0, 2.0, 3.0], tf.float64)
    bv = tf.constant([-1.0, 5.0], tf.float64)
    d = tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float64)
    a = tf.SparseTensor(tf.constant([[0, 0], [1, 1], [2, 0]], tf.int64), av, [3, 3])
    b = tf.SparseTensor(tf.constant([[0, 0], [1, 2]], tf.int64), bv, [3, 3])
    w = tf.constant([1.5, -2.0, 0.5, 3.0], tf.float64)
    loss = tf.reduce_sum(tf.square(tf.sparse_add(a, b).values) * w)
    small = tf.SparseTensor(tf.constant([[0, 1]], tf.int64), tf.constant([2.0], tf.float64),
                            [2, 2])
    loss2 = tf.reduce_sum(tf.square(tf.sparse_add(small, d)))
    grads = tf.gradients(loss, [av, bv]) + tf.gradients(loss2, [d])
    with tf.Session() as sess:
        ga, gb, gd = sess.run(grads)
    summed = np.array([0.0, 2.0, 5.0, 3.0])  # the values of a + b in index order
    assert np.allclose(ga, [2 * summed[0] * 1.5, 2 * summed[1] * -2.0, 2 * summed[3] * 3.0])
    assert np.allclose(gb, [2 * summed[0] * 1.5, 2 * summed[2] * 0.5])
    assert np.allclose(gd, 2 * np.array([[1.0, 4.0], [3.0, 4.0]]))
