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
