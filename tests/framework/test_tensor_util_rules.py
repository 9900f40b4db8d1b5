"""tensor_util as TF 1.15.5 answers (outputs recorded in the literals): Dimensions need a
requested integer dtype, constant_value_as_shape keeps to TF's constant_value rules and rank
checks, maybe_set_static_shape across a function boundary (func_graph_from_py_func)."""

import pytest

import flowloom as tf
from flowloom.framework import tensor_util
from flowloom.graph_function import func_graph

D = tf.Dimension


def test_dimension_lists_need_an_integer_dtype():
    with tf.Graph().as_default():
        for f in (lambda: tensor_util.make_tensor_proto([D(1)]), lambda: tf.constant([D(1), 2]),
                  lambda: tf.convert_to_tensor([D(None), 2])):
            with pytest.raises(TypeError, match=r"Failed to convert object of type <class "
                               r"'list'> to Tensor\. Contents: \[Dimension\("):
                f()
        assert list(tensor_util.make_tensor_proto([D(1)], dtype=tf.int32).int_val) == [1]
        assert tf.constant([D(1)], tf.int32).shape == [1]
        x = tf.placeholder(tf.float32, [None, 2, 3])
        assert tf.reshape(x, [-1, x.shape[1] * x.shape[2]]).shape.as_list() == [None, 6]
        assert tf.zeros([x.shape[1], x.shape[2]]).shape == [2, 3]
        assert tf.tile(x, [1, x.shape[1], 1]).shape.as_list() == [None, 4, 3]


def test_constant_value_as_shape_keeps_to_tf_rules():
    with tf.Graph().as_default():
        c = tf.constant([10, 20, 30])
        assert tensor_util.constant_value_as_shape(c[...]).as_list() == [None, None, None]
        assert tensor_util.constant_value_as_shape(c[1:3]).as_list() == [20, 30]
        assert tensor_util.constant_value(c[1:3]).tolist() == [20, 30]  # flowloom folds it
        assert tensor_util.constant_value_as_shape(tf.constant(-1)).ndims is None
        with pytest.raises(ValueError, match="Received a scalar value '3' as shape"):
            tensor_util.constant_value_as_shape(tf.constant(3))
        with pytest.raises(ValueError, match="must have rank 1"):
            tensor_util.constant_value_as_shape(tf.constant([[10], [20], [30]])[:, 0:])


def test_maybe_set_static_shape_across_a_function_boundary(monkeypatch):
    with tf.Graph().as_default():
        shape = tf.constant([2, 5])

        def body():
            return tf.reshape(tf.zeros([10]), shape), tf.fill(shape, 1.0)

        traced = func_graph.func_graph_from_py_func("f", body, [], {})
        assert [t.shape.as_list() for t in traced.outputs] == [[2, 5], [2, 5]]
        assert traced.external_captures == [shape] and len(traced.inputs) == 1
        monkeypatch.setattr(tensor_util, "_ENABLE_MAYBE_SET_STATIC_SHAPE", False)
        traced = func_graph.func_graph_from_py_func("g", body, [], {})
        assert [t.shape.as_list() for t in traced.outputs] == [[None, None], [None, None]]
        traced = func_graph.func_graph_from_py_func(
            "h", lambda x, k=2: (x * k, None), [tf.zeros([3, 2])], {})
        assert traced.outputs[0].shape == [3, 2] and traced.structured_outputs[1] is None
        assert traced.inputs[0].op.type == "Placeholder"
        with pytest.raises(NotImplementedError, match="autograph"):
            func_graph.func_graph_from_py_func("a", body, [], {}, autograph=True)
