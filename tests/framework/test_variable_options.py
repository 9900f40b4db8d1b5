"""Variable synchronization/aggregation enums and defaults, tf.assert_variables_initialized,
get_variable's string default and no-argument initializers (found by TF 1.15's
variables_test and variable_scope_test)."""

import numpy as np
import pytest

import flowloom as tf
from flowloom import variables


def test_enums_and_trainable_default():
    assert variables.VariableAggregation.ONLY_FIRST_TOWER == \
        variables.VariableAggregationV2.ONLY_FIRST_REPLICA
    assert variables.VariableAggregationV2.SUM == variables.VariableAggregation.SUM
    with tf.Graph().as_default():
        on_read = tf.VariableSynchronization.ON_READ
        assert tf.Variable(1.0).trainable
        assert not tf.Variable(1.0, synchronization=on_read).trainable
        assert tf.Variable(1.0, synchronization=on_read, trainable=True).trainable
        v = tf.get_variable("v", [], synchronization=on_read,
                            aggregation=tf.VariableAggregation.SUM)
        assert not v.trainable and v.aggregation == tf.VariableAggregation.SUM
        assert v not in tf.trainable_variables() and v in tf.global_variables()
        with pytest.raises(ValueError, match="Invalid variable synchronization"):
            tf.Variable(1.0, synchronization=7)
        saved = tf.Variable(2.0, synchronization=tf.VariableSynchronization.NONE,
                            aggregation=variables.VariableAggregationV2.ONLY_FIRST_REPLICA)
        again = tf.Variable(variable_def=saved.to_proto())
        assert again.synchronization == tf.VariableSynchronization.NONE
        assert again.aggregation == variables.VariableAggregationV2.ONLY_FIRST_REPLICA


def test_custom_getter_sees_synchronization():
    seen = {}

    def getter(next_getter, name, **kwargs):
        seen.update(kwargs)
        return next_getter(name, **kwargs)

    with tf.Graph().as_default():
        with tf.variable_scope("s", custom_getter=getter):
            tf.get_variable("x", [], synchronization=tf.VariableSynchronization.ON_WRITE)
    assert seen["synchronization"] == tf.VariableSynchronization.ON_WRITE
    assert seen["aggregation"] == tf.VariableAggregation.NONE


def test_assert_variables_initialized():
    with tf.Graph().as_default():
        assert tf.assert_variables_initialized() is None
        a, b = tf.Variable([1, 2]), tf.Variable(3)
        check = tf.assert_variables_initialized()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError):
                sess.run(check)
            sess.run(a.initializer)
            with pytest.raises(tf.errors.FailedPreconditionError):
                sess.run(check)
            sess.run(b.initializer)
            np.testing.assert_array_equal(sess.run(check), [1, 0])


def test_get_variable_string_default_and_no_argument_initializers():
    with tf.Graph().as_default():
        s = tf.get_variable("s", [2], dtype=tf.string)
        f = tf.get_variable("f", initializer=lambda: tf.constant([1.0, 2.0]))
        g = tf.get_variable("g", initializer=lambda x=3.0: tf.constant(x))
        with pytest.raises(ValueError, match="The initializer passed is not valid"):
            tf.get_variable("h", initializer=lambda shape: tf.zeros(shape))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert list(sess.run(s)) == [b"", b""]
            np.testing.assert_array_equal(sess.run(f), [1.0, 2.0])
            assert sess.run(g) == 3.0
