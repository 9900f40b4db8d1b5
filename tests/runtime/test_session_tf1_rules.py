"""Session behaviour TF 1.15 has (its client/session_test.py checks the same): argument
checks, default-session nesting, InteractiveSession, callables with options, fetch and feed
rules, op `_original_op`."""

import warnings

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import errors
from flowloom.framework.session_stack import _default_session_stack
from flowloom.proto import config_pb2
from flowloom.runtime import session as session_lib


def test_argument_checks_and_targets():
    with pytest.raises(TypeError, match="target must be a string"):
        tf.Session(37)
    with pytest.raises(TypeError, match="config must be a tf.ConfigProto"):
        tf.Session(config=37)
    with pytest.raises(TypeError, match="graph must be a tf.Graph"):
        tf.Session(graph=37)
    with pytest.raises(errors.NotFoundError, match="No session factory registered"):
        tf.Session("INVALID_TARGET")
    with tf.Graph().as_default(), tf.Session() as sess:
        for empty in ([], (), {}):
            with pytest.raises(RuntimeError, match="The Session graph is empty."):
                sess.run(empty)


def test_default_session_nesting_and_reentry():
    sess = tf.Session(graph=tf.Graph())
    with pytest.raises(RuntimeError, match="not re-entrant"):
        with sess:
            with sess:
                pass
    assert _default_session_stack.get_default() is None
    s1, s2 = tf.Session(graph=tf.Graph()), tf.Session(graph=tf.Graph())
    c1, c2 = s1.as_default(), s2.as_default()
    c1.__enter__()
    c2.__enter__()
    try:
        with pytest.raises(AssertionError, match="Nesting violated"):
            c1.__exit__(None, None, None)
    finally:
        _default_session_stack.reset()
    assert tf.get_default_session() is None


def test_interactive_sessions_warn_and_place_the_pruned_graph():
    tf.InteractiveSession._active_session_count = 0
    with tf.Graph().as_default():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sess = tf.InteractiveSession()
            assert not w
            sess2 = tf.InteractiveSession()
            assert len(w) == 1 and "An interactive session is already active" in str(w[0].message)
        sess2.close()
        with tf.device("/device:GPU:0"):
            a = tf.constant(1.0, shape=[1, 2])
        b = tf.constant(2.0, shape=[1, 2])
        assert b.eval().tolist() == [[2.0, 2.0]]  # `a` is never placed
        with pytest.raises(errors.InvalidArgumentError):
            a.eval()
        sess.close()
    assert tf.InteractiveSession._active_session_count == 0


def test_interactive_session_runs_fed_placeholders():
    # The pruned placement of an InteractiveSession places the fed ops too (a public TF1
    # program, hunkim lab-09-5, feeds placeholders into an InteractiveSession).
    tf.InteractiveSession._active_session_count = 0
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape=[None, 1])
        w = tf.Variable([[2.0]])
        y = tf.matmul(x, w)
        sess = tf.InteractiveSession()
        sess.run(tf.global_variables_initializer())
        assert sess.run(y, feed_dict={x: [[3.0]]}).tolist() == [[6.0]]
        assert sess.run([y, w], {x: [[1.0]]})[0].tolist() == [[2.0]]
        sess.close()


def test_callables_take_run_options():
    with tf.Graph().as_default(), tf.Session() as sess:
        ph = tf.placeholder(tf.float32)
        a = ph + 1.0
        runner = sess.make_callable(a, [ph], accept_options=True)
        meta = config_pb2.RunMetadata()
        out = runner(1.0, options=config_pb2.RunOptions(
            trace_level=config_pb2.RunOptions.FULL_TRACE), run_metadata=meta)
        assert out == 2.0 and len(meta.step_stats.dev_stats) > 0
        opts = config_pb2.CallableOptions(feed=[ph.name], fetch=[a.name])
        fn = sess._make_callable_from_options(opts)
        assert fn(np.array(1.0, dtype=np.float32)) == [2.0]
        # A run without options replaces what the metadata held.
        sess.run(a, {ph: 1.0}, run_metadata=meta)
        assert len(meta.step_stats.dev_stats) == 0


def test_fetch_and_feed_rules():
    attr = pytest.importorskip("attr")  # attrs classes (hypothesis brings the package)

    @attr.s
    class Pair:
        x = attr.ib()
        y = attr.ib()

    with tf.Graph().as_default(), tf.Session() as sess:
        e = tf.constant(44.0, name=b"e")
        assert e.name == "e:0" and sess.run(b"e:0") == 44.0
        got = sess.run(Pair(tf.constant(1), Pair(tf.constant(2), tf.constant(3))))
        assert got == Pair(1, Pair(2, 3))
        s = tf.placeholder(tf.string, shape=[2])
        out = sess.run(tf.identity(s), {s: np.array(["\u26a3 x", "y"], dtype=object)})
        assert out.tolist() == ["\u26a3 x".encode(), b"y"]
        with pytest.raises(TypeError, match=r"Type of feed value 1 with type <class 'int'> "
                                            r"is not"):
            sess.run(s, {s: 1})

    class Squared:
        def __init__(self, t):
            self.sq = t * t

    fetch = (lambda v: ([v.sq], lambda vals: vals[0]))
    session_lib.register_session_run_conversion_functions(Squared, fetch)
    with pytest.raises(ValueError, match="has already been registered"):
        session_lib.register_session_run_conversion_functions(Squared, fetch)


def test_device_attributes_and_original_op():
    attrs = session_lib._DeviceAttributes("/job:worker/replica:0/task:3/cpu:1", "TYPE", 1337,
                                          1000000)
    assert attrs.name == "/job:worker/replica:0/task:3/device:CPU:1"
    assert str(attrs).startswith("_DeviceAttributes")
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(0.0)
        with g._original_op(a.op):
            b = tf.identity(a)
        c = tf.identity(b)
    assert b.op._original_op is a.op and c.op._original_op is None


def test_infer_shapes_adds_output_shapes_to_graph_def():
    config = config_pb2.ConfigProto(graph_options=config_pb2.GraphOptions(infer_shapes=True))
    with tf.Graph().as_default():
        tf.constant([[1, 2]])
        assert "_output_shapes" in tf.Session(config=config).graph_def.node[0].attr
        assert "_output_shapes" not in tf.Session().graph_def.node[0].attr


def test_partial_run_runs_each_op_once():
    with tf.Graph().as_default(), tf.Session() as sess:
        a, b, c = (tf.placeholder(tf.float32, shape=[]) for _ in range(3))
        r1 = a + b
        r2 = r1 * c
        h = sess.partial_run_setup([r1, r2], [a, b, c])
        assert sess.partial_run(h, r1, {a: 1, b: 2}) == 3.0
        assert sess.partial_run(h, r2, {c: 17}) == 51.0
        v = tf.Variable(0.0)
        with tf.control_dependencies([tf.assign_add(v, 1.0)]):
            out1 = tf.identity(a)
        out2 = out1 * b
        sess.run(v.initializer)
        h = sess.partial_run_setup([out1, out2], [a, b])
        assert sess.partial_run(h, out1, {a: 3.0}) == 3.0
        assert sess.partial_run(h, out2, {b: 2.0}) == 6.0
        assert sess.run(v) == 1.0  # the assign ran once in the whole step
        h = sess.partial_run_setup([r1, r2], [a, b])
        with pytest.raises(errors.InvalidArgumentError, match="not specified in partial_run"):
            sess.partial_run(h, r1, {a: 1, c: 2})
        sess.partial_run(h, r1, {a: 1, b: 2})
        with pytest.raises(errors.InvalidArgumentError, match="already been fetched"):
            sess.partial_run(h, r1)
        with pytest.raises(errors.InvalidArgumentError) as e:
            sess.partial_run("foo", r1, {a: 1, b: 2})
        assert e.value.op is None and e.value.node_def is None
