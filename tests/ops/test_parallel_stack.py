"""tf.parallel_stack / ParallelConcat (TF 1.15's checks: fully defined shapes, rows of 1)."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.array.parallel_concat_ops import parallel_concat


def test_parallel_stack_stacks_tensors_lists_and_arrays():
    data = np.random.RandomState(7).randn(4, 3, 2).astype(np.float32)
    with tf.Graph().as_default():
        from_tensors = tf.parallel_stack([tf.constant(row) for row in data])
        from_array = tf.parallel_stack(data)
        empty_rows = tf.parallel_stack(list(np.zeros((2, 0, 3), np.int32)))
        assert from_tensors.op.type == "ParallelConcat"
        assert from_tensors.shape.as_list() == [4, 3, 2]
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(from_tensors), data)
            np.testing.assert_array_equal(s.run(from_array), data)
            assert s.run(empty_rows).shape == (2, 0, 3)


def test_parallel_concat_refuses_unknown_or_wrong_shapes():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="All input shapes must be fully defined"):
            parallel_concat([tf.placeholder(tf.float32, [None, 2])], [1, 2])
        with pytest.raises(ValueError, match="shape attr must be fully defined"):
            parallel_concat([tf.zeros([1, 2])], tf.TensorShape([None, 2]))
        with pytest.raises(ValueError, match="Size of first dimension must be 1"):
            parallel_concat([tf.zeros([2, 2])], [2, 2])
        with pytest.raises(LookupError):
            x = tf.constant([1.0, 2.0])
            tf.gradients(tf.parallel_stack([x, x]), x)
