"""Loop-free control-flow plans run as straight steps (runtime/dataflow_straight.py): the same
values, dead fetches, control edges and stateful effects as the dataflow executor."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.control_flow import control_flow_ops
from flowloom.runtime import dataflow_plan


def _straight_of(sess):
    plans = [p.external for p in sess._plan_cache.values() if p.external is not None]
    assert plans
    return plans[-1].straight


def _program():
    x = tf.placeholder(tf.float32, [3])
    p = tf.placeholder(tf.bool, [])
    v = tf.Variable(0.0)
    counter = tf.Variable(0)

    def true_fn():
        with tf.control_dependencies([tf.assign_add(counter, 1)]):
            return tf.reduce_sum(x) * 2.0 + tf.random_uniform([], seed=3)

    def false_fn():
        inner = tf.cond(tf.reduce_sum(x) > 0, lambda: x[0] - 1.0, lambda: tf.constant(-5.0))
        return inner + tf.assign_add(v, 0.5)

    out = tf.cond(p, true_fn, false_fn)
    return x, p, out, v, counter


def _runs(straight, monkeypatch):
    monkeypatch.setattr(dataflow_plan, "STRAIGHT", straight)
    with tf.Graph().as_default():
        x, p, out, v, counter = _program()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = []
            for xs, ps in [([1, 2, 3], True), ([1, 2, 3], False), ([-1, -2, 0], False),
                           ([0, 0, 1], True), ([-4, 1, 1], False)]:
                got.append(sess.run(out, {x: np.array(xs, np.float32), p: ps}))
            got.append(sess.run([v, counter]))
            kind = _straight_of(sess)
    return got, kind


def test_conds_equal_the_dataflow_executor(monkeypatch):
    fast, kind = _runs(True, monkeypatch)
    slow, off = _runs(False, monkeypatch)
    assert kind and off is False
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object))


@pytest.mark.parametrize("straight", [True, False])
def test_dead_fetch_is_an_error(monkeypatch, straight):
    monkeypatch.setattr(dataflow_plan, "STRAIGHT", straight)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [])
        f, t = control_flow_ops.switch(tf.constant([1.0, 2.0]), p)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(t, {p: True}), [1.0, 2.0])
            with pytest.raises(tf.errors.InvalidArgumentError, match="Retval.0. does not have"):
                sess.run(t, {p: False})
            assert bool(_straight_of(sess)) is straight


def test_merge_of_two_live_inputs_stays_on_the_dataflow_executor():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [])
        out, index = control_flow_ops.merge([a + 1.0, a * 3.0])
        with tf.Session() as sess:
            got = sess.run([out, index], {a: 2.0})
            assert _straight_of(sess) is False
    assert (got[0], got[1]) in ((3.0, 0), (6.0, 1))


@pytest.mark.parametrize("straight", [True, False])
def test_a_dead_control_input_kills_its_op_but_not_a_merge(monkeypatch, straight):
    monkeypatch.setattr(dataflow_plan, "STRAIGHT", straight)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [])
        v = tf.Variable(0)
        f, t = control_flow_ops.switch(tf.constant(1), p)
        taken = tf.identity(t)  # dead when p is False
        with tf.control_dependencies([taken]):
            bump = tf.assign_add(v, 10)
        with tf.control_dependencies([t]):  # the Switch node itself is live either way
            always = tf.assign_add(v, 1)
        with tf.control_dependencies([taken]):
            out, _ = control_flow_ops.merge([f, taken])
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(out, {p: False}) == 1
            assert sess.run(out, {p: True}) == 1
            sess.run(tf.group(bump), {p: False})
            assert sess.run(v) == 0
            sess.run(tf.group(bump), {p: True})
            assert sess.run(v) == 10
            sess.run(tf.group(always), {p: False})
            assert sess.run(v) == 11
            assert bool(_straight_of(sess)) is straight


def _failing_run(straight, monkeypatch):
    monkeypatch.setattr(dataflow_plan, "STRAIGHT", straight)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [])
        x = tf.placeholder(tf.float32, [None])
        out = tf.cond(p, lambda: tf.reshape(x, [2, 2], name="bad_reshape"), lambda: x[:1])
        with tf.Session() as sess:
            assert sess.run(out, {p: False, x: [1.0, 2.0, 3.0]}).tolist() == [1.0]
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(out, {p: True, x: [1.0, 2.0, 3.0]})
            assert bool(_straight_of(sess)) is straight
    return info.value


def test_a_failing_kernel_names_its_op_as_the_dataflow_executor_does(monkeypatch):
    fast = _failing_run(True, monkeypatch)
    slow = _failing_run(False, monkeypatch)
    assert fast.op is not None and fast.op.name == slow.op.name
    assert "bad_reshape" in fast.op.name
    assert str(fast).split("\n")[0] == str(slow).split("\n")[0]


@pytest.mark.parametrize("compiled", [True, False])
def test_a_folded_op_as_a_control_input(monkeypatch, compiled):
    # A constant-folded op never runs as a step, so it is never dead; ops that wait for it
    # through a control edge run (a public TF1 program, morvan 501_dropout, has this shape).
    from flowloom.runtime import compiled_plan

    if not compiled:
        monkeypatch.setattr(compiled_plan, "MAX_COMPILED_STEPS", 0)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [])
        x = tf.placeholder(tf.float32, [])
        c = tf.constant(1.0) * 2.0
        with tf.control_dependencies([c]):
            y = tf.identity(x) + 1.0
        z = tf.cond(p, lambda: y * 2.0, lambda: y - 1.0)
        with tf.Session() as sess:
            for _ in range(2):
                assert sess.run(z, {p: True, x: 1.0}) == 4.0
                assert sess.run(z, {p: False, x: 1.0}) == 1.0
            assert _straight_of(sess) is not None
