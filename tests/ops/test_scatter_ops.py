"""ScatterAdd, ScatterSub, ScatterUpdate: in-place row updates of a variable."""

import numpy as np
import pytest

import flowloom as tf


def test_scatter_updates_rows_and_sums_repeats():
    v = tf.Variable(np.zeros((3, 2), np.float32), name="v")
    add = v.scatter_add(tf.IndexedSlices(tf.constant([[1., 2.], [3., 4.]]), tf.constant([2, 2])))
    sub = tf.scatter_sub(v, [0], [[5., 5.]])
    update = v.scatter_update(tf.IndexedSlices(tf.constant([[9., 9.]]), tf.constant([1])))
    assert [add.op.type, sub.op.type, update.op.type] == ["ScatterAdd", "ScatterSub",
                                                          "ScatterUpdate"]
    with tf.Session() as sess:
        sess.run(v.initializer)
        for op in (add, sub, update):
            sess.run(op)
        assert sess.run(v).tolist() == [[-5., -5.], [9., 9.], [4., 6.]]


def test_scatter_errors():
    v = tf.Variable(np.zeros((3, 2), np.float32))
    bad_index = tf.scatter_add(v, [3], [[1., 1.]])
    with pytest.raises(ValueError, match="indices.shape"):  # static shapes: at build, as TF
        tf.scatter_add(v, [0], [[1., 1., 1.]])
    updates = tf.placeholder(tf.float32)
    bad_shape = tf.scatter_add(v, [0], updates)
    with pytest.raises(TypeError, match="not IndexedSlices"):
        v.scatter_add(tf.constant([1.0]))
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"is not in \[0, 3\)"):
            sess.run(bad_index)
        with pytest.raises(tf.errors.InvalidArgumentError, match="updates.shape"):
            sess.run(bad_shape, {updates: [[1., 1., 1.]]})


def test_scatter_mul_div_min_max_combine_repeated_indices():
    v = tf.Variable(np.array([[8., -9.], [2., 3.], [5., 5.]], np.float32))
    ops = [tf.scatter_mul(v, [0, 0], [[2., 2.], [0.5, 3.]]),
           v.scatter_div(tf.IndexedSlices(tf.constant([[2., 4.], [2., 1.]]), tf.constant([1, 1]))),
           tf.scatter_min(v, [2, 2], [[4., 7.], [6., 1.]]),
           tf.scatter_max(v, [2], 4.5)]  # a scalar update applies to every row named
    assert [op.op.type for op in ops] == ["ScatterMul", "ScatterDiv", "ScatterMin", "ScatterMax"]
    with tf.Session() as sess:
        sess.run(v.initializer)
        for op in ops:
            sess.run(op)
        assert sess.run(v).tolist() == [[8., -54.], [0.5, 0.75], [4.5, 4.5]]


def test_scatter_div_of_integers_truncates_toward_zero():
    v = tf.Variable(np.array([7, -7, 9], np.int32))
    div = tf.scatter_div(v, [0, 1, 2, 2], [2, 2, -2, 2])
    zero = tf.scatter_div(v, [0], [0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(div)
        assert sess.run(v).tolist() == [3, -3, -2]
        with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
            sess.run(zero)


def test_resource_scatter_mul_and_div():
    v = tf.get_variable("rv", initializer=np.array([6, 10], np.int32), use_resource=True)
    ops = [tf.scatter_mul(v, [0], [3]), tf.scatter_div(v, [1, 1], [3, 2])]
    # As TF 1.15: each returns the variable after its update (an unread variable), whose
    # op is the update.
    assert [op.op.type for op in ops] == ["ResourceScatterMul", "ResourceScatterDiv"]
    with tf.Session() as sess:
        sess.run(v.initializer)
        for op in ops:
            sess.run(op)
        assert sess.run(v).tolist() == [18, 1]
