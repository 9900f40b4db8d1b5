"""tf.make_template: variables created on the first call, reused on later calls, TF's scope
names and errors (found by TF 1.15's template_test)."""

import pytest

import flowloom as tf


def _linear(x, scale_name):
    w = tf.get_variable(scale_name, [], initializer=tf.constant_initializer(2.0))
    return x * w


def test_variables_shared_between_calls():
    with tf.Graph().as_default():
        t = tf.make_template("s", _linear, scale_name="w")
        y1, y2 = t(tf.constant(1.0)), t(tf.constant(3.0))
        assert [v.name for v in tf.global_variables()] == ["s/w:0"]
        assert t.variable_scope_name == "s/" and [v.name for v in t.trainable_variables] == ["s/w:0"]
        other = tf.make_template("s", _linear, scale_name="w")
        other(tf.constant(0.0))
        assert [v.name for v in tf.global_variables()] == ["s/w:0", "s_1/w:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run([y1, y2]) == [2.0, 6.0]


def test_new_trainable_variable_on_later_call_raises():
    with tf.Graph().as_default():
        calls = []

        def f():
            calls.append(1)
            return tf.Variable(1.0, name="v%d" % len(calls))

        t = tf.make_template("t", f)
        t()
        with pytest.raises(ValueError, match="Trainable variable created when calling a template"):
            t()


def test_create_scope_now_and_unique_name():
    with tf.Graph().as_default():
        t = tf.make_template("now", _linear, create_scope_now_=True, scale_name="w")
        assert t.variable_scope.name == "now"
        t(tf.constant(1.0))
        u = tf.make_template("ignored", _linear, unique_name_="exact", scale_name="w")
        u(tf.constant(1.0))
        assert sorted(v.name for v in tf.global_variables()) == ["exact/w:0", "now/w:0"]
        with pytest.raises(ValueError, match="name cannot be None"):
            tf.make_template(None, _linear)
        from flowloom.template import make_template_internal

        with pytest.raises(NotImplementedError, match="graph functions"):
            make_template_internal("g", _linear, create_graph_function_=True)
