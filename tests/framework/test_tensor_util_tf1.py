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


# The expectations below are TF 1.15.5's answers (checked with its tensor_util).
def test_constant_value_of_literals_variables_rank_and_packs():
    with tf.Graph().as_default():
        literal = "hi"
        assert tensor_util.constant_value(literal) is literal  # TF: the value itself
        assert tensor_util.constant_value(tf.Variable(1.0)) is None
        rank = tf.rank(tf.constant(0.0, shape=[1, 2, 3]))
        assert tensor_util.constant_value(rank).tolist() == 3
        rank = tf.rank(tf.constant(0.0, shape=[1, 2, 3]), optimize=False)
        assert rank.op.type == "Rank" and tensor_util.constant_value(rank).tolist() == 3
        inputs = [np.random.rand(4, 7) for _ in range(3)]
        # TF folds only axis-0 Packs; an axis-1 stack of NumPy values is a Pack op
        axis1 = tf.stack(inputs, axis=1)
        assert axis1.op.type == "Pack" and tensor_util.constant_value(axis1) is None
        # a list's NumPy values take its Tensor's dtype
        mixed = tf.stack([inputs[0], tf.placeholder(tf.float32)], axis=1)
        assert mixed.dtype == tf.float32
        assert tensor_util.constant_value(mixed, partial=True) is None


def test_add_n_converts_each_input_first():
    with tf.Graph().as_default():
        with pytest.raises(TypeError):  # TF: float64 and float32 do not all match
            tf.add_n([np.zeros(2), tf.placeholder(tf.float32, [2])])
        assert tf.add_n([1.0, tf.placeholder(tf.float32, [])]).dtype == tf.float32


def test_constant_value_as_shape_of_slices():
    with tf.Graph().as_default():
        dims = tf.concat([[1, 2, 16, 37], tf.placeholder(tf.int32, shape=(1,)), [48]], 0)
        cases = {(2, None, None): [16, 37, None, 48], (2, None, -1): [16, 2, 1],
                 (None, 1, -2): [48, 37], (3, 1, -1): [37, 16], (1, -3, 1): [2, 16],
                 (-3, None, 1): [37, None, 48], (-3, -5, -1): [37, 16]}
        for (begin, end, stride), want in cases.items():
            got = tensor_util.constant_value_as_shape(dims[begin:end:stride])
            assert got.as_list() == want, (begin, end, stride)
        unknown = tf.placeholder(tf.int32, shape=(4,))[0:2]
        assert tensor_util.constant_value_as_shape(unknown).as_list() == [None, None]


def test_shape_tensor_and_writable_ndarrays():
    with tf.Graph().as_default():
        shape = tensor_util.shape_tensor(tf.TensorShape([1, tf.Dimension(2)]))
        assert tf.Session().run(shape).tolist() == [1, 2]
    a = tensor_util.MakeNdarray(tensor_util.make_tensor_proto([10.0, 20.0, 30.0],
                                                              dtype=tf.float32))
    a[0] = 5.0
    assert a.tolist() == [5.0, 20.0, 30.0]
    b = tf.make_ndarray(tf.make_tensor_proto([1.0, 2.0]))
    b[1] = 0.0


def test_array_method_called_without_dtype():
    class Wrapper:
        def __array__(self):
            return np.array([b"foo", b"bar", b"baz"])

    t = tensor_util.make_tensor_proto(Wrapper(), shape=[1, 3])
    assert t.dtype == tf.string.as_datatype_enum and list(t.string_val) == [b"foo", b"bar",
                                                                             b"baz"]


def test_quantized_tensor_protos():
    data = [(21,), (22,), (23,)]
    content = {tf.qint32: b"\x15\x00\x00\x00\x16\x00\x00\x00\x17\x00\x00\x00",
               tf.quint8: b"\x15\x16\x17", tf.qint8: b"\x15\x16\x17",
               tf.quint16: b"\x15\x00\x16\x00\x17\x00", tf.qint16: b"\x15\x00\x16\x00\x17\x00"}
    for dtype, raw in content.items():
        t = tensor_util.make_tensor_proto(data, dtype=dtype)
        assert t.dtype == dtype.as_datatype_enum and t.tensor_content == raw
        a = tensor_util.MakeNdarray(t)
        assert a.dtype == dtype.as_numpy_dtype
        assert np.array_equal(a, np.array(data, dtype=a.dtype))
    one = tensor_util.make_tensor_proto([(3,)], dtype=tf.qint8)
    assert list(one.int_val) == [3] and not one.tensor_content
    for bad in (3, [3]):
        with pytest.raises(TypeError, match="Expected qint8, got 3 of type 'int' instead."):
            tensor_util.make_tensor_proto(bad, dtype=tf.qint8)
    with pytest.raises(TypeError):
        tensor_util.make_tensor_proto(np.array([1]), 0)
