"""Shapes with a dimension of 2**31 or more are int64 shape tensors, as TF 1.15 builds them
(static shapes as TF 1.15.5 printed them; nothing is allocated)."""

import pytest

import flowloom as tf

BIG = [2**33, 1]


@pytest.mark.parametrize("build", [
    lambda: tf.zeros(BIG), lambda: tf.ones(BIG), lambda: tf.fill(BIG, 1.0),
    lambda: tf.truncated_normal(tf.TensorShape(BIG)), lambda: tf.random_uniform(BIG),
    lambda: tf.random_normal(BIG), lambda: tf.placeholder(tf.float32, BIG),
], ids=["zeros", "ones", "fill", "truncated_normal", "random_uniform", "random_normal",
        "placeholder"])
def test_static_shape_keeps_a_dimension_over_int32(build):
    with tf.Graph().as_default():
        assert build().shape.as_list() == BIG


def test_shape_tensor_is_int64_only_when_needed():
    def shape_dtype(shape):
        with tf.Graph().as_default() as g:
            tf.random_uniform(shape)
            return [op for op in g.get_operations() if op.type == "RandomUniform"][0].inputs[0].dtype

    assert shape_dtype(BIG) == tf.int64
    assert shape_dtype([3, 4]) == tf.int32
    assert shape_dtype([]) == tf.int32
