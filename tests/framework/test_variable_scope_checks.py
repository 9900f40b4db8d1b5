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


@pytest.mark.parametrize("use_resource", [False, True])
def test_initial_value_from_inside_a_loop_is_refused(use_resource):
    def body(i, _):
        v = tf.Variable(initial_value=tf.zeros([], dtype=tf.int32), use_resource=use_resource)
        return i + 1, v.read_value()

    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="inside a control-flow"):
            tf.while_loop(lambda i, _: i < 10, body, [0, 0])
        # A lambda initializer is built outside the loop and is fine.
        tf.while_loop(lambda i, _: i < 3, lambda i, x: (i + 1, tf.Variable(
            lambda: tf.zeros([], tf.int32), use_resource=use_resource).read_value()), [0, 0])


def test_caching_device_places_the_read_not_the_variable():
    with tf.Graph().as_default():
        plain = tf.Variable(2.0)
        assert plain.value().device == plain.device
        cached = tf.Variable(2.0, caching_device="/job:foo")
        assert not cached.device.startswith("/job:foo")
        assert cached.value().device.startswith("/job:foo")
    with tf.Graph().as_default(), tf.Session() as sess:
        with tf.variable_scope("s", caching_device="/cpu:0"):
            w = tf.get_variable("w", [], initializer=tf.ones_initializer())
        assert w.value().device.endswith("CPU:0") and not w.device
        sess.run(w.initializer)
        assert sess.run(w.value()) == 1.0


def test_scope_without_auxiliary_name_scope_keeps_the_current_name_scope():
    with tf.Graph().as_default():
        with tf.variable_scope("scope", auxiliary_name_scope=False) as scope:
            assert scope.original_name_scope == ""
            assert tf.get_variable("w", []).name == "scope/w:0"
            assert tf.constant([], name="c").name == "c:0"
        with tf.variable_scope(None, default_name="default", auxiliary_name_scope=False) as d:
            assert d.original_name_scope == ""
        with tf.variable_scope("outer"):
            with tf.variable_scope("inner", auxiliary_name_scope=False) as inner:
                assert inner.original_name_scope == "outer/"


def test_unique_scope_numbering_survives_reentering_a_scope_object():
    with tf.Graph().as_default():
        with tf.variable_scope("default") as default:
            names = []
            with tf.variable_scope(None, "layer"):
                names.append(tf.get_variable("w", []).name)
            with tf.variable_scope(None, "layer"):
                names.append(tf.get_variable("w", []).name)
            with tf.variable_scope(default):
                pass
            with tf.variable_scope(None, "layer"):
                names.append(tf.get_variable("w", []).name)
        assert names == ["default/layer/w:0", "default/layer_1/w:0", "default/layer_2/w:0"]
