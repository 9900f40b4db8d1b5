"""DynamicStitch / ParallelDynamicStitch shape function (TF's DynamicStitchShapeFunction)."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.array import data_flow_ops


@pytest.mark.parametrize("call", [tf.dynamic_stitch, data_flow_ops.parallel_dynamic_stitch])
def test_rows_from_constant_indices_and_rest_of_data_shape(call):
    out = call([tf.constant([0, 4]), tf.constant([[1, 3]])],
               [tf.zeros([2, 5]), tf.zeros([1, 2, 5])])
    assert out.shape.as_list() == [5, 5]
    unknown = call([tf.placeholder(tf.int32), tf.constant(1)], [tf.constant(4), tf.constant(6)])
    assert unknown.shape.as_list() == [None]  # an unknown-rank indices adds nothing


@pytest.mark.parametrize("indices,data", [
    ([[0, 4, 7], [[1, 6, 2, 3, 5]]], [[[0, 40, 70]], [10, 60, 20, 30, 50]]),  # prefix mismatch
    ([[0, 4, 7], [1, 6, 2, 3, 5]], [[0, 40, 70], [[10, 60, 20, 30, 50]]]),  # ranks differ
    ([[0, 4, 5], [1, 6, 2, 3]], [[[0], [40], [70]], [[10, 11]] * 4]),  # rest differs
    ([[0, 4, 7], [1, 6, 2, 3, 5]], [[0, 40, 70], [10, 60, 20, 30]]),  # sizes differ
])
def test_shape_errors_at_build_time(indices, data):
    with pytest.raises(ValueError, match="DynamicStitch"):
        tf.dynamic_stitch([tf.constant(i) for i in indices], [tf.constant(d) for d in data])


def test_values_and_quantized_comparison_in_test_case():
    out = tf.dynamic_stitch([tf.constant([0, 2]), tf.constant([1])],
                            [tf.cast(tf.constant([0, 20]), tf.qint8),
                             tf.cast(tf.constant([10]), tf.qint8)])
    assert out.shape.as_list() == [3]
    with tf.Session() as sess:
        value = sess.run(out)
    case = tf.test.TestCase()
    case.assertAllEqual([0, 10, 20], value)  # a qint8 array compares by its integers
    with pytest.raises(AssertionError):
        case.assertAllEqual([0, 10, 21], value)
    assert np.asarray(value).dtype.names is not None
