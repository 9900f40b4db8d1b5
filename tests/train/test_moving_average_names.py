"""ExponentialMovingAverage names under scopes, zero-debias helpers under reuse, and
weighted_moving_average (found by TF 1.15's moving_averages_test)."""

import numpy as np

import flowloom as tf
from flowloom.train import moving_averages


def test_average_names_follow_the_current_scope_before_and_after_apply():
    with tf.Graph().as_default():
        with tf.variable_scope("scope1"):
            v0 = tf.Variable(10.0, name="v0")
            total = v0 + 1.0
        with tf.variable_scope("scope2"):
            ema = tf.train.ExponentialMovingAverage(0.25, zero_debias=True, name="foo")
            assert ema.average_name(v0) == "scope2/scope1/v0/foo"
            assert ema.average_name(total) == "scope2/scope1/add/foo"
            ema.apply([v0, total])
            assert ema.average(v0).op.name == "scope2/scope1/v0/foo"
            assert ema.average(total).op.name == "scope2/scope1/add/foo"
            assert sorted(ema.variables_to_restore()) == [
                "scope2/scope1/add/foo", "scope2/scope1/v0/foo",
                "scope2/scope2/scope1/add/foo/biased", "scope2/scope2/scope1/add/foo/local_step"]


def test_zero_debias_helpers_are_reused_under_reuse():
    with tf.Graph().as_default():
        with tf.variable_scope("s1") as scope:
            var = tf.get_variable("Var", shape=[])
            moving_averages.assign_moving_average(var, 0.0, 0.99)
            moving_averages.assign_moving_average(var, 0.0, 0.99)
        with tf.variable_scope(scope, reuse=True):
            var = tf.get_variable("Var", shape=[])
            moving_averages.assign_moving_average(var, 0.0, 0.99)
        names = sorted(v.op.name for v in tf.global_variables())
        assert names == ["s1/Var", "s1/s1/Var/biased", "s1/s1/Var/biased_1",
                         "s1/s1/Var/local_step", "s1/s1/Var/local_step_1"]


def test_weighted_moving_average():
    with tf.Graph().as_default(), tf.Session() as sess:
        value, weight = tf.placeholder(tf.float32, []), tf.placeholder(tf.float32, [])
        wma = moving_averages.weighted_moving_average(value, 0.5, weight)
        assert wma.op.name == "WeightedMovingAvg/WeightedMovingAvg"  # TF 1.15 names it so
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(wma, {value: 3.0, weight: 4.0}), 3.0)
        got = sess.run(wma, {value: 11.0, weight: 7.0})
        numerator = 3.0 * 4.0 * 0.5 * 0.5 + 11.0 * 7.0 * 0.5
        denominator = 4.0 * 0.5 * 0.5 + 7.0 * 0.5
        np.testing.assert_allclose(got, numerator / denominator, rtol=1e-6)
