"""tf.gather(..., batch_dims=B) (GatherV2's batch_dims attr): values, static shapes and the
gradient against central differences (found by TF 1.15's gather_op_test); list autopacking
takes the dtype of its first tensor, as TF's does."""

import numpy as np
import pytest

import flowloom as tf


def _reference(p, i, batch_dims, axis):
    if batch_dims == 0:
        return np.take(p, i, axis=axis)
    return np.stack([_reference(p[b], i[b], batch_dims - 1, axis - 1) for b in range(len(p))])


@pytest.mark.parametrize("pshape,ishape,batch_dims,axis", [
    ((2, 3, 4, 5), (2, 3, 6), 2, 2), ((2, 3, 4, 5), (2, 3, 6), 2, 3),
    ((2, 4, 5), (2, 6, 7), 1, 2), ((2, 4, 5), (2, 6), -1, 1)])
def test_batch_gather_values_shapes_gradients(pshape, ishape, batch_dims, axis):
    rng = np.random.RandomState(1)
    p = rng.randn(*pshape)
    i = rng.randint(0, pshape[axis], size=ishape)
    bd = batch_dims if batch_dims >= 0 else batch_dims + len(ishape)
    want = _reference(p, i, bd, axis)
    weights = rng.randn(*want.shape)
    with tf.Graph().as_default():
        x = tf.constant(p)
        y = tf.gather(x, i, axis=axis, batch_dims=batch_dims)
        assert y.op.type == "GatherV2" and y.shape.as_list() == list(want.shape)
        (g,) = tf.gradients(tf.reduce_sum(y * weights), [x])
        with tf.Session() as sess:
            got, grad = sess.run([y, g])
    np.testing.assert_allclose(got, want)
    eps = 1e-6
    for idx in list(np.ndindex(p.shape))[::7]:
        up, down = p.copy(), p.copy()
        up[idx] += eps
        down[idx] -= eps
        numeric = ((_reference(up, i, bd, axis) - _reference(down, i, bd, axis)) * weights
                   ).sum() / (2 * eps)
        assert abs(numeric - grad[idx]) < 1e-6


def test_batch_dims_default_axis_and_errors():
    with tf.Graph().as_default():
        p = tf.constant([[10, 11, 12], [13, 14, 15]])
        y = tf.gather(p, [[1, 0], [2, 2]], batch_dims=1)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(y), [[11, 10], [15, 15]])
        with pytest.raises(ValueError, match="batch_dims"):
            tf.gather(tf.zeros([2, 3, 4]), tf.zeros([2, 3], tf.int32), axis=0, batch_dims=1)


def test_autopacking_uses_the_first_tensor_dtype():
    with tf.Graph().as_default():
        n = tf.constant(3, tf.int64)
        packed = tf.convert_to_tensor([1, n, 2])
        assert packed.dtype == tf.int64
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(packed), [1, 3, 2])
