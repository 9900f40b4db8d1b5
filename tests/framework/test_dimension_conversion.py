"""Lists holding known Dimensions convert as ints (TF1's `[-1, x.shape[1] * x.shape[2]]`)."""

import numpy as np
import pytest

import flowloom as tf


def test_dimensions_in_lists_are_ints():
    x = tf.placeholder(tf.float32, [None, 4, 4, 3])
    d = x.shape[1] * x.shape[2] * x.shape[3]
    flat = tf.reshape(x, [-1, d])
    assert flat.shape.as_list() == [None, 48]
    c = tf.constant([[d], [1]])
    assert c.dtype == tf.int32
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(c), [[48], [1]])
        assert sess.run(tf.constant([d], dtype=tf.float32)).dtype == np.float32


def test_unknown_dimension_is_refused():
    x = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(TypeError):
        tf.constant([x.shape[0], 3])
