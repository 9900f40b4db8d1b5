"""Compiled plans assign an Identity's input instead of calling it, and VariableV2 steps are
bound with their resource key: the same values and errors as the kernels they stand for."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.runtime import compiled_plan


def test_identity_steps_are_assignments_with_the_same_values():
    x = tf.placeholder(tf.float32, [3])
    v = tf.Variable(np.zeros(3, np.float32))
    y = tf.identity(tf.identity(x) * 2.0)
    with tf.control_dependencies([tf.assign(v, y)]):
        z = tf.identity(v.read_value() + 1.0)
    with tf.Session() as sess:
        sess.run(v.initializer)
        for k in range(4):  # interpreted, then compiled
            feed = np.array([k, 1, 2], np.float32)
            got_y, got_z = sess.run([y, z], {x: feed})
            np.testing.assert_array_equal(got_y, feed * 2)
            np.testing.assert_array_equal(got_z, feed * 2 + 1)
        plan = [p for p in sess._plan_cache.values() if p.runner][0]
        identities = [s for s in plan.steps if s.op.type == "Identity"]
        assert identities and all(compiled_plan._passes_input(s) for s in identities
                                  if not s.derefs)


def test_bound_variables_are_per_session_and_fail_uninitialized():
    v = tf.Variable(np.ones(2, np.float32), name="v")
    inc = tf.assign_add(v, [1.0, 1.0])
    with tf.Session() as a, tf.Session() as b:
        a.run(v.initializer)
        for _ in range(3):
            a.run(inc)
        np.testing.assert_array_equal(a.run(v), [4, 4])
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value v"):
            b.run(inc)
        b.run(v.initializer)
        for _ in range(3):
            b.run(inc)
        np.testing.assert_array_equal(b.run(v), [4, 4])
        np.testing.assert_array_equal(a.run(v), [4, 4])
