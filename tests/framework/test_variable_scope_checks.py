"""variable_scope / Variable argument checks TF 1.15's variables and variable_scope tests make:
auxiliary_name_scope must be a bool, a custom getter callable, a constraint callable, scopes
exit in order; Variable._distribute_strategy is None."""

import pytest

import flowloom as tf


def test_auxiliary_name_scope_must_be_a_bool():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="auxiliary_name_scope"):
            tf.variable_scope(None, default_name="scope", auxiliary_name_scope="invalid")
        with tf.variable_scope("scope") as scope:
            pass
        with pytest.raises(TypeError, match="auxiliary_name_scope"):
            tf.variable_scope(scope, auxiliary_name_scope="invalid")


def test_custom_getter_and_constraint_must_be_callable():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"custom_getter .* not callable:"):
            with tf.variable_scope("s", custom_getter=3):
                tf.get_variable("v", [1])
        with pytest.raises(ValueError, match=r"custom_getter .* not callable:"):
            tf.get_variable("v", [1], custom_getter=3)
        with pytest.raises(ValueError, match="constraint"):
            tf.Variable(lambda: tf.constant(1.0), constraint=0)
        v = tf.Variable(1.0)
        assert v._distribute_strategy is None


def test_scopes_must_exit_in_order():
    with tf.Graph().as_default():
        with tf.variable_scope("aa"):
            scope = tf.variable_scope("bb")
            scope.__enter__()
            with tf.variable_scope("cc"):
                with pytest.raises(RuntimeError, match="nesting"):
                    scope.__exit__(None, None, None)
            scope.__exit__(None, None, None)
            assert tf.get_variable_scope().name == "aa"
