"""The user's line of an op or a variable: captured cheaply, reported exactly (issue 13).

Ops keep where the user's code created them (the first frame outside flowloom) as a code
object and an instruction offset; the line number is worked out only when a message or
`op.traceback` asks for it. These tests pin that what comes out is the creating line.
"""

import sys

import pytest

import flowloom as tf


def _line_here():
    return sys._getframe(1).f_lineno


def test_op_traceback_is_the_creating_line():
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        line = _line_here(); b = tf.add(a, a)  # noqa: E702 - same line on purpose
        (f, ln, fn, src), = b.op.traceback  # TF's frames: file, line, function, source
        assert f == __file__ and ln == line and fn == "test_op_traceback_is_the_creating_line"
        assert src.endswith("b = tf.add(a, a)  # noqa: E702 - same line on purpose")
        (frame_and_start,) = b.op.traceback_with_start_lines
        first = test_op_traceback_is_the_creating_line.__code__.co_firstlineno
        assert frame_and_start == (f, ln, fn, src, first)
        assert b.op.user_location() == f'File "{__file__}", line {line}, in {fn}'


def test_line_of_a_long_module_level_script():
    # Module-level code of a long script: the op's line is found from the instruction offset.
    src = "x = 0\n" * 2000 + "t = tf.add(a, a)\n" + "y = 1\n" * 50 + "u = tf.identity(t)\n"
    with tf.Graph().as_default():
        scope = {"tf": tf, "a": tf.constant(2.0)}
        exec(compile(src, "long_script.py", "exec"), scope)
        assert scope["t"].op._traceback == ("long_script.py", 2001, "<module>")
        assert scope["u"].op._traceback == ("long_script.py", 2052, "<module>")


def test_traceback_can_be_cleared():
    with tf.Graph().as_default():
        t = tf.constant(1.0)
        t.op._traceback = None
        assert t.op.traceback == [] and t.op.user_location() == "<unknown>"


def _make(name):
    return tf.get_variable(name, [2])


def test_variable_reuse_error_says_where_it_was_defined():
    with tf.Graph().as_default():
        with tf.variable_scope("s"):
            line = _line_here(); _make("v")  # noqa: E702
        with tf.variable_scope("s"):
            with pytest.raises(ValueError) as info:
                _make("v")
    msg = str(info.value)
    assert msg.startswith("Variable s/v already exists, disallowed.")
    where = msg.split("Originally defined at:\n\n", 1)[1]
    # As TF: up to 5 frames outside the library, innermost first, with their source lines.
    assert where.startswith(f'  File "{__file__}", line {_make.__code__.co_firstlineno + 1}, '
                            "in _make\n    return tf.get_variable(name, [2])\n")
    assert f'File "{__file__}", line {line}, in ' \
           "test_variable_reuse_error_says_where_it_was_defined" in where
    assert where.count("  File ") == 5


def _user_initial_value():
    return tf.constant(3.0) * 2.0  # the innermost user line of these ops


def test_ops_of_a_variable_point_at_the_innermost_user_line():
    # Variable's constructor pins the site above it; user code called inside still wins.
    import threading

    results = {}

    def build(key):
        with tf.Graph().as_default():
            line = _line_here(); tf.get_variable("w", [2, 2])  # noqa: E702
            ops = [op for op in tf.get_default_graph().get_operations()
                   if op.name.startswith("w")]
            assert len(ops) == 10  # the initializer's 7, VariableV2, Assign, read
            for op in ops:
                assert op._traceback[1:] == (line, "build"), (op.name, op._traceback)
            line = _line_here(); u = tf.Variable(_user_initial_value, name="u")  # noqa: E702
            inner = _user_initial_value.__code__.co_firstlineno + 1
            assert u.initial_value.op._traceback[1:] == (inner, "_user_initial_value")
            assert u.op._traceback[1:] == (line, "build")
            assert u.initializer._traceback[1:] == (line, "build")
            outside = tf.constant(1.0)
            results[key] = outside.op._traceback[2]

    build("main")
    t = threading.Thread(target=build, args=("thread",))
    t.start()
    t.join()
    assert results == {"main": "build", "thread": "build"}
