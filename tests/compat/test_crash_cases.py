"""Issue 9's crashes and wrong values, against TF (tests/data/compat_crashes_tf.json, recorded
by tests/data/record_compat_crashes.py from tests/data/compat_crash_cases.py)."""

import json
import os
import sys

import numpy as np
import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
sys.path.insert(0, DATA)
import compat_crash_cases  # noqa: E402

RECORDED = json.load(open(os.path.join(DATA, "compat_crashes_tf.json")))["cases"]


@pytest.mark.parametrize("case", sorted(compat_crash_cases.CASES))
def test_case_matches_tensorflow(case):
    scope = {"tf": tf, "np": np}
    exec(compat_crash_cases.CASES[case], scope)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(scope["fetch"], scope["feeds"])
    want = RECORDED[case]
    assert len(values) == len(want)
    for got, expected in zip(values, want):
        if expected is None:
            assert got is None
        else:
            np.testing.assert_allclose(np.asarray(got, dtype=np.float64), expected, rtol=1e-5,
                                       atol=1e-6)


def test_loss_weights_that_do_not_broadcast_fail_at_run_time():
    values = tf.placeholder(tf.float32, [None, 3])
    weights = tf.placeholder(tf.float32)
    loss = tf.losses.mean_squared_error(values, values * 2.0, weights=weights)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="weights can not be broadcast to values"):
            sess.run(loss, {values: np.ones([2, 3]), weights: [1.0, 2.0]})
