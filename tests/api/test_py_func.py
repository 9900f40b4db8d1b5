"""py_func / numpy_function / py_function: a Python callable the executor runs, never one read
from a file."""

import numpy as np
import pytest

import flowloom as tf


def test_stateful_py_func_runs_every_time_and_sees_fed_values():
    calls = []

    def record(v):
        calls.append(v.copy())
        return v * 2

    x = tf.placeholder(tf.float32, [2])
    y = tf.py_func(record, [x], tf.float32)
    y.set_shape([2])
    with tf.Session() as sess:
        for i in range(3):
            np.testing.assert_allclose(sess.run(y, {x: [i, i + 1]}), [2 * i, 2 * i + 2])
    assert len(calls) == 3
    assert (y * 1.0).shape.as_list() == [2]


def test_graph_def_naming_an_unregistered_callable_fails_clearly():
    with tf.Graph().as_default() as g:
        tf.py_func(lambda v: v, [tf.constant(1.0)], tf.float32)
    graph_def = g.as_graph_def()
    node = next(n for n in graph_def.node if n.op == "PyFunc")
    node.attr["token"].s = b"pyfunc_999999999"
    with tf.Graph().as_default():
        (out,) = tf.import_graph_def(graph_def, return_elements=[node.name + ":0"], name="")
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="callback pyfunc_999999999 is not found"):
                sess.run(out)


def test_graph_def_round_trip_in_the_same_process_runs_the_registered_callable():
    with tf.Graph().as_default() as g:
        tf.py_func(lambda v: v + 1.0, [tf.constant(np.float32(1.0))], tf.float32, name="f")
    with tf.Graph().as_default():
        (out,) = tf.import_graph_def(g.as_graph_def(), return_elements=["f:0"], name="")
        with tf.Session() as sess:
            assert sess.run(out) == 2.0


def test_py_func_has_no_gradient():
    x = tf.constant(1.0)
    y = tf.py_func(lambda v: v, [x], tf.float32)
    assert tf.gradients(y, x) == [None]
