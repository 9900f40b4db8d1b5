"""tensor_util as TF 1.15's: implicit repeat of the last value, verify_shape, ShapeEquals,
is_tensor, constant_value of Equal/NotEqual, half stored value by value."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import tensor_util


def test_fewer_values_repeat_the_last_and_verify_shape():
    proto = tensor_util.make_tensor_proto([10, 11, 12], shape=[3, 4], dtype=tf.int32)
    assert list(proto.int_val) == [10, 11, 12] and not proto.tensor_content
    assert tensor_util.MakeNdarray(proto).tolist() == [[10, 11, 12, 12]] + [[12] * 4] * 2
    with pytest.raises(ValueError, match="Too many elements provided. Needed at most 1, but "
                                         "received 2"):
        tensor_util.make_tensor_proto(np.array([1, 2]), shape=[1])
    tensor_util.make_tensor_proto(np.array([[1], [2]]), shape=(2, 1), verify_shape=True)
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(1, 2\), got \(2, 1\)"):
        tensor_util.make_tensor_proto(np.array([[1], [2]]), shape=(1, 2), verify_shape=True)
    half = tensor_util.make_tensor_proto(np.array([10, 20], np.float16))
    assert list(half.half_val) == [18688, 19712] and not half.tensor_content


def test_shape_equals_is_tensor_and_equal_folding():
    t = tensor_util.make_tensor_proto([10, 20, 30, 40], shape=[2, 2])
    assert tensor_util.ShapeEquals(t, [2, 2]) and tensor_util.ShapeEquals(t, (2, 2))
    assert tensor_util.ShapeEquals(t, tf.TensorShape([2, 2]).as_proto())
    assert not tensor_util.ShapeEquals(t, [4])
    with tf.Graph().as_default():
        a, b = tf.constant([1, 2]), tf.constant([1, 3])
        assert tensor_util.is_tensor(a) and not tensor_util.is_tensor(np.array(1))
        assert tensor_util.constant_value(tf.equal(a, b)).tolist() == [True, False]
        assert tensor_util.constant_value(tf.not_equal(a, b)).tolist() == [False, True]
        assert tensor_util.constant_value(tf.equal(a, tf.placeholder(tf.int32))) is None
