"""Compiled fast-path plans (runtime/compiled_plan.py): the same values and the same errors as
the interpreted first run."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.runtime import compiled_plan, rewrites


def _plan(sess):
    return list(sess._plan_cache.values())[-1]  # the plan of the latest signature


def test_compiled_runs_give_the_interpreted_values():
    x = tf.placeholder(tf.float32, [None])
    v = tf.Variable([1.0, 2.0, 3.0])
    a, b, c = tf.split(x * 2.0, 3)  # a multi-output step
    k = tf.constant(5.0) * 2.0  # folded when the plan is compiled
    total = tf.add_n([a, b, c]) + v + k
    fetches = [total, x, k, a, total]
    with tf.Session() as sess:
        sess.run(v.initializer)
        feed = {x: np.array([1.0, 2.0, 3.0], np.float32)}
        first = sess.run(fetches, feed)
        # the first run is interpreted (compiled at once under FLOWLOOM_REWRITES=all)
        assert _plan(sess).runner is None or rewrites.COMPILE_AT_RUN == 1
        later = [sess.run(fetches, feed) for _ in range(3)]
        assert isinstance(_plan(sess).runner, compiled_plan.CompiledRunner)
        for got in later:
            for g, f in zip(got, first):
                np.testing.assert_array_equal(g, f)
        np.testing.assert_array_equal(first[0], [23.0, 24.0, 25.0])


def test_targets_only_and_variable_updates_run_each_time():
    v = tf.Variable(0.0)
    inc = tf.assign_add(v, 1.0)
    with tf.Session() as sess:
        sess.run(v.initializer)
        for _ in range(4):
            sess.run(inc.op)
        assert sess.run(v) == 4.0


def test_a_failing_kernel_reports_the_same_error_compiled():
    x = tf.placeholder(tf.float32, [None])
    y = tf.placeholder(tf.float32, [None])
    z = tf.add(tf.add(x, 1.0), y, name="the_sum")
    with tf.Session() as sess:
        ok = {x: np.ones(2, np.float32), y: np.ones(2, np.float32)}
        bad = {x: np.ones(2, np.float32), y: np.ones(3, np.float32)}
        messages = []
        for feed in (bad, ok, ok, bad):
            try:
                sess.run(z, feed)
            except tf.errors.InvalidArgumentError as e:
                messages.append(e.message)
        assert isinstance(_plan(sess).runner, compiled_plan.CompiledRunner)
        assert len(messages) == 2 and messages[0] == messages[1]
        assert "Incompatible shapes: [2] vs. [3]" in messages[1]
        assert "the_sum" in messages[1] and "input shapes: [[2], [3]]" in messages[1]


def test_an_uninitialized_variable_fails_the_same_way_compiled():
    v = tf.Variable(1.0, name="never_set")
    y = v * 2.0
    with tf.Session() as sess:
        errs = []
        for _ in range(3):
            with pytest.raises(tf.errors.FailedPreconditionError) as info:
                sess.run(y)
            errs.append(info.value.message)
        assert isinstance(_plan(sess).runner, compiled_plan.CompiledRunner)
        assert errs[0] == errs[2] and "never_set" in errs[2]
        sess.run(v.initializer)
        assert sess.run(y) == 2.0


def test_same_dtype_arithmetic_binds_the_ufunc_itself():
    x = tf.placeholder(tf.float32, [])
    y = tf.add(x, 1.0)
    i = tf.placeholder(tf.int32, [])
    j = tf.multiply(i, 3)
    with tf.Session() as sess:
        assert sess.run([y, j], {x: 1.5, i: 4}) == [2.5, 12]
        fns = [s.fn for s in _plan(sess).steps]
        assert np.add in fns and np.multiply in fns
        r = sess.run(y, {x: 1.5})
        assert r.dtype == np.float32


def test_source_holds_generated_names_only():
    # Op names never reach the compiled source: a name that is Python code stays a name.
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.add(x, 1.0, name="__import__")
    with tf.Session() as sess:
        for _ in range(3):
            assert sess.run(y, {x: 1.0}) == 2.0
        runner = _plan(sess).runner
        assert all(n.startswith(("_", "f", "k", "o", "v", "d", "feeds"))
                   for n in runner.code.co_varnames + runner.code.co_freevars)
