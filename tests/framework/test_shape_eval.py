"""Shape functions see the values of small constant subgraphs (flowloom/framework/shape_eval.py),
as TF's C++ shape inference evaluates them; Python's tensor_util.constant_value does not.
Expected shapes are TF 1.15.5's."""

import numpy as np

import flowloom as tf
from flowloom.framework import shape_eval, tensor_util


def test_shapes_from_evaluated_constant_subgraphs():
    z = tf.zeros((1, 2, 3))
    assert tf.slice(z, [0, 0, 0], [tf.constant(1) + 0, 1, -1]).shape.as_list() == [1, 1, 3]
    assert tf.reshape(tf.zeros([6]), tf.constant([2, 3]) * 1).shape.as_list() == [2, 3]
    assert tf.fill(tf.constant([2]) + 1, 0.).shape.as_list() == [3]
    parts = tf.split(tf.ones([5, 2]), tf.constant([2, 1, 2]) * 1)
    assert [p.shape.as_list() for p in parts] == [[2, 2], [1, 2], [2, 2]]
    size = tf.constant(1) + 0
    assert tensor_util.constant_value(size) is None  # Python's rules stay TF's Python rules
    assert shape_eval.input_value(size) == 1


def test_not_evaluated_through_placeholders_state_or_large_values():
    p = tf.placeholder(tf.int32, [])
    assert shape_eval.input_value(p + 1) is None
    v = tf.Variable(3)
    assert shape_eval.input_value(v + 1) is None
    assert shape_eval.input_value(tf.random_uniform([], 0, 5, tf.int32) + 1) is None
    big = tf.reduce_sum(tf.ones([shape_eval.MAX_ELEMENTS + 1], tf.int32))
    assert shape_eval.input_value(big) is None  # the Fill is never materialised
    with tf.control_dependencies([tf.no_op()]):
        guarded = tf.constant(2) + 1
    assert shape_eval.input_value(guarded) is None
    failing = tf.constant([1, 2]) // tf.constant([0, 1])  # fails when run, not when built
    assert shape_eval.input_value(failing) is None  # its kernel raises: not known statically


def test_reshape_shape_function_rules():
    x = tf.placeholder(tf.float32)
    assert tf.reshape(x, [1, 1, -1, 1]).shape.as_list() == [1, 1, None, 1]
    assert tf.reshape(tf.zeros([6]), tf.stack([tf.placeholder(tf.int32), 3])).shape.as_list() \
        == [2, 3]
    assert tf.reshape(tf.zeros([0, 6]), [0, -1, 3]).shape.as_list() == [0, None, 3]
    y = tf.constant(0.0, shape=[23, 29, 31])
    try:
        tf.reshape(y, [17, -1])
        raise AssertionError("no error")
    except ValueError as e:
        assert "must be evenly divisible by 17" in str(e)
    with tf.Session() as sess:
        assert sess.run(tf.reshape(np.zeros([0, 6], np.float32), [0, -1, 3])).shape == (0, 2, 3)
        p = tf.placeholder(tf.int32, [None])
        for sizes, message in (([-1, -1], "Only one input size may be -1"),
                               ([4, -1], "requires a multiple of 4")):
            try:
                sess.run(tf.reshape(tf.zeros([6]), p), {p: sizes})
                raise AssertionError("no error")
            except tf.errors.InvalidArgumentError as e:
                assert message in str(e)
