"""TF 1.15 rules checked against TF (1.15.5 and 2.21 agree on each): integer constants wrap,
NumPy values cast as NumPy casts; pad's partial static shape, scalars and mode message;
one_hot's dtype checks; StridedSlice of too many dims at run time."""

import numpy as np
import pytest

import flowloom as tf


def test_integer_constants_wrap_and_numpy_values_cast():
    with tf.Session() as sess:
        # TF 1.15.5 and 2.21 give 133, [0 1 255], 0.
        assert sess.run(tf.constant(-123, dtype=tf.uint8)) == 133
        assert sess.run(tf.constant([[0, 1, -1]], dtype=tf.uint8)).tolist() == [[0, 1, 255]]
        assert sess.run(tf.constant(2 ** 40, dtype=tf.int32)) == 0
        floats = np.array([0.5, 9.7, 3.2])
        assert sess.run(tf.constant(floats, tf.uint8)).tolist() == [0, 9, 3]
    with pytest.raises(TypeError):
        tf.constant([0.5], tf.int32)  # a Python float list is still checked
    p = tf.placeholder(tf.int32)
    with pytest.raises(TypeError):
        tf.Session().run(p, {p: 2 ** 40})  # feeds are checked (TF: TypeError)


def test_pad_static_shape_from_partly_known_paddings():
    unknown = tf.placeholder(tf.int32)
    inp = tf.constant(0.0, shape=[4, 4])
    assert tf.pad(inp, [[1, 2], unknown]).shape.as_list() == [7, None]
    assert tf.pad(inp, [[unknown, 0], [1, 2]]).shape.as_list() == [None, 7]
    assert tf.pad(inp, [[tf.constant(1), 2], [0, unknown]]).shape.as_list() == [7, None]
    assert tf.pad(inp, [tf.constant(1, shape=[2]), [0, unknown]]).shape.as_list() == [6, None]
    assert tf.pad(unknown, [[1, 2], unknown]).shape.as_list() == [None, None]
    x = tf.placeholder(tf.int32, [None, None, 20])
    assert tf.pad(x, [[0, 0], [0, unknown], [0, 0]]).shape.as_list() == [None, None, 20]
    with pytest.raises(ValueError, match="Unknown padding mode: WEIRD"):
        tf.pad([[1]], [[1, 0], [0, 0]], mode="weird")
    with tf.Session() as sess:
        assert sess.run(tf.pad(np.asarray(7), np.zeros((0, 2), np.int32))) == 7
        assert sess.run(tf.pad(np.zeros((1, 1), np.uint8), [[1, 0], [0, 0]],
                               constant_values=-123)).tolist() == [[133], [0]]


def test_one_hot_value_dtypes_must_match_dtype():
    with pytest.raises(TypeError, match="of on_value does not match dtype parameter"):
        tf.one_hot([0, 1], 3, on_value=np.asarray(1.0, np.float32), dtype=np.int32)
    with pytest.raises(TypeError, match="of off_value does not match dtype parameter"):
        tf.one_hot([0, 1], 3, off_value=1, dtype=tf.float32)  # 1 is an int32 value
    hot = tf.one_hot(tf.constant(np.arange(4) * 2.6, tf.uint8), depth=10, axis=0)
    with tf.Session() as sess:
        assert sess.run(hot).shape == (10, 4)


def test_strided_slice_of_too_many_dims_fails_at_run_time():
    with pytest.raises(ValueError, match="out of range"):
        tf.constant([1, 2])[1:, 1:]
    x = tf.placeholder(tf.int32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Index out of range using "
                           "input dim 1; input has only 1 dims"):
            sess.run(x[1:, 1:], {x: [1, 2]})
