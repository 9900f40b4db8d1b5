"""A list holding tensors converts as TF 1.15's autopacking does: the first tensor sets the
dtype; a dtype asked for that differs casts every tensor of another dtype first; without one,
tensors of mixed dtypes fail in the Pack with TypeError. (Expected values: TF 1.15.5 on the
same program, its stack_op_test AutomaticStackingTest.testDtype*.)"""

import pytest

import flowloom as tf


def _convert(value, dtype=None):
    t = tf.convert_to_tensor(value, dtype=dtype)
    with tf.Session() as sess:
        return t.dtype, sess.run(t).shape


def test_dtypes_as_tf():
    with tf.Graph().as_default():
        c64 = tf.constant([0., 0., 0.], dtype=tf.float64)
        c32 = tf.constant([0., 0., 0.])
        i32 = tf.constant([0, 0, 0])
        assert _convert([[0., 0., 0.], c64, [0., 0., 0.]]) == (tf.float64, (3, 3))
        assert _convert([[0., 0., 0.], c64, [0., 0., 0.]], tf.float32) == (tf.float32, (3, 3))
        assert _convert([c64], tf.float32) == (tf.float32, (1, 3))
        assert _convert([c32, c32, i32], tf.float64) == (tf.float64, (3, 3))
        assert _convert([[c32], [i32]], tf.float64) == (tf.float64, (2, 1, 3))
        with pytest.raises(TypeError):
            tf.convert_to_tensor([c32, c64, [0., 0., 0.]])
