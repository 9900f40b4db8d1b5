"""Build-time ValueError/TypeError checks TF's shape functions make (found by TF 1.15's
concat_op_test, constant_op_test, array_ops_test, softplus/softsign tests)."""

import numpy as np
import pytest

import flowloom as tf


def test_build_time_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Can't concatenate scalars \(use tf\.stack"):
            tf.concat([tf.constant(7)] * 3, tf.placeholder(tf.int32))
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            tf.concat([tf.zeros([2])] * 2, [0])
        for shape in ((-1,), (2, -1)):
            with pytest.raises(ValueError, match="Fill dimensions must be >= 0"):
                tf.fill(shape, 7)
        with pytest.raises(ValueError, match="axis 0 specified more than once"):
            tf.reverse_v2(np.zeros((2, 3), np.float32), [0, -2])
        for fn in (tf.nn.softplus, tf.nn.softsign):
            with pytest.raises(TypeError, match="'features' has DataType int32 not in list"):
                fn(tf.constant(42))


def test_valid_cases_still_run():
    with tf.Graph().as_default():
        dims = tf.placeholder(tf.int32)
        filled = tf.fill(dims, 3.0)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(tf.concat([[1], [2]], 0)), [1, 2])
            assert sess.run(filled, {dims: [2]}).tolist() == [3.0, 3.0]
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(filled, {dims: [-1]})
            assert sess.run(tf.nn.softplus(0.0)) == pytest.approx(np.log(2.0))
            np.testing.assert_array_equal(
                sess.run(tf.reverse_v2(tf.constant([[1, 2]]), [-1])), [[2, 1]])
