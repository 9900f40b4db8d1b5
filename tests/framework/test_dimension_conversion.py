"""Lists holding known Dimensions convert as ints where an integer dtype is asked for or
preferred (TF1's `[-1, x.shape[1] * x.shape[2]]` in a reshape), and only there, as TF 1.15.5
answers."""

import numpy as np
import pytest

import flowloom as tf


def test_dimensions_in_lists_are_ints():
    x = tf.placeholder(tf.float32, [None, 4, 4, 3])
    d = x.shape[1] * x.shape[2] * x.shape[3]
    flat = tf.reshape(x, [-1, d])
    assert flat.shape.as_list() == [None, 48]
    c = tf.constant([[d], [1]], dtype=tf.int32)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(c), [[48], [1]])
        assert sess.run(tf.constant([d], dtype=tf.int64)).dtype == np.int64
    with pytest.raises(TypeError, match=r"Failed to convert object of type <class 'list'> to "
                       r"Tensor\. Contents: \[\[Dimension\(48\)\], \[1\]\]\."):
        tf.constant([[d], [1]])
    with pytest.raises(TypeError, match=r"Expected float32, got Dimension\(48\) of type "
                       r"'Dimension' instead\."):
        tf.constant([d], dtype=tf.float32)


def test_unknown_dimension_is_refused():
    x = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(TypeError):
        tf.constant([x.shape[0], 3])
