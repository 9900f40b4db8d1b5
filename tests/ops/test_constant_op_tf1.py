"""TF 1.15's constant_op module: `constant` (broadcast a one-element value, else exactly the
shape's element count), `constant_v1` (tf.constant: the last value repeats), TensorShape /
Dimension conversion to int32/int64, and the dense-tensor error of ragged lists (TF 1.15.5's
answers)."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.array import constant_op


def test_constant_and_constant_v1_shapes():
    with tf.Graph().as_default():
        assert constant_op.constant_v1([1, 2, 3, 4, 5, 6, 7], shape=[10]).shape == [10]
        assert constant_op.constant([7], shape=[10]).shape == [10]
        assert constant_op.constant(3, shape=[10]).shape == [10]
        assert constant_op.constant([1, 2, 3, 4], shape=[2, 2]).shape == [2, 2]
        with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(10,\), got \(7,\)."):
            constant_op.constant([1, 2, 3, 4, 5, 6, 7], shape=[10])
        with pytest.raises(ValueError, match="Too many elements provided."):
            constant_op.constant_v1([1, 2, 3, 4, 5, 6, 7], shape=[5])
        with pytest.raises(TypeError, match="Expected Tensor's shape"):
            constant_op.constant([1, 2, 3, 4, 5, 6, 7], shape=[5])


def test_tensor_shape_and_dimension_convert_as_tf():
    with tf.Graph().as_default():
        empty = tf.convert_to_tensor(tf.TensorShape([]))
        assert empty.dtype == tf.int32 and empty.op.name == "shape_as_tensor"
        assert tf.convert_to_tensor(tf.TensorShape([2**31 - 1, 2, 3])).dtype == tf.int32
        assert tf.convert_to_tensor(tf.TensorShape([2**31, 2, 3])).dtype == tf.int64
        with pytest.raises(ValueError, match="a dimension is too large"):
            tf.convert_to_tensor(tf.TensorShape([2**31, 2, 3]), dtype=tf.int32)
        with pytest.raises(ValueError, match="partially known TensorShape"):
            tf.convert_to_tensor(tf.TensorShape([None, 2]))
        with pytest.raises(TypeError, match="Cannot convert a TensorShape to dtype"):
            tf.convert_to_tensor(tf.TensorShape([2]), dtype=tf.float32)
        d = tf.convert_to_tensor(tf.Dimension(3))
        assert d.dtype == tf.int32
        with pytest.raises(ValueError, match="unknown Dimension"):
            tf.convert_to_tensor(tf.Dimension(None))
        with tf.Session() as sess:
            assert sess.run(empty).tolist() == [] and sess.run(d) == 3
        assert tf.TensorShape(None)._v2_behavior is False


def test_ragged_lists_are_no_dense_tensor():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Argument must be a dense tensor: \[\[1, 2\], "
                                             r"\[3\]\] - got shape \[2\], but wanted \[2, 2\]."):
            tf.constant([[1, 2], [3]])
        with pytest.raises(ValueError, match=r"got shape \[3\], but wanted \[3, 2\]"):
            tf.constant([[1, 2], [3], [4, 5]])
        with pytest.raises(ValueError, match="setting an array element with a sequence"):
            tf.constant([[1, 2], [3]], dtype=tf.int32)
        assert np.array_equal(tf.Session().run(tf.constant([[1, 2], [3, 4]])), [[1, 2], [3, 4]])
