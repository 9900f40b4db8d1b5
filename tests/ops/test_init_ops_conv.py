"""Initializers of TF 1.15's init_ops that flowloom lacked: convolutional_delta_orthogonal,
convolutional_orthogonal_1d/2d/3d, uniform_unit_scaling_initializer; float-only dtypes;
constant_initializer's value check; tf.constant's fill with the last value (TF 1.x graph
mode); LinSpace's exact endpoint."""

import itertools

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.state import init_ops


def _circular_conv_norm_ratio(kernel, x):
    """|conv(x, kernel)| / |x| for a circular ('wrap') convolution, in NumPy."""
    d = kernel.ndim - 2
    k = kernel.shape[0]
    out = np.zeros(x.shape[:-1] + (kernel.shape[-1],))
    for offs in itertools.product(range(k), repeat=d):
        shifted = x
        for axis, o in enumerate(offs):
            shifted = np.roll(shifted, -(o - k // 2), axis=axis)
        out += shifted @ kernel[offs]
    return np.linalg.norm(out) / np.linalg.norm(x)


@pytest.mark.parametrize("init,shape", [
    (init_ops.convolutional_orthogonal_1d, (3, 4, 6)),
    (init_ops.convolutional_orthogonal_2d, (2, 2, 3, 5)),
    (init_ops.convolutional_orthogonal_3d, (2, 2, 2, 3, 4)),
    (init_ops.convolutional_delta_orthogonal, (3, 3, 4, 4)),
])
def test_convolution_orthogonal_kernels_are_isometries(init, shape):
    with tf.Graph().as_default(), tf.Session() as sess:
        kernel = sess.run(init(gain=2.0, seed=3)(shape))
    assert kernel.shape == shape
    rng = np.random.RandomState(0)
    x = rng.randn(*([7] * (len(shape) - 2) + [shape[-2]]))
    np.testing.assert_allclose(_circular_conv_norm_ratio(kernel, x), 2.0, rtol=1e-4)


def test_convolution_orthogonal_shape_and_dtype_errors():
    with pytest.raises(ValueError, match="floating point"):
        init_ops.convolutional_orthogonal_2d(dtype=tf.string)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="In_filters"):
            init_ops.convolutional_orthogonal_2d()([3, 3, 6, 5])
        with pytest.raises(ValueError, match="Kernel sizes must be equal"):
            init_ops.convolutional_orthogonal_2d()([3, 2, 4, 5])
        with pytest.raises(ValueError, match="five-dimensional"):
            init_ops.convolutional_orthogonal_3d()([3, 3, 4, 5])


def test_uniform_unit_scaling_bounds():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = sess.run(tf.uniform_unit_scaling_initializer(factor=2.0, seed=1)([12, 50]))
    limit = np.sqrt(3.0 / 12) * 2.0
    assert np.all(np.abs(x) <= limit) and np.abs(x).max() > 0.9 * limit


@pytest.mark.parametrize("make", [tf.random_normal_initializer, tf.truncated_normal_initializer,
                                  tf.orthogonal_initializer, tf.variance_scaling_initializer,
                                  init_ops.identity_initializer])
def test_random_initializers_take_float_types_only(make):
    with pytest.raises(ValueError, match="Expected floating point type"):
        make(dtype=tf.int32)


def test_variance_scaling_normal_is_truncated():
    with tf.Graph().as_default() as g:
        tf.variance_scaling_initializer(distribution="normal")([4, 4])
        assert "TruncatedNormal" in [op.type for op in g.get_operations()]


def test_constant_initializer_value_type_and_fill():
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(TypeError, match="Invalid type for initial value"):
            tf.constant_initializer(tf.constant([1.0]))
        # TF 1.15: fewer values repeat the last one, more raise ValueError.
        assert sess.run(tf.constant([1, 2, 3], shape=[2, 3])).tolist() == [[1, 2, 3], [3, 3, 3]]
        assert sess.run(tf.constant([], shape=[2], dtype=tf.float32)).tolist() == [0.0, 0.0]
        with pytest.raises(ValueError, match="Too many elements provided"):
            tf.constant([1, 2, 3, 4], shape=[3])
        v = tf.get_variable("x", shape=[2, 4], initializer=tf.constant_initializer([0, 1, 2]))
        sess.run(v.initializer)
        assert sess.run(v).tolist() == [[0, 1, 2, 2], [2, 2, 2, 2]]


def test_lin_space_ends_at_stop_exactly():
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess.run(tf.lin_space(0.0, 1.0, 42))[-1] == np.float32(1.0)
        assert sess.run(tf.lin_space(0.1, 0.2, 4))[-1] == np.float32(0.2)
