"""Compiled while loops (runtime/compiled_loop.py): the values, gradients and errors of the
dataflow executor, which traced runs still use."""

import numpy as np
import pytest

import flowloom as tf

_TRACE = dict(options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
              run_metadata=None)


def _both(sess, fetches, feed=None):
    """(compiled run's values, dataflow run's values) of the same fetches."""
    compiled = sess.run(fetches, feed)
    traced = sess.run(fetches, feed, options=_TRACE["options"], run_metadata=tf.RunMetadata())
    return compiled, traced


def _compiled_frames(sess):
    frames = set()
    for plan in sess._plan_cache.values():
        for node in getattr(plan.external, "nodes", ()):
            if node.compiled_loop is not None:
                frames.add(node.compiled_loop.frame_name)
    return frames


def _assert_same(a, b):
    if isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    else:
        np.testing.assert_array_equal(a, b)


def test_counting_loop_is_compiled_and_equal():
    n = tf.placeholder(tf.int32, [])
    i, s = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + tf.cast(i, tf.float32)),
                         [0, 0.0])
    with tf.Session() as sess:
        compiled, traced = _both(sess, [i, s], {n: 100})
        assert _compiled_frames(sess)
        _assert_same(compiled, traced)
        assert compiled == [100, 4950.0]
        assert sess.run(i, {n: 0}) == 0  # no iteration at all


def test_tensor_array_loops_and_their_gradients():
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    w = tf.Variable(np.full((3, 3), 0.5, np.float32))
    ys = tf.scan(lambda acc, row: tf.tanh(tf.matmul(acc[None], w)[0] + row), x,
                 initializer=tf.zeros([3]))
    mapped = tf.map_fn(lambda row: row * 2.0, x)
    loss = tf.reduce_sum(ys) + tf.reduce_sum(mapped)
    grads = tf.gradients(loss, [w, x])
    with tf.Session() as sess:
        sess.run(w.initializer)
        compiled, traced = _both(sess, [ys, mapped] + grads)
        assert _compiled_frames(sess)
        _assert_same(compiled, traced)


def test_dynamic_rnn_training_step_matches_the_dataflow_run():
    rng = np.random.RandomState(0)
    inputs = tf.constant(rng.randn(2, 5, 3).astype(np.float32))
    cell = tf.nn.rnn_cell.BasicLSTMCell(4)
    out, state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=[5, 3], dtype=tf.float32)
    loss = tf.reduce_sum(out * out)
    grads = tf.gradients(loss, tf.trainable_variables())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        compiled, traced = _both(sess, [out, state.h] + grads)
        assert len(_compiled_frames(sess)) >= 2  # the forward loop and its gradient loop
        _assert_same(compiled, traced)


def test_nested_loops_and_a_loop_in_an_untaken_branch():
    def outer_body(i, total):
        j, t = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + j), [0, total])
        return i + 1, t

    _, total = tf.while_loop(lambda i, t: i < 5, outer_body, [0, 0])
    p = tf.placeholder(tf.bool, [])
    branch = tf.cond(p, lambda: tf.while_loop(lambda k: k < 7, lambda k: k + 2, [1]),
                     lambda: tf.constant(-1))
    with tf.Session() as sess:
        compiled, traced = _both(sess, total)
        assert _compiled_frames(sess)  # the inner loop; the outer holds it, so it is not
        assert compiled == traced == sum(sum(range(i)) for i in range(5))
        assert sess.run(branch, {p: True}) == 7 and sess.run(branch, {p: False}) == -1


def test_a_failing_body_op_reports_what_the_dataflow_run_reports():
    y = tf.placeholder(tf.float32, [None])
    _, x = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.add(x, y, name="grow")),
                         [0, tf.zeros([2])])
    with tf.Session() as sess:
        errs = []
        for kwargs in ({}, dict(options=_TRACE["options"], run_metadata=tf.RunMetadata())):
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(x, {y: np.ones(3, np.float32)}, **kwargs)
            errs.append(info.value.message)
        assert _compiled_frames(sess)
        assert errs[0] == errs[1] and "grow" in errs[0] and "Incompatible shapes" in errs[0]


def test_variables_read_in_the_loop_and_stateful_bodies():
    v = tf.Variable(3.0)
    r = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a * v), [0, 1.0])
    counter = tf.Variable(0)

    def stateful_body(i):
        with tf.control_dependencies([tf.assign_add(counter, 1)]):
            return i + 1

    s = tf.while_loop(lambda i: i < 6, stateful_body, [0])  # stays in the dataflow executor
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        compiled, traced = _both(sess, r)
        _assert_same(compiled, traced)
        assert compiled[1] == 81.0
        assert sess.run(s) == 6 and sess.run(counter) == 6
