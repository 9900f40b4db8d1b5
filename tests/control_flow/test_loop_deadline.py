"""RunOptions.timeout_in_ms ends a tf.while_loop that never stops (TF: DeadlineExceededError).

Found by TF 1.15's control_flow_ops_py_test.testWhileTimeOut, which hung flowloom's process.
"""

import time

import pytest

import flowloom as tf


def test_endless_while_loop_stops_at_run_deadline():
    with tf.Graph().as_default():
        r = tf.while_loop(lambda x: True, lambda x: x + 1, [tf.constant(0)])
        with tf.Session() as sess:
            start = time.monotonic()
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run(r, options=tf.RunOptions(timeout_in_ms=20))
            assert time.monotonic() - start < 10
            # The session is still usable, and a finite loop under a deadline runs to the end.
            finite = tf.while_loop(lambda x: x < 100, lambda x: x + 1, [tf.constant(0)])
            assert sess.run(finite, options=tf.RunOptions(timeout_in_ms=60000)) == 100


def test_operation_timeout_in_config_applies_to_loops():
    with tf.Graph().as_default():
        r = tf.while_loop(lambda x: True, lambda x: x + 1, [tf.constant(0)])
        config = tf.ConfigProto(operation_timeout_in_ms=20)
        with tf.Session(config=config) as sess:
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run(r)
