"""Gradient helpers under TF 1.15's names: _hessian_vector_product, grad_pass_through,
prevent_gradient, math_ops._as_indexed_slices, the complex-grad_ys message.

Found by TF 1.15's gradients_test (HessianVectorProductTest, GradPassThroughTest,
PreventGradientTest, IndexedSlicesToTensorTest, OnlyRealGradientsTest).
"""

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework.gradient_helpers import _hessian_vector_product, grad_pass_through
from flowloom.ops.array.gradient_ops import prevent_gradient
from flowloom.ops.math.indexed_slices_ops import _as_indexed_slices, _as_indexed_slices_list


def test_hessian_vector_product_of_a_quadratic_form():
    rng = np.random.RandomState(1)
    a, v, x = (rng.randn(4, 4).astype("float32"), rng.randn(4, 1).astype("float32"),
               rng.randn(4, 1).astype("float32"))
    xt = tf.constant(x)
    f = tf.matmul(tf.transpose(xt), tf.matmul(tf.constant(a), xt))
    hv = _hessian_vector_product(f, [xt], [tf.constant(v)])[0]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(hv), (a + a.T) @ v, rtol=1e-5)


def test_grad_pass_through_an_assign():
    with tf.variable_scope("s", use_resource=True):
        x = tf.get_variable("x", shape=(), initializer=tf.constant_initializer(1.0))
        z = tf.get_variable("z", shape=(), initializer=tf.constant_initializer(3.0))
    assert tf.gradients(tf.assign(x, z ** 2), z) == [None]
    y = grad_pass_through(lambda v: tf.assign(x, v))(z ** 2)
    g = tf.gradients(y, z)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(g) == 6.0


def test_prevent_gradient_and_complex_grad_ys():
    out = prevent_gradient(tf.constant(1.0), message="no")
    with pytest.raises(LookupError, match="explicitly disabled. Reason: no"):
        tf.gradients(out, out.op.inputs[0])
    y = tf.square(tf.constant(7 + 3j, dtype=tf.complex64))
    with pytest.raises(TypeError, match=r"must set grad_ys \(y\.dtype = tf\.complex64\)"):
        tf.gradients(y, y.op.inputs[0])


def test_as_indexed_slices():
    val = np.random.rand(3, 2).astype(np.float32)
    s = _as_indexed_slices(tf.constant(val))
    i64 = tf.IndexedSlices(s.values, tf.cast(s.indices, tf.int64), s.dense_shape)
    mixed = _as_indexed_slices_list([s, i64])
    assert [m.indices.dtype for m in mixed] == [tf.int64, tf.int64]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.multiply(s, 1.0)), val)
        assert sess.run(s.dense_shape).tolist() == [3, 2]
    with pytest.raises(TypeError):
        _as_indexed_slices([1.0])


def test_gradient_ops_record_their_forward_op():
    w = tf.constant(1.0, shape=[4, 2])
    xw = tf.matmul(tf.constant(1.0, shape=[3, 4]), w, name="xw")
    g = tf.gradients(xw, w)[0]
    assert g.op.type == "MatMul" and g.op._original_op is xw.op


def test_resource_variable_read_in_a_cond_branch_gets_its_gradient():
    alpha = tf.Variable([0.5], use_resource=True)
    c = tf.placeholder_with_default(True, shape=())
    g, = tf.gradients(tf.cond(c, lambda: alpha * 2, lambda: alpha * 3), alpha)
    only_true, = tf.gradients(tf.cond(c, lambda: alpha + 1.0, lambda: tf.ones([1])), alpha)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(g).tolist() == [2.0] and sess.run(g, {c: False}).tolist() == [3.0]
        assert sess.run(only_true, {c: False}).tolist() == [0.0]


def test_gradient_inside_a_loop_through_a_loop_variables_initial_value_is_an_error():
    x = tf.placeholder(tf.float32, shape=(), name="x")

    def body(i, v):
        return i + 1, tf.gradients(v * 2, x)[0]
    with pytest.raises(ValueError, match="Cannot compute gradient inside while loop with "
                                         "respect to op 'x'"):
        tf.while_loop(lambda i, v: i < 3, body, [0, x + 1])
    # Within one iteration, the gradient w.r.t. the body's own parameter is fine.
    r = tf.while_loop(lambda i, v: i < 3,
                      lambda i, v: (i + 1, tf.gradients(v * v, v)[0]), [0, tf.constant(1.0)])
    with tf.Session() as sess:
        assert sess.run(r[1]) == 8.0
