"""memory_optimization's schedule pass (runtime/rewrite_schedule.py): Identities and variable
updates run as soon as they may, with the values of the plan without the pass."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.proto.rewriter_config_pb2 import RewriterConfig
from flowloom.runtime import rewrites

acts = pytest.mark.skipif(rewrites.ALL_OFF, reason="FLOWLOOM_REWRITES=0: no rewrite acts")
NO_MEM_OPT = tf.ConfigProto(graph_options=tf.GraphOptions(
    rewrite_options=RewriterConfig(memory_optimization=RewriterConfig.NO_MEM_OPT)))


def _train(config, steps=3):
    tf.reset_default_graph()
    rng = np.random.RandomState(0)
    x = tf.constant(rng.randn(8, 16).astype(np.float32))
    h = x
    for i in range(3):
        w = tf.Variable(rng.randn(16, 16).astype(np.float32) * 0.3, name=f"w{i}")
        h = tf.nn.relu(tf.matmul(h, w))
    loss = tf.reduce_sum(h * h)
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        got = [sess.run([loss, train])[0] for _ in range(steps)]
        got.append(sess.run(tf.trainable_variables()))
        plan = list(sess._plan_cache.values())[-2]
    return got, plan


@acts
def test_updates_run_when_their_gradient_is_ready_with_the_same_values():
    on, plan = _train(None)
    off, plain = _train(NO_MEM_OPT)
    for a, b in zip(on[:3], off[:3]):
        assert a == b
    for a, b in zip(on[3], off[3]):
        np.testing.assert_array_equal(a, b)
    names = [s.op.name for s in plan.steps]
    plain_names = [s.op.name for s in plain.steps]
    assert sorted(names) == sorted(plain_names)
    update = "GradientDescent/update_w2/ApplyGradientDescent"  # the last layer's weights
    first_grad = next(n for n in names if n.startswith("gradients/MatMul_grad"))
    assert names.index(update) < names.index(first_grad)  # before the first layer's grads
    assert plain_names.index(update) > plain_names.index(first_grad)


@acts
def test_an_update_does_not_move_across_an_earlier_read_of_its_variable():
    v = tf.Variable(np.ones([4], np.float32))
    p = tf.placeholder(tf.float32, [4])
    step = p * 2.0
    early = step + 1.0  # fetched first: `step` is computed before the read below
    chain = p
    for _ in range(3):
        chain = tf.matmul(tf.reshape(chain, [1, 4]), tf.eye(4) * 1.5)
    read = tf.multiply(v.value(), tf.reshape(chain, [4]), name="late_read")
    update = tf.assign_sub(v, step, name="update")  # ready as soon as `step` is
    feed = {p: np.arange(4, dtype=np.float32)}
    with tf.Session() as sess:
        sess.run(v.initializer)
        got = [sess.run([early, read, update], feed) for _ in range(3)]
        names = [s.op.name for s in list(sess._plan_cache.values())[-1].steps]
    assert names.index("late_read") < names.index("update")
    want = np.ones(4, np.float32)
    for _, r, u in got:  # each run reads the value before its own update
        np.testing.assert_array_equal(r, want * (feed[p] * 1.5 ** 3))
        want = want - feed[p] * 2.0
        np.testing.assert_array_equal(u, want)


@acts
def test_updates_keep_their_order_with_other_stateful_ops():
    p = tf.placeholder(tf.float32, [])
    step = tf.multiply(p, 2.0, name="step")
    v = tf.Variable(0.0)
    # (A stateful op that cannot block: ops that may wait, as a queue's enqueue, run after
    # the rest of their run, runtime/pruning.py.)
    draw = tf.random_uniform([], name="draw")
    upd = tf.assign_add(v, step, name="update")  # ready right after `step` and `v`
    with tf.Session() as sess:
        sess.run(v.initializer)
        for _ in range(3):
            sess.run([step, v.value(), draw, upd.op], {p: 1.0})
        names = [s.op.name for s in list(sess._plan_cache.values())[-1].steps]
        assert names.index(draw.op.name) < names.index("update")
        assert sess.run(v) == 6.0

