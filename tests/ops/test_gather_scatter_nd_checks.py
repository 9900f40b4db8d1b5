"""GatherV2 / GatherNd / ScatterNd (and ResourceGatherNd): TF 1.15's shape rules, kernel checks
and messages, the IndexedSlices gradient of a row-picking gather_nd, string scatter_nd."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.state import scatter_nd_ops


def _raises(sess, t, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        sess.run(t)


def test_gather_axis_rules_and_messages():
    axis = tf.placeholder(tf.int32)
    out = tf.gather(tf.constant([[0, 1, 2]]), tf.constant([[0, 0], [0, 0]]), axis=axis)
    assert out.shape.as_list() == [None, None, None]
    assert tf.gather(tf.constant([[0, 1, 2]]), tf.placeholder(tf.int32), axis=axis).shape \
        .ndims is None
    with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
        tf.gather([0, 1, 2], 0, axis=1)
    params = tf.placeholder(tf.int32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Expected axis in the range \[-1, 1\), but got -2"):
            sess.run(tf.gather(params, 0, axis=-2), {params: [0, 1, 2]})
        _raises(sess, tf.gather([[0, 1, 2], [3, 4, 5]], [[7]], axis=1),
                r"indices\[0,0\] = 7 is not in \[0, 3\)")
        _raises(sess, tf.gather([1, 2], 5), r"^indices = 5 is not in \[0, 2\)")


def test_gather_nd_checks():
    with tf.Session() as sess:
        _raises(sess, tf.gather_nd([0, 1, 2], [[[0], [7]]]),
                r"indices\[0,1\] = \[7\] does not index into param shape \[3\]")
        _raises(sess, tf.gather_nd(np.empty((0, 3), np.float32), np.zeros((1, 2), np.int32)),
                "Requested more than 0 entries, but params is empty.")
        params = np.arange(24.).reshape(6, 2, 2)
        whole = tf.gather_nd(params, tf.constant([[], []], dtype=tf.int32))
        assert whole.shape.as_list() == [2, 6, 2, 2]
        assert np.array_equal(sess.run(whole), np.stack([params, params]))
        empty = tf.gather_nd(np.ones((3, 3), np.float32), np.empty((0, 1), np.int32))
        assert empty.shape.as_list() == [0, 3] and sess.run(empty).shape == (0, 3)


def test_gather_nd_gradient_of_rows_is_indexed_slices():
    inputs = tf.constant([[1., 2.], [3., 4.]], tf.float64)
    rows = tf.gather_nd(inputs, tf.constant([[1], [0]]))
    (grad,) = tf.gradients(rows, [inputs], tf.constant([[1., 2.], [3., 4.]], tf.float64))
    assert isinstance(grad, tf.IndexedSlices)
    elems = tf.gather_nd(inputs, tf.constant([[1, 0]]))
    (dense,) = tf.gradients(elems, [inputs])
    with tf.Session() as sess:
        assert sess.run(tf.convert_to_tensor(grad)).tolist() == [[3., 4.], [1., 2.]]
        assert sess.run(dense).tolist() == [[0., 0.], [1., 0.]]


def test_resource_variable_gather_nd():
    v = tf.get_variable("gnd", initializer=tf.constant([[1, 2], [3, 4], [5, 6]]),
                        use_resource=True)
    out = tf.gather_nd(v, [[0, 1], [2, 0]])
    assert out.op.inputs[0].op.type == "ResourceGatherNd"
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(out).tolist() == [2, 5]


def test_scatter_nd_empty_output_and_strings():
    with pytest.raises(ValueError, match="Indices and updates specified for empty output"):
        tf.scatter_nd(tf.zeros([2, 2, 2], tf.int32), tf.zeros([2, 2, 2], tf.int32), [0, 3, 2])
    idx, upd = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="empty output shape"):
            sess.run(tf.scatter_nd(idx, upd, [0, 3, 2]),
                     {idx: np.zeros([2, 2, 2]), upd: np.zeros([2, 2, 2])})
        assert sess.run(tf.scatter_nd(tf.zeros([0], tf.int32), tf.zeros([0], tf.int32),
                                      [0])).size == 0
        words = tf.scatter_nd([[4], [3], [3], [7]], tf.constant(["a", "b", "b", "c"]), [8])
        assert sess.run(words).tolist() == [b"", b"", b"", b"bb", b"a", b"", b"", b"c"]
        base = tf.zeros([0, 3], tf.int32)
        assert sess.run(scatter_nd_ops.scatter_nd_non_aliasing_add(
            base, tf.zeros([0, 1], tf.int32), tf.zeros([0, 3], tf.int32))).shape == (0, 3)


def test_resource_gather_nd_gradient_matches_finite_differences():
    init = np.array([[1., 2.], [3., 4.], [5., 6.]])
    v = tf.get_variable("gnd_grad", initializer=tf.constant(init), use_resource=True)
    weights = tf.constant([[1.5, -2.0], [0.5, 3.0]], tf.float64)
    loss = tf.reduce_sum(tf.square(tf.gather_nd(v, [[[0, 1], [2, 0]], [[2, 0], [1, 1]]]))
                         * weights)
    (grad,) = tf.gradients(loss, [v])
    with tf.Session() as sess:
        sess.run(v.initializer)
        got = sess.run(tf.convert_to_tensor(grad))
        eps = 1e-6
        numeric = np.zeros_like(init)
        for i in np.ndindex(init.shape):
            for sign in (1, -1):
                bumped = init.copy()
                bumped[i] += sign * eps
                sess.run(v.assign(bumped))
                numeric[i] += sign * sess.run(loss) / (2 * eps)
    assert np.allclose(got, numeric, atol=1e-4)
