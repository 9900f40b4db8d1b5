"""The shortcuts of op construction (issue 13) keep TF's names and the user's lines: ops made
through apply_op's fast path, constant() and tf.name_scope's entry for names checked before."""

import inspect

import pytest

import flowloom as tf
from flowloom.framework.apply_op import apply_op


def _line():
    return inspect.currentframe().f_back.f_lineno


def _site(t):
    return t.op.traceback[-1][:2]


def test_user_line_of_ops_made_directly_and_through_wrappers():
    with tf.Graph().as_default():
        c, c_line = tf.constant(1.0), _line()
        i, i_line = tf.identity(c), _line()
        a, a_line = apply_op("Identity", (c,)).outputs[0], _line()  # apply_op called by a user
        assert _site(c) == (__file__, c_line)
        assert _site(i) == (__file__, i_line)
        assert _site(a) == (__file__, a_line)

        def wrapper(x):
            return tf.nn.relu(x), _line()

        r, r_line = wrapper(c)
        assert _site(r) == (__file__, r_line)


def test_variable_ops_name_the_get_variable_line():
    with tf.Graph().as_default() as g:
        with tf.variable_scope("layer"):
            _, v_line = tf.get_variable("w", [2, 3]), _line()
        for op in g.get_operations():
            assert op.traceback[-1][:2] == (__file__, v_line), op.name


def test_name_scopes_checked_before_are_entered_as_before():
    with tf.Graph().as_default():
        for _ in range(2):  # the second round takes the checked-names path
            with tf.name_scope("outer"):
                with tf.name_scope("_nested") as s:  # valid below the root only
                    assert s.startswith("outer") and s.endswith("/_nested/")
        with pytest.raises(ValueError, match="'_nested' is not a valid scope name"):
            with tf.name_scope("_nested"):
                pass
        with tf.name_scope("outer/") as s:  # re-entering an absolute scope, not a new one
            assert s == "outer/"
            assert tf.constant(0).name == "outer/Const:0"
        with tf.name_scope("outer") as s:
            assert s == "outer_2/"
        with tf.name_scope(None, "outer", [tf.constant(1)]) as s:
            assert s == "outer_3/"
