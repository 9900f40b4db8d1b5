"""tf.complex / real / imag / angle / abs of complex tensors and their gradients, against TF 1.15
(values recorded with tests/data/record_complex_ops.py)."""

import numpy as np
import pytest

import flowloom as tf

TF_TYPES = ["Complex", "Real", "Imag", "Angle", "ComplexAbs", "Const", "Const", "Const"]
TF_DTYPES = ["complex64"] + ["float32"] * 7
TF_VALUES = [[-1 - 1j, 2 + 2j], [1.0, -3.0], [2.0, 0.5], [1.1071488, 2.976444],
             [2.236068, 3.0413814], [-1.0, 2.0], [0.0, 0.0], [0.0, 0.0]]
TF_GRAD_X = [3.4944272 + 2.9888544j, 0.97315824 + 1.0044736j]
TF_GRAD_A = [0.5587634, 1.0019138]
TF_GRAD_B = [[1.7807337], [1.8645697]]


def test_parts_values_dtypes_and_gradients_match_tf():
    x = tf.constant([1 + 2j, -3 + 0.5j], tf.complex64)
    r = tf.constant([-1.0, 2.0])
    ops = [tf.complex(r, r), tf.real(x), tf.imag(x), tf.angle(x), tf.abs(x), tf.real(r),
           tf.imag(r), tf.angle(r)]
    assert [o.dtype.name for o in ops] == TF_DTYPES
    # A real tensor's real part is the tensor itself; its imag/angle are zeros (any op type).
    assert [o.op.type for o in ops[:5]] == TF_TYPES[:5] and ops[5] is r
    g = tf.gradients(tf.reduce_sum(tf.abs(x) * 2 + tf.angle(x) + tf.real(x) * 3 + tf.imag(x)), x)
    a = tf.constant([1.0, 2.0])
    b = tf.constant([[3.0], [4.0]])
    g2 = tf.gradients(tf.reduce_sum(tf.abs(tf.complex(a, b))), [a, b])
    with tf.Session() as sess:
        values = sess.run(ops)
        gx, = sess.run(g)
        ga, gb = sess.run(g2)
    for got, want in zip(values, TF_VALUES):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert values[0].dtype == np.complex64 and values[4].dtype == np.float32
    np.testing.assert_allclose(gx, TF_GRAD_X, rtol=1e-5)
    np.testing.assert_allclose(ga, TF_GRAD_A, rtol=1e-5)
    np.testing.assert_allclose(gb, TF_GRAD_B, rtol=1e-5)


def test_float64_parts_give_complex128_and_names_as_tf():
    c = tf.complex(tf.constant(1.0, tf.float64), tf.constant(2.0, tf.float64))
    assert c.dtype == tf.complex128 and c.op.name == "Complex"
    assert tf.math.real(c).dtype == tf.float64 and tf.math.imag(c).op.type == "Imag"
    assert tf.abs(c).op.name == "Abs" and tf.abs(c).op.type == "ComplexAbs"
    with tf.Session() as sess:
        assert sess.run(tf.abs(c)) == pytest.approx(5 ** 0.5)


@pytest.mark.parametrize("re, im, words", [
    (1.0, np.float64(1.0), "float32 float64"), (1, 1, "int32 int32")])
def test_mismatched_or_integer_parts_are_type_errors_as_tf(re, im, words):
    re = tf.constant(re)
    im = tf.constant(im, tf.float64) if isinstance(im, np.float64) else tf.constant(im)
    with pytest.raises(TypeError, match=f"real and imag have incorrect types: {words}"):
        tf.complex(re, im)
