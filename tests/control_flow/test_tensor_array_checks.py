"""TensorArray kernels' checks and names as TF 1.15 gives them (messages recorded from
TF 1.15: 'TensorArray foo_0: Could not write ...', 'TensorArray TensorArray_1_1: ...')."""

import re

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.control_flow import tensor_array_ops


def _error(fetch, feed=None):
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
        s.run(fetch, feed)
    return str(e.value).splitlines()[0]


def test_array_names_carry_a_counter_as_tf():
    with tf.Graph().as_default():
        named = tf.TensorArray(tf.float32, tensor_array_name="foo", size=3, infer_shape=False)
        w = named.write(2, 3.0).write(2, 4.0)
        assert re.match(r"TensorArray foo_\d+: Could not write to TensorArray index 2 because "
                        r"it has already been written to\.", _error(w.flow))
        unnamed = tf.TensorArray(tf.float32, size=3).write(0, 1.0).write(0, 2.0)
        assert re.match(r"TensorArray TensorArray(_\d+)?_\d+: ", _error(unnamed.flow))


def test_string_arrays_unstack_and_read():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.string, size=2).unstack(["a", "bc"])
        with tf.Session() as s:
            assert s.run([ta.read(0), ta.read(1)]) == [b"a", b"bc"]


def test_read_with_another_dtype_is_refused():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3).write(0, [[4.0, 5.0]])
        from flowloom.framework.apply_op import apply_op

        bad = apply_op("TensorArrayReadV3", (ta.handle, 0, ta.flow), dtype=tf.float64).outputs[0]
        assert "TensorArray dtype is float but Op requested dtype double." in _error(bad)


def test_split_checks_lengths_value_and_size():
    with tf.Graph().as_default():
        lengths = tf.placeholder(tf.int64)
        ta = tf.TensorArray(tf.float32, size=3)
        assert "Expected lengths to be a vector, received shape: []" in \
            _error(ta.split([1.0, 2.0, 3.0], lengths).flow, {lengths: 1})
        assert "but sum of lengths is 1 and value's shape is: [3]" in \
            _error(ta.split([1.0, 2.0, 3.0], [1]).flow)
        one = tf.TensorArray(tf.float32, size=1)
        assert "Expected value to be at least a vector, but received shape: []" in \
            _error(one.split(1.0, [1]).flow)
        two = tf.TensorArray(tf.float32, size=2)
        assert ("TensorArray's size is not equal to the size of lengths (2 vs. 1), and the "
                "TensorArray is not marked as dynamically resizeable") in \
            _error(two.split([1.0], [1]).flow)
        grown = tf.TensorArray(tf.float32, size=1, dynamic_size=True).split([1.0, 2.0], [1, 1])
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(grown.concat()), [1.0, 2.0])


def test_grad_source_names_the_innermost_gradients_scope():
    with tf.Graph().as_default():
        with tf.name_scope("outer/gradients_1/inner/gradients_2"):
            t = tf.constant(1.0, name="x")
        assert tensor_array_ops._GetGradSource(t) == "outer/gradients_1/inner/gradients_2"
        with pytest.raises(ValueError, match="Expected op/tensor name to start with gradients"):
            tensor_array_ops._GetGradSource(tf.constant(2.0, name="plain"))


def test_grad_with_shape_prepends_dimensions():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3, element_shape=tf.TensorShape([2, 3]))
        handle, flow = tensor_array_ops.tensor_array_grad_with_shape(
            ta.handle, ta.flow, tf.TensorShape([4, 5]).as_list(), source="source")
        grad = tf.TensorArray(tf.float32, handle=handle, flow=flow)
        value = tf.placeholder(tf.float32)
        read = grad.write(0, value).read(0)
        assert read.shape.as_list() == [None, None, 2, 3]  # TF's handle shape data
        assert ta.read(0).shape.as_list() == [2, 3]
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Could not write"):
                s.run(read, {value: np.ones([2, 3])})
            fed = np.random.RandomState(0).rand(4, 5, 2, 3)
            np.testing.assert_allclose(s.run(read, {value: fed}), fed)
        unknown = tf.TensorArray(tf.float32, size=3)
        h2, f2 = tensor_array_ops.tensor_array_grad_with_shape(unknown.handle, unknown.flow,
                                                               [4, 5], source="s")
        assert tf.TensorArray(tf.float32, handle=h2, flow=f2).read(0).shape.ndims is None


def test_split_gradient_covers_the_split_rows_of_a_grown_array():
    # TF 1.15: the gradient array's concat joins the forward array's size at the split.
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3, dynamic_size=True)
        x = tf.constant([1.0, 2.0, 3.0])
        r = ta.split(x, [1, 1, 1]).write(3, [4.0]).concat()
        grad = tf.gradients(ys=[r], xs=[x])[0]
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(r), [1.0, 2.0, 3.0, 4.0])
            np.testing.assert_array_equal(s.run(grad), [1.0, 1.0, 1.0])
