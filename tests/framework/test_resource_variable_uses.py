"""Resource variables where TF 1.15's module-level `variables.Variable` puts them: unconnected
gradients, functions that capture them, and fetching a handle."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.graph_function import defun
from flowloom.graph_function import functional_call_ops


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_unconnected_zero_gradient_has_the_variables_dtype_and_shape(dtype):
    with tf.Graph().as_default():
        var = tf.Variable(tf.constant([[1.0, 2.0, 3.0]], dtype), use_resource=True)
        grad = tf.gradients(tf.constant(0.0), var,
                            unconnected_gradients=tf.UnconnectedGradients.ZERO)[0]
        assert grad.dtype == dtype
        with tf.Session() as s:
            s.run(var.initializer)
            np.testing.assert_array_equal(s.run(grad), np.zeros([1, 3]))


def test_a_while_body_may_capture_a_resource_variable():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, use_resource=True)

        @defun.Defun(tf.float32, tf.float32)
        def body(n, x):
            return n + 1, x + n + v

        @defun.Defun(tf.float32, tf.float32)
        def cond(n, x):
            return n < 10

        result = functional_call_ops.While([1.0, 0.0], cond, body)
        with tf.Session() as s:
            s.run(v.initializer)
            assert s.run(result) == [10.0, 54.0]


def test_a_fetched_handle_can_be_fed_back():
    with tf.Graph().as_default():
        v = tf.Variable(3.0, use_resource=True)
        handle_in = tf.placeholder(tf.resource, [])
        from flowloom.ops.state import resource_variable_ops as rvo

        read = rvo.read_variable_op(handle_in, tf.float32)
        with tf.Session() as s:
            s.run(v.initializer)
            handle = s.run(v.handle)
            assert s.run(read, {handle_in: handle}) == 3.0


def test_resource_scatters_check_update_shapes_at_build():
    with tf.Graph().as_default():
        var = tf.Variable(tf.zeros([16, 4, 4]), use_resource=True)
        indices = tf.placeholder(tf.int32, [3])
        for bad in ([4, 4, 4], [3, 4, 5]):
            with pytest.raises(ValueError, match="are not compatible"):
                tf.scatter_add(var, indices, tf.placeholder(tf.float32, bad))
        tf.scatter_add(var, indices, tf.placeholder(tf.float32, [3, 4, 4]))
        tf.scatter_add(var, indices, 1.0)  # a scalar update is broadcast
