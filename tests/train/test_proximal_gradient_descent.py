"""ProximalGradientDescentOptimizer (ApplyProximalGradientDescent and its sparse and resource
forms); the expected values are TF 1.15's (its proximal_gradient_descent_test)."""

import numpy as np
import pytest

import flowloom as tf


@pytest.mark.parametrize("use_resource", [False, True])
def test_l1_l2_steps_match_tf(use_resource):
    with tf.Graph().as_default(), tf.Session() as sess:
        var0 = tf.Variable([1.0, 2.0], use_resource=use_resource)
        var1 = tf.Variable([4.0, 3.0], use_resource=use_resource)
        opt = tf.train.ProximalGradientDescentOptimizer(
            3.0, l1_regularization_strength=0.001, l2_regularization_strength=2.0)
        update = opt.apply_gradients([(tf.constant([0.1, 0.2]), var0),
                                      (tf.constant([0.01, 0.02]), var1)])
        sess.run(tf.global_variables_initializer())
        for _ in range(10):
            sess.run(update)
        np.testing.assert_allclose(sess.run(var0), [-0.0495, -0.0995], rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(sess.run(var1), [-0.0045, -0.0095], rtol=1e-4, atol=1e-6)


def test_sparse_step_touches_only_its_rows():
    with tf.Graph().as_default(), tf.Session() as sess:
        var = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
        opt = tf.train.ProximalGradientDescentOptimizer(1.0, l1_regularization_strength=0.5)
        grad = tf.IndexedSlices(tf.constant([[0.5, -0.5]]), tf.constant([1]),
                                tf.constant([2, 2]))
        update = opt.apply_gradients([(grad, var)])
        assert any(op.type == "SparseApplyProximalGradientDescent"
                   for op in tf.get_default_graph().get_operations())
        sess.run(tf.global_variables_initializer())
        sess.run(update)
        # Row 1: (3 - 0.5, 4 + 0.5) shrunk by 0.5 towards zero.
        np.testing.assert_allclose(sess.run(var), [[1.0, 2.0], [2.0, 4.0]])
