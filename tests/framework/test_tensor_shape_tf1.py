"""Dimension and TensorShape operators as TF 1.15 has them (its tensor_shape_test checks the
same)."""

import pickle

import pytest

import flowloom as tf

D, S = tf.Dimension, tf.TensorShape


def test_dimension_conversion_and_comparison():
    assert D("12").value == 12 and D(24.0 / 2).value == 12
    with pytest.raises(ValueError, match="Ambiguous dimension: 12.99"):
        D(12.99)
    with pytest.raises(TypeError, match="Cannot convert"):
        D(tf.float32)
    assert (D(12) == "12") is True and (D(12) == "_") is False
    assert (D(None) == "13") is None and (D(None) != 12.99) is True


def test_dimension_arithmetic_both_sides():
    assert 13 - D(12) == D(1) and 2 // D(12) == D(0) and 26 % D(12) == D(2)
    assert [4] * D(3) == [4, 4, 4]
    for f in (lambda: D(6) / D(2), lambda: D(6) / 2, lambda: 6 / D(2)):
        with pytest.raises(TypeError, match="please use // instead"):
            f()
    assert pickle.loads(pickle.dumps(D(5))) == D(5)


def test_shape_concatenation_rank_and_pickle():
    assert S([1, 2]) + S([3]) == S([1, 2, 3])
    assert S([1]) + [2] == S([1, 2]) and (2,) + S([1]) == S([2, 1])
    assert D(1) + S([2]) == S([1, 2])
    S([1, None]).assert_same_rank([4, 5])
    S(None).assert_same_rank([4])
    with pytest.raises(ValueError, match=r"Shapes \(1, \?\) and \(4,\) must have the same rank"):
        S([1, None]).assert_same_rank([4])
    ctor, args = S([2, 3]).__reduce__()
    assert ctor is S and args == ([D(2), D(3)],)
    assert pickle.loads(pickle.dumps(S([2, None]))).as_list() == [2, None]


def test_shape_equality_with_unknown_dimensions_and_strings_as_tf():
    # TF 1.15.5's answers: an unknown dimension equals only itself (TF compares lists of
    # Dimension objects), a string is no shape.
    from flowloom.proto import tensor_shape_pb2

    proto = tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=x) for x in (-1, 37, 42)])
    a, b = tf.TensorShape(proto), S([None, 37, 42])
    assert (a == b) is False and (a != b) is True
    assert (b == b) is True and (b != b) is False and S(b) == b and tf.TensorShape(b) == b
    assert S([None]) != S([None]) and S([3, 4]) == S([3, 4])
    s1 = S([3, 4, 7])
    assert (s1 == "347") is False and (s1 != "347") is True and s1 == ["3", "4", "7"]
    with pytest.raises(TypeError, match="A string has ambiguous TensorShape"):
        S("347")
    unknown = tf.TensorShape(None)
    assert unknown == tf.TensorShape(None) and (unknown == s1) is False
    with pytest.raises(ValueError, match="inequality of unknown TensorShapes"):
        unknown != s1  # noqa: B015
