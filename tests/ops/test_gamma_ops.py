"""Igamma, Igammac, IgammaGradA, Zeta and Polygamma (NumPy only: Cephes' series and
continued fractions) against TF 1.15.5's values and gradients (tests/data/gamma_ops_tf1.json,
recorded by tests/data/record_gamma_ops.py), finite differences, and SciPy where installed."""

import json
import math
import os

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.math import gamma_ops
from tests.data import gamma_cases

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "gamma_ops_tf1.json")


def _recorded():
    with open(DATA) as f:
        return json.load(f)["values"]


@pytest.fixture(scope="module")
def ours():
    with tf.Graph().as_default():
        return gamma_cases.run(tf, gamma_ops)


@pytest.mark.parametrize("name", sorted(_recorded()))
def test_values_and_gradients_match_tf_float64(name, ours):
    want, got = _recorded()[name], ours[name]
    # Nested lists (one per gradient); NaN and inf where TF has them.
    np.testing.assert_allclose(np.array(got, float), np.array(want, float), rtol=1e-9,
                               atol=1e-300, equal_nan=True)


def test_float32_is_the_float64_value_rounded():
    a, x = gamma_cases.inputs()[:2]
    with tf.Graph().as_default(), tf.Session() as sess:
        p32, p64 = sess.run([tf.igamma(a.astype(np.float32), x.astype(np.float32)),
                             tf.igamma(a.astype(np.float32).astype(np.float64),
                                       x.astype(np.float32).astype(np.float64))])
    assert p32.dtype == np.float32
    np.testing.assert_array_equal(p32, p64.astype(np.float32))


def test_dtypes_and_gradients_as_tf():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="DataType int32 not in list of allowed values: "
                           "float32, float64"):
            tf.igamma(tf.constant(1), tf.constant(2))
        values = {"a": np.linspace(0.1, 2, 15).reshape(1, 3, 5),
                  "x": np.linspace(0.5, 10, 15).reshape(1, 3, 5)}
        a, x = tf.constant(values["a"]), tf.constant(values["x"])
        n = tf.constant(np.arange(15.0).reshape(1, 3, 5) % 4)
        with tf.Session():
            for f, inputs in ((tf.igamma, [a, x]), (tf.igammac, [a, x]),
                              (lambda u, v: tf.zeta(u + 1, v), [x]),
                              (tf.polygamma, [x])):
                out = f(a if f is not tf.polygamma else n, x)
                for t in inputs:
                    # At the constants' values: without x_init_value compute_gradient draws
                    # random points in [0, 1) (as TF's), and near x = 0 a step of 1e-5 is
                    # too coarse for x**(a - 1) (see the test below).
                    point = values["a" if t is a else "x"]
                    theirs, numeric = tf.test.compute_gradient(t, [1, 3, 5], out, [1, 3, 5],
                                                               x_init_value=point, delta=1e-5)
                    np.testing.assert_allclose(theirs, numeric, rtol=1e-4, atol=1e-6)
        z = tf.zeta(x + 1, a)
        assert tf.gradients(z, [x])[0] is None  # TF has no derivative in zeta's x
        assert tf.gradients(tf.polygamma(n, x), [n])[0] is None


def test_igamma_x_gradient_near_zero_is_the_closed_form():
    # A random point of the check above once drew x = 1.4626e-4 (a = 0.1): the gradient
    # x**-0.9 e**-x / Gamma(0.1) = 297.1627 was right, the central difference with
    # delta = 1e-5 gave 297.5597 (its error, delta**2 / 6 times the third derivative of P,
    # is 1.3e-3 of the gradient there).
    a0, x0 = 0.1, 1.4625571917814545e-4
    closed = math.exp(-x0 + (a0 - 1) * math.log(x0) - math.lgamma(a0))
    with tf.Graph().as_default(), tf.Session():
        x = tf.placeholder(tf.float64, [1])
        for f, sign in ((tf.igamma, 1), (tf.igammac, -1)):
            out = f(tf.constant(np.array([a0])), x)
            _, coarse = tf.test.compute_gradient(x, [1], out, [1], x_init_value=[x0], delta=1e-5)
            theirs, fine = tf.test.compute_gradient(x, [1], out, [1], x_init_value=[x0],
                                                    delta=1e-8)
            np.testing.assert_allclose(theirs[0, 0], sign * closed, rtol=1e-12)
            np.testing.assert_allclose(fine[0, 0], sign * closed, rtol=1e-6)
            np.testing.assert_allclose(coarse[0, 0], sign * 297.5596958073, rtol=1e-9)


def test_against_scipy_where_installed():
    special = pytest.importorskip("scipy.special")
    rs = np.random.RandomState(3)
    a, x = rs.uniform(1e-3, 200, 3000), rs.uniform(0, 300, 3000)
    with tf.Graph().as_default(), tf.Session() as sess:
        p, q, z, psi = sess.run([tf.igamma(a, x), tf.igammac(a, x), tf.zeta(a + 1, x + 0.01),
                                 tf.polygamma(np.floor(a / 20), x + 0.01)])
    np.testing.assert_allclose(p, special.gammainc(a, x), rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(q, special.gammaincc(a, x), rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(z, special.zeta(a + 1, x + 0.01), rtol=1e-12)
    np.testing.assert_allclose(psi, special.polygamma(np.floor(a / 20), x + 0.01), rtol=1e-9)


def test_ndarray_operators_defer_to_variables_and_strings_stay_str():
    with tf.Graph().as_default():
        x = np.array([[1, 2], [3, 4]], np.int32)
        v = tf.Variable(np.array([[1], [2]], np.int32))
        product = x * v
        assert isinstance(product, tf.Tensor) and product.op.type == "Mul"
        words = np.array([["a", "b"]], dtype=object)
        tf.constant(words)
        tf.add(words, words)
        assert words.tolist() == [["a", "b"]]  # not turned into bytes in place
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(product).tolist() == [[1, 2], [6, 8]]


def test_betainc_shapes_as_tf():
    with tf.Graph().as_default():
        a, x = tf.placeholder(tf.float32, [3]), tf.placeholder(tf.float32, [3])
        assert tf.betainc(a, tf.placeholder(tf.float32, []), x).shape == [3]
        with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but "
                           r"are 3 and 2\. Shapes are \[3\] and \[2\]\. for 'Betainc_1' \(op: "
                           r"'Betainc'\) with input shapes: \[3\], \[2\], \[3\]\."):
            tf.betainc(tf.zeros([3]), tf.zeros([2]), tf.zeros([3]))
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal"):
            tf.betainc(tf.zeros([3, 1]), tf.zeros([1, 3]), 0.5)  # no broadcasting, as TF
        with tf.Session() as sess:
            assert sess.run(tf.betainc(1.0, 1.0, 0.3)) == pytest.approx(0.3)


def test_betainc_against_scipy_where_installed():
    special = pytest.importorskip("scipy.special")
    rs = np.random.RandomState(5)
    a, b, x = rs.uniform(0.01, 100, 2000), rs.uniform(0.01, 100, 2000), rs.uniform(0, 1, 2000)
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.betainc(a, b, x))
    np.testing.assert_allclose(got, special.betainc(a, b, x), rtol=1e-9, atol=1e-300)


def test_each_value_is_the_same_computed_alone_or_in_any_block():
    # The kernels iterate whole arrays, masked per element: an element's series or fraction,
    # and when it stops, must not depend on its neighbours (a kernel split into blocks must
    # give the same bits).
    rs = np.random.RandomState(5)
    a = np.concatenate([rs.uniform(1e-3, 200, 30), rs.uniform(0, 2, 20), [0.1, 1, 0, -1, np.nan]])
    x = np.concatenate([rs.uniform(0, 300, 30), rs.uniform(0, 3, 20), [1.46e-4, 0, 1, 2, 1]])
    for fn, args in ((gamma_ops.igamma_values, (a, x)), (gamma_ops.igammac_values, (a, x)),
                     (gamma_ops.igamma_grad_a_values, (a, x)),
                     (gamma_ops.zeta_values, (a + 1, x + 0.01)),
                     (gamma_ops.polygamma_values, (np.floor(a / 20), x + 0.01))):
        whole = fn(*args)
        alone = [fn(*(v[i:i + 1] for v in args))[0] for i in range(a.size)]
        blocks = np.concatenate([fn(*(v[lo:lo + 7] for v in args)) for lo in range(0, a.size, 7)])
        for got in (np.array(alone), blocks):
            np.testing.assert_array_equal(got.view(np.int64), whole.view(np.int64),
                                          err_msg=fn.__name__)
