"""tf.sparse_placeholder as TF 1.15 builds it (checked with TF 1.15.5): a fully given shape is
a Const dense_shape, a shape with None entries a placeholder of the rank; a feed tuple feeds
as many parts as it holds."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import tensor_util


def test_known_shape_makes_a_const_dense_shape():
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32, shape=[7, 9, 2], name="p1")
        minus = tf.sparse_placeholder(tf.float32, shape=[-1, 3])
        assert sp.dense_shape.op.type == "Const" and sp.dense_shape.name == "p1/shape:0"
        assert tensor_util.constant_value(sp.dense_shape).tolist() == [7, 9, 2]
        assert sp.shape.as_list() == [7, 9, 2]
        assert minus.dense_shape.op.type == "Const" and minus.shape.as_list() == [None, 3]
        with tf.Session() as sess:
            got = sess.run(sp, {sp: (np.array([[3, 2, 0]]), np.array([1.0]))})
        assert got.dense_shape.tolist() == [7, 9, 2] and got.values.tolist() == [1.0]


def test_unknown_entries_make_a_placeholder_of_the_rank():
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32, shape=[3, None], name="sp")
        free = tf.sparse_placeholder(tf.float32)
        assert sp.dense_shape.op.type == "Placeholder" and sp.dense_shape.shape.as_list() == [2]
        assert sp.shape.as_list() == [None, None]
        assert free.dense_shape.name == "Placeholder:0" and free.shape.ndims is None
        assert free.indices.shape.as_list() == [None, None]
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="sp/shape"):
                sess.run(sp, {sp: (np.array([[0, 0]]), np.array([1.0]))})
            got = sess.run(sp, {sp: ([[0, 1]], [2.0], [3, 4])})
        assert got.dense_shape.tolist() == [3, 4]
