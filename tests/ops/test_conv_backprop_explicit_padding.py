"""Conv2DBackpropInput with explicit paddings that crop (padding larger than the kernel
reach) and strides: the input gradient has the input's size and equals the VALID gradient of
the padded input, cropped (how TF 1.15's conv_ops_test computes its expectation)."""

import numpy as np
import pytest

import flowloom as tf


@pytest.mark.parametrize("input_sizes,filter_sizes,output_sizes,strides,pads", [
    ([1, 2, 3, 2], [1, 1, 2, 1], [1, 4, 3, 1], [1, 2], [[1, 1], [1, 1]]),
    ([1, 2, 3, 1], [2, 2, 1, 2], [1, 3, 4, 2], [1, 1], [[1, 1], [1, 1]]),
    ([2, 4, 3, 3], [2, 2, 3, 2], [2, 3, 4, 2], [2, 1], [[2, 1], [1, 1]]),
])
def test_explicit_padding_input_gradient(input_sizes, filter_sizes, output_sizes, strides,
                                         pads):
    rng = np.random.RandomState(1)
    w = rng.randn(*filter_sizes).astype(np.float32)
    dy = rng.randn(*output_sizes).astype(np.float32)
    padded = list(input_sizes)
    padded[1] += sum(pads[0])
    padded[2] += sum(pads[1])
    with tf.Graph().as_default(), tf.Session() as sess:
        full = tf.nn.conv2d_backprop_input(padded, w, dy, strides=[1] + strides + [1],
                                           padding="VALID")
        want = full[:, pads[0][0]:padded[1] - pads[0][1], pads[1][0]:padded[2] - pads[1][1]]
        got = tf.nn.conv2d_backprop_input(tf.constant(input_sizes), w, dy,
                                          strides=[1] + strides + [1],
                                          padding=[[0, 0]] + pads + [[0, 0]])
        got_v, want_v = sess.run([got, want])
    assert got_v.shape == tuple(input_sizes)
    np.testing.assert_allclose(got_v, want_v, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("padding,data_format,match", [
    ([[0, 0], [0, -1], [1, 2], [0, 0]], "NHWC", "nonnegative"),
    ([[1, 0], [0, 0], [0, 0], [0, 0]], "NHWC", "batch or depth"),
    ([[0, 0], [0, 1], [0, 0], [0, 0]], "NCHW", "batch or depth"),
])
def test_conv2d_explicit_padding_checked_at_build_time(padding, data_format, match):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=match):
            tf.nn.conv2d(tf.placeholder(tf.float32), tf.placeholder(tf.float32),
                         strides=[1, 1, 1, 1], padding=padding, data_format=data_format)


def test_filter_gradient_of_an_empty_output_is_zeros():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant(np.ones((1, 2, 3, 1), np.float32))
        dy = tf.constant(np.ones((1, 1, 2, 0), np.float32))
        got = sess.run(tf.nn.conv2d_backprop_filter(x, [2, 2, 1, 0], dy, strides=[1, 1, 1, 1],
                                                    padding="VALID"))
        assert got.shape == (2, 2, 1, 0)


@pytest.mark.parametrize("padding", [[[0], [0], [0], [0]], [0, 0, 0, 0]])
def test_explicit_padding_elements_must_be_pairs(padding):
    with tf.Graph().as_default(), pytest.raises(ValueError, match="explicit"):
        tf.nn.conv2d(tf.placeholder(tf.float32), tf.placeholder(tf.float32),
                     strides=[1, 1, 1, 1], padding=padding)
