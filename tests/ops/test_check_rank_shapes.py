"""tf.assert_rank / assert_rank_at_least / assert_rank_in / debugging.assert_shapes /
assert_near / assert_integer / assert_proper_iterable / assert_same_float_dtype, and the
binary asserts' build-time shape errors (found by TF 1.15's check_ops_test)."""

import numpy as np
import pytest

import flowloom as tf


def _run(check, feed=None, x=None):
    with tf.control_dependencies([check]):
        out = tf.identity(x if x is not None else tf.constant(0))
    with tf.Session() as sess:
        return sess.run(out, feed_dict=feed)


def test_rank_checks_static_and_dynamic():
    with tf.Graph().as_default():
        t = tf.constant([1, 2], name="t")
        assert tf.assert_rank(t, 1).type == "NoOp"
        with pytest.raises(ValueError, match="fail.*must have rank 2.*Received rank 1"):
            tf.assert_rank(t, 2, message="fail")
        with pytest.raises(ValueError, match="must have rank at least 2"):
            tf.assert_rank_at_least(t, 2)
        assert tf.assert_rank_at_least(t, 0).type == "NoOp"
        with pytest.raises(ValueError, match=r"must have rank in \(0, 2\)"):
            tf.assert_rank_in(t, (0, 2))
        with pytest.raises(ValueError, match="Rank must be a scalar"):
            tf.assert_rank(t, np.array([], np.int32))
        with pytest.raises(TypeError, match="must be of type <dtype: 'int32'>"):
            tf.assert_rank(t, .5)
        p = tf.placeholder(tf.float32, name="p")
        assert _run(tf.assert_rank_in(p, (1, 2)), {p: [1.0]}) == 0
        with pytest.raises(tf.errors.InvalidArgumentError, match="p:0 must have rank in"):
            _run(tf.assert_rank_in(p, (1, 2)), {p: 1.0})
        with pytest.raises(tf.errors.InvalidArgumentError, match="p:0 must have rank at least"):
            _run(tf.assert_rank_at_least(p, 2), {p: [1.0]})
        r = tf.placeholder(tf.int32, name="r")
        with pytest.raises(tf.errors.InvalidArgumentError, match="Rank must be a scalar"):
            _run(tf.assert_rank(t, r), {r: [1, 2]})


def test_assert_shapes():
    with tf.Graph().as_default():
        x = tf.zeros([2, 3])
        y = tf.zeros([2, 4])
        s = tf.constant(1.0)
        op = tf.debugging.assert_shapes([(x, ("N", "Q")), (y, ("N", 4)), (s, ())])
        assert op.type == "NoOp"
        with pytest.raises(ValueError, match="Specified by tensor .* dimension 0.*size 3"):
            tf.debugging.assert_shapes([(x, ("N", "Q")), (tf.zeros([3]), ("N",))])
        with pytest.raises(ValueError, match="only allowed as the first entry"):
            tf.debugging.assert_shapes({x: ("N", ...)})
        with pytest.raises(ValueError, match="must be an iterable"):
            tf.debugging.assert_shapes({x: 3})
        tf.debugging.assert_shapes({x: (..., 3)})
        a = tf.placeholder(tf.float32, [None, 3])
        b = tf.placeholder(tf.float32, [None])
        check = tf.debugging.assert_shapes([(a, ("N", 3)), (b, ("N",))])
        assert _run(check, {a: np.zeros((2, 3)), b: np.zeros(2)}) == 0
        with pytest.raises(tf.errors.InvalidArgumentError, match="dimension"):
            _run(check, {a: np.zeros((2, 3)), b: np.zeros(5)})


def test_assert_near_and_static_helpers():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        assert _run(tf.assert_near(x, x + 1e-7)) == 0
        with pytest.raises(tf.errors.InvalidArgumentError, match="not equal to tolerance"):
            _run(tf.assert_near(x, x + 0.1, atol=0.01))
        tf.assert_integer(tf.constant(1))
        with pytest.raises(TypeError, match="to be integer type"):
            tf.assert_integer(x)
        tf.assert_proper_iterable([1, 2])
        for bad in (x, np.zeros(2), "ab"):
            with pytest.raises(TypeError, match="proper"):
                tf.assert_proper_iterable(bad)
        with pytest.raises(TypeError, match="to be iterable"):
            tf.assert_proper_iterable(1)
        assert tf.assert_same_float_dtype([x, None]) == tf.float32
        assert tf.assert_same_float_dtype() == tf.float32
        with pytest.raises(ValueError, match="must be of the same type"):
            tf.assert_same_float_dtype([x, tf.constant([1.0], tf.float64)])
        with pytest.raises(ValueError, match="Expected floating point"):
            tf.assert_same_float_dtype([tf.constant(1)])


def test_binary_assert_shapes_checked_first_and_identical_is_noop():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
            tf.assert_equal(tf.constant([1, 1, 1]), tf.constant([1, 1]))
        empty = tf.constant([])
        assert tf.assert_equal(empty, empty).type == "NoOp"
        with pytest.raises(tf.errors.InvalidArgumentError, match="fail"):
            tf.assert_equal(tf.constant(True), tf.constant(False), message="fail")


def test_ensure_shape_names_the_input_node():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.int32)
        d = tf.ensure_shape(tf.divide(p, 3, name="MyDivide"), (3, 3, 3))
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Shape of tensor MyDivide \[2,1\] is not compatible"):
                sess.run(d, {p: [[1], [2]]})
