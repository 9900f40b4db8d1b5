"""tf.custom_gradient with variables (grad_fn(dy, variables=...)) and
custom_gradient.get_dependent_variables (found by TF 1.15's gradients_test)."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import custom_gradient as cg


def test_dependent_variables_through_differentiable_ops_only():
    with tf.Graph().as_default():
        var = tf.Variable(100.0)
        frozen = tf.Variable(1.0, trainable=False)
        x = tf.constant(2.0)
        assert cg.get_dependent_variables([x], [tf.identity(x) + 5.0 + var]) == [var]
        assert cg.get_dependent_variables([x], [x + tf.ones_like(var)]) == []
        assert cg.get_dependent_variables([x], [x + frozen]) == []
        separated = tf.identity(var) * 5.0
        assert cg.get_dependent_variables([separated], [separated + 1.0]) == []
        assert cg.get_dependent_variables({"x": x}, {"y": x + var}) == [var]


def test_custom_gradient_returns_variable_gradients():
    @tf.custom_gradient
    def f(x):
        out = tf.layers.dense(x, 3, use_bias=False)

        def grad(dy, variables=None):
            assert len(variables) == 1
            dx = tf.gradients(out, [x], grad_ys=dy)[0]
            return dx, [tf.ones((4, 3))]

        return out, grad

    with tf.Graph().as_default():
        x = tf.ones((2, 4))
        with tf.variable_scope("f", use_resource=True) as vs:
            y = f(x)
            (w,) = vs.global_variables()
        gx, gw = tf.gradients(y, [x, w])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(tf.reduce_sum(gw)) == 12.0
            assert np.shape(sess.run(gx)) == (2, 4)


def test_custom_gradient_variable_errors():
    def uses_ref_variable(x):
        v = tf.get_variable("v", [], use_resource=False)
        return x * v, lambda dy, variables=None: (dy, [dy])

    def ignores_variables(x):
        v = tf.get_variable("w", [], use_resource=True)
        return x * v, lambda dy: dy

    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="must be `ResourceVariable`s"):
            tf.custom_gradient(uses_ref_variable)(tf.constant(1.0))
        with pytest.raises(TypeError, match="must accept a keyword argument 'variables'"):
            tf.custom_gradient(ignores_variables)(tf.constant(1.0))
