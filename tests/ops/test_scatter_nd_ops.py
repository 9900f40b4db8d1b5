"""ScatterNd{Update,Add,Sub} on ref and resource variables, ScatterNdNonAliasingAdd,
TensorScatter{Update,Add,Sub} with gradients, TF's shape errors (found by TF 1.15's
scatter_nd_ops_test)."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.state import scatter_nd_ops


@pytest.mark.parametrize("use_resource", [False, True])
def test_variable_scatter_nd(use_resource):
    with tf.Graph().as_default():
        v = tf.Variable(np.arange(6, dtype=np.float32), use_resource=use_resource)
        idx = [[4], [3], [4]]
        up = tf.scatter_nd_update(v, idx, [10.0, 11.0, 12.0])
        add = tf.scatter_nd_add(v, idx, [1.0, 1.0, 1.0])
        sub = tf.scatter_nd_sub(v, [[0]], [5.0])
        bad = tf.scatter_nd_add(v, [[6]], [1.0])
        with tf.Session() as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(up), [0, 1, 2, 11, 12, 5])
            np.testing.assert_array_equal(sess.run(add), [0, 1, 2, 12, 14, 5])
            np.testing.assert_array_equal(sess.run(sub), [-5, 1, 2, 12, 14, 5])
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"indices\[0\] = \[6\] does not index into shape \[6\]"):
                sess.run(bad)


def test_shape_errors_at_build_time():
    with tf.Graph().as_default():
        ref = tf.Variable(tf.zeros([2, 2, 2], tf.int32))
        with pytest.raises(ValueError, match=r"The outer \d+ dimensions of indices\.shape="):
            tf.scatter_nd_update(ref, tf.zeros([3, 2, 2], tf.int32), tf.zeros([2, 2, 2], tf.int32))
        with pytest.raises(ValueError, match=r"The inner \d+ dimensions of input\.shape="):
            tf.scatter_nd_update(ref, tf.zeros([2, 2, 1], tf.int32), tf.zeros([2, 2], tf.int32))
        with pytest.raises(ValueError, match="The outer"):
            tf.scatter_nd(tf.zeros([3, 2, 2], tf.int32), tf.zeros([2, 2, 2]), [2, 2, 2])


def test_tensor_scatter_ops_and_gradients():
    with tf.Graph().as_default():
        t = tf.ones([8])
        idx = tf.constant([[4], [3], [1], [7]])
        up = tf.constant([9.0, 10.0, 11.0, 12.0])
        assigned = tf.tensor_scatter_update(t, idx, up)
        added = tf.tensor_scatter_add(t, idx, up)
        subbed = tf.tensor_scatter_sub(t, idx, up)
        non_alias = scatter_nd_ops.scatter_nd_non_aliasing_add(t, idx, up)
        w = tf.constant(np.arange(8, dtype=np.float32))
        g_t, g_up = tf.gradients(tf.reduce_sum(assigned * w), [t, up])
        g_sub = tf.gradients(tf.reduce_sum(subbed * w), [up])[0]
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(assigned), [1, 11, 1, 10, 9, 1, 1, 12])
            np.testing.assert_array_equal(sess.run(added), [1, 12, 1, 11, 10, 1, 1, 13])
            np.testing.assert_array_equal(sess.run(subbed), [1, -10, 1, -9, -8, 1, 1, -11])
            np.testing.assert_array_equal(sess.run(non_alias), sess.run(added))
            np.testing.assert_array_equal(sess.run(g_t), [0, 0, 2, 0, 0, 5, 6, 0])
            np.testing.assert_array_equal(sess.run(g_up), [4, 3, 1, 7])
            np.testing.assert_array_equal(sess.run(g_sub), [-4, -3, -1, -7])
