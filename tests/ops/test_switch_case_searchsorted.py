"""tf.switch_case, tf.searchsorted (LowerBound/UpperBound) and the legacy `Variable` op
(state_ops.variable_op), found by TF 1.15's control_flow_ops_test, array_ops_test and
variable_ops_test."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.state import state_ops


def test_switch_case_selects_clamps_and_differentiates():
    with tf.Graph().as_default():
        i = tf.placeholder_with_default(0, [])
        branches = [lambda k=k: tf.constant(10. * k) for k in range(3)]
        out = tf.switch_case(i, branches, default=lambda: tf.constant(60.))
        no_default = tf.switch_case(i, {k: fn for k, fn in enumerate(branches)})
        x = tf.constant(3.0)
        y = tf.switch_case(i, [lambda: 2. * x, lambda: x * x])
        (dx,) = tf.gradients(y, x)
        with tf.Session() as sess:
            assert [sess.run(out, {i: k}) for k in (-1, 0, 2, 3, 9)] == [60., 0., 20., 60., 60.]
            assert [sess.run(no_default, {i: k}) for k in (-1, 1, 5)] == [20., 10., 20.]
            assert sess.run([y, dx], {i: 0}) == [6., 2.]
            assert sess.run([y, dx], {i: 1}) == [9., 6.]


def test_switch_case_argument_errors():
    with tf.Graph().as_default():
        fn = lambda: tf.constant(1.)  # noqa: E731
        with pytest.raises(TypeError, match="branch_index.*Tensor"):
            tf.switch_case(1, [fn])
        with pytest.raises(ValueError, match="must form contiguous"):
            tf.switch_case(tf.constant(0), {0: fn, 2: fn})
        with pytest.raises(ValueError, match="must form contiguous"):
            tf.switch_case(tf.constant(0), [(0, fn), (0, fn)])
        with pytest.raises(TypeError, match="must be a Python `int`"):
            tf.switch_case(tf.constant(0), [(tf.constant(0), fn)])


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy(side):
    rng = np.random.RandomState(0)
    seq = np.sort(rng.randint(0, 10, size=(2, 3, 6)), axis=-1).astype(np.float32)
    values = rng.randint(-1, 11, size=(2, 3, 4)).astype(np.float32)
    want = np.stack([np.searchsorted(s, v, side=side)
                     for s, v in zip(seq.reshape(-1, 6), values.reshape(-1, 4))]).reshape(2, 3, 4)
    with tf.Graph().as_default():
        out = tf.searchsorted(seq, values, side=side, out_type=tf.int64)
        assert out.shape.as_list() == [2, 3, 4] and out.dtype == tf.int64
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(out), want)
        with pytest.raises(ValueError, match="side must be"):
            tf.searchsorted(seq, values, side="middle")
        ps, pv = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
        bad = tf.searchsorted(ps, pv)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Leading dim_size"):
                sess.run(bad, {ps: seq[0], pv: values})


def test_legacy_variable_op():
    with tf.Graph().as_default():
        p = state_ops.variable_op([1, 2], tf.float32)
        assert p.op.type == "Variable" and p.shape.as_list() == [1, 2]
        q = state_ops.variable_op([1, 2], tf.float32, set_shape=False)
        assert q.shape.ndims is None
        added = state_ops.assign_add(state_ops.assign(q, [[1., 2.]]), [[2., 3.]])
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(added), [[3., 5.]])
