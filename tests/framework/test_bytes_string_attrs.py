"""String attrs given as bytes (what `Operation.get_attr` returns, as in TF) build the same op
as the str: TF's op library takes either."""

import numpy as np

import flowloom as tf


def test_get_attr_bytes_round_trip_into_another_op():
    x = tf.constant(np.ones([2, 3, 4, 5], np.float32))
    scale, offset = tf.ones([5]), tf.zeros([5])
    y, _, _ = tf.nn.fused_batch_norm(x, scale, offset, is_training=True)
    data_format = y.op.get_attr("data_format")
    assert data_format == b"NHWC"
    y2, _, _ = tf.nn.fused_batch_norm(x, scale, offset, is_training=True,
                                      data_format=data_format)
    assert y2.op.get_attr("data_format") == b"NHWC"
    assert y2.shape.as_list() == [2, 3, 4, 5]
    with tf.Session() as sess:
        a, b = sess.run([y, y2])
    np.testing.assert_array_equal(a, b)
