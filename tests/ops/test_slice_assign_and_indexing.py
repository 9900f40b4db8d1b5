"""Sliced assignment (StridedSliceAssign / ResourceStridedSliceAssign behind `v[...].assign`),
tf.gather_nd with batch_dims, boolean-mask and int64 indexing, TF's index TypeError, and
ones/zeros of a scalar shape tensor."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.array import array_ops


@pytest.mark.parametrize("use_resource", [False, True])
def test_slice_assign_matches_numpy(use_resource):
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    specs = [(slice(None),), (slice(1, 2), 1), (1, 1), (slice(None), None, slice(None)),
             (None, None, 0, slice(0, 1)), (slice(None, None, 1), slice(None, None, -2)),
             (slice(8, 10), 0)]
    for spec in specs:
        with tf.Graph().as_default(), tf.Session() as sess:
            v = tf.get_variable("v", initializer=x, use_resource=use_resource)
            sess.run(v.initializer)
            value = np.arange(x[spec].size, dtype=np.float32).reshape(x[spec].shape) + 10
            want = x.copy()
            want[spec] = value
            np.testing.assert_array_equal(sess.run(v[spec].assign(value)), want)
            np.testing.assert_array_equal(sess.run(tf.assign(v[spec], value)), want)
            op_types = [op.type for op in tf.get_default_graph().get_operations()]
            assert ("ResourceStridedSliceAssign" if use_resource else "StridedSliceAssign") \
                in op_types


def test_slice_assign_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(ValueError, match="only supported for variables"):
            tf.constant([1, 2, 3])[:2].assign([1, 2])
        v = tf.Variable([1, 2])
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value"):
            sess.run(v[:].assign([1, 2]))
        with pytest.raises(TypeError):
            v[:].assign(tf.constant([3, 4], dtype=tf.int8))
        sess.run(v.initializer)
        with pytest.raises(tf.errors.UnimplementedError, match="does not match r-value"):
            sess.run(v[:].assign([1, 2, 3]))
        r = tf.get_variable("r", initializer=[1, 2], use_resource=True)
        with pytest.raises(ValueError):
            r[:].assign(tf.constant([3, 4], dtype=tf.int64))


def test_gather_nd_batch_dims():
    params = np.random.RandomState(0).rand(3, 4, 5)
    indices = np.array([[[1], [3]], [[0], [2]], [[2], [2]]]).reshape(3, 2, 1)
    with tf.Graph().as_default(), tf.Session() as sess:
        out = tf.gather_nd(tf.constant(params), indices, batch_dims=1)
        assert out.shape.as_list() == [3, 2, 5]  # the static shape TF infers
        want = np.stack([params[b][indices[b][:, 0]] for b in range(3)])
        np.testing.assert_array_equal(sess.run(out), want)
        same = tf.gather_nd(tf.constant(params), indices, batch_dims=tf.constant([1]))
        np.testing.assert_array_equal(sess.run(same), want)
        # a full index gives a scalar
        assert sess.run(tf.gather_nd(tf.constant(params[0]), [1, 2])).shape == ()
        with pytest.raises(ValueError, match="must be less than rank"):
            array_ops.batch_gather_nd(tf.constant(params), indices, batch_dims=3)


def test_indexing_masks_int64_and_errors():
    raw = np.arange(1, 19, dtype=np.float32).reshape(3, 2, 3)
    with tf.Graph().as_default(), tf.Session() as sess:
        t = tf.constant(raw)
        np.testing.assert_array_equal(sess.run(t[raw > 10]), raw[raw > 10])
        np.testing.assert_array_equal(sess.run(t[t > 10.0]), raw[raw > 10])
        i = tf.constant(1, tf.int64)
        sliced = t[i:, 0]
        assert sliced.op.inputs[3].dtype == tf.int64
        np.testing.assert_array_equal(sess.run(sliced), raw[1:, 0])
        for bad in ("foo", 0.0, tf.constant([1, 2]), tf.constant(0.0)):
            with pytest.raises(TypeError, match="Only integers, slices"):
                t[bad]
        with pytest.raises(ValueError, match="Multiple ellipses"):
            t[..., :, ...]


def test_ones_of_a_scalar_shape_tensor():
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess.run(tf.ones(tf.constant(3))).tolist() == [1.0, 1.0, 1.0]
        assert sess.run(tf.zeros(tf.rank(tf.zeros([2, 2])))).tolist() == [0.0, 0.0]


def test_strided_slice_grad_wrapper():
    with tf.Graph().as_default(), tf.Session() as sess:
        dy = tf.reshape(tf.range(1.0, 5.0), [4, 1, 1])
        out = array_ops.strided_slice_grad(tf.constant([6, 4, 4], tf.int64),
                                           tf.constant([0, 0, 0], tf.int64),
                                           tf.constant([4, 1, 1], tf.int64),
                                           tf.constant([1, 1, 1], tf.int64), dy)
        got = sess.run(out)
        assert got.shape == (6, 4, 4) and got[:4, 0, 0].tolist() == [1.0, 2.0, 3.0, 4.0]
        with pytest.raises(TypeError, match="Input 'begin' of 'StridedSliceGrad'"):
            array_ops.strided_slice_grad(tf.constant([6, 4, 4], tf.int64),
                                         tf.constant([0, 0, 0]), tf.constant([4, 1, 1], tf.int64),
                                         tf.constant([1, 1, 1], tf.int64), dy)


def test_zero_d_integer_array_indexes_like_its_integer():
    with tf.Graph().as_default(), tf.Session() as sess:
        t = tf.constant(np.arange(6).reshape(2, 3))
        assert sess.run(t[np.array(1)]).tolist() == [3, 4, 5]


def test_matmul_flops_statistic():
    from flowloom.framework import op_stats

    with tf.Graph().as_default() as g:
        m = tf.matmul(tf.zeros([3, 4]), tf.zeros([5, 4]), transpose_b=True)
        assert op_stats.get_stats_for_node_def(g, m.op.node_def, "flops").value == 2 * 4 * 15
