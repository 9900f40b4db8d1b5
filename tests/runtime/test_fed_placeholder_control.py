"""A control dependency on a fed Placeholder is satisfied by the feed (TF replaces the fed
node, its control edges included), so the placeholder op itself never runs."""

import numpy as np

import flowloom as tf


def test_control_dependency_on_a_fed_placeholder():
    x = tf.placeholder(tf.float32, [2])
    with tf.control_dependencies([x]):
        y = tf.identity(tf.constant(3.0))
    with tf.Session() as sess:
        assert sess.run(y, {x: np.zeros(2, np.float32)}) == 3.0
        # Unfed, the placeholder still has to be fed.
        try:
            sess.run(y)
        except tf.errors.InvalidArgumentError as e:
            assert "must feed" in str(e)
        else:
            raise AssertionError("running without the feed should fail")


def test_control_dependency_on_a_fed_placeholder_inside_a_loop():
    x = tf.placeholder(tf.int32, [])
    with tf.control_dependencies([x]):
        n = tf.identity(tf.constant(3))
    out = tf.while_loop(lambda i: i < n, lambda i: i + 1, [tf.constant(0)])
    with tf.Session() as sess:
        assert sess.run(out, {x: 1}) == 3
