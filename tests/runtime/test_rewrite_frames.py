"""Rewrites inside while-loop bodies and cond branches (runtime/rewrite_frames.py): the
rewritten dataflow plan gives the values, gradients and deadness of the unrewritten one."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.proto.rewriter_config_pb2 import RewriterConfig
from flowloom.runtime import rewrites

acts = pytest.mark.skipif(rewrites.ALL_OFF, reason="FLOWLOOM_REWRITES=0: no rewrite acts")
OFF = tf.ConfigProto(graph_options=tf.GraphOptions(
    rewrite_options=RewriterConfig(disable_meta_optimizer=True)))


def _dataflow_plan(sess):
    plans = [p.external for p in sess._plan_cache.values() if p.external is not None]
    return plans[-1]


def _run(config, fetches, feed=None, runs=3):
    # A deadline turns a loop that would never end (a wrong deadness) into an error.
    limit = tf.RunOptions(timeout_in_ms=30000)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        values = [sess.run(fetches, feed, options=limit) for _ in range(runs)]
        traced = sess.run(fetches, feed, options=tf.RunOptions(
            trace_level=tf.RunOptions.FULL_TRACE, timeout_in_ms=30000),
            run_metadata=tf.RunMetadata())
        plan = _dataflow_plan(sess)
    return values + [traced], plan


def _same(on, off):
    for values in on:
        for a, b in zip(values, off[0]):
            a, b = np.asarray(a), np.asarray(b)
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)


def _rnn_like_loop(steps=4):
    """A loop whose body has MatMul + BiasAdd + Relu, an elementwise chain, identities and
    a tf.tuple (NoOps), and its gradients."""
    rng = np.random.RandomState(0)
    x = tf.placeholder(tf.float32, [steps, 3, 5])
    w = tf.Variable(rng.randn(5 + 6, 6).astype(np.float32) * 0.4)
    b = tf.Variable(rng.randn(6).astype(np.float32) * 0.1)
    xs = tf.TensorArray(tf.float32, steps).unstack(x)

    def body(t, h, acc):
        z = tf.nn.relu(tf.nn.bias_add(tf.matmul(tf.concat([xs.read(t), h], 1), w), b))
        gate = tf.sigmoid(z * 0.5 + 0.25)
        h2, g2 = tf.tuple([tf.identity(tf.tanh(z) * gate), gate])
        return t + 1, h2, acc + tf.reduce_sum(g2)

    _, h, acc = tf.while_loop(lambda t, h, acc: t < steps, body,
                              [tf.constant(0), tf.zeros([3, 6]), tf.constant(0.0)])
    loss = tf.reduce_sum(tf.square(h)) + acc
    grads = tf.gradients(loss, [w, b, x])
    feed = {x: rng.randn(steps, 3, 5).astype(np.float32)}
    return [loss] + grads, feed


def test_a_loop_with_fusable_ops_and_its_gradients_keep_their_values():
    fetches, feed = _rnn_like_loop()
    on, _ = _run(None, fetches, feed)
    off, _ = _run(OFF, fetches, feed)
    _same(on, off)


@acts
def test_ops_inside_the_loop_bodies_are_rewritten():
    fetches, feed = _rnn_like_loop()
    _, plan = _run(None, fetches, feed, runs=1)
    log = " | ".join(what for _, what in plan.rewrites.log)
    types = {n.op._type for n in plan.nodes}
    names = {n.op._name for n in plan.nodes if n.op._type == "_FusedMatMul"}
    assert any(name.startswith("while/") for name in names), names
    assert "_FusedElementwise" in types
    assert "NoOp(s) removed" in log and "Identity op(s) removed" in log
    off, plan_off = _run(OFF, fetches, feed, runs=1)
    assert len(plan.nodes) < len(plan_off.nodes)
    assert "NoOp" not in types and "NoOp" in {n.op._type for n in plan_off.nodes}


def test_a_loop_invariant_reshaped_to_its_own_shape_stays_dead_after_the_last_iteration():
    # Dropping the Reshape would let the loop-invariant Enter reach NextIteration live in the
    # iteration where the predicate is false (the shape Const waits for the pivot, so the
    # Reshape is dead there): the rewrites keep the Reshape inside frames.
    inv = tf.placeholder(tf.float32, [2, 2])
    n = tf.placeholder(tf.int32, [])
    _, acc = tf.while_loop(lambda i, a: i < n,
                           lambda i, a: (i + 1, tf.reshape(inv, [2, 2]) + 0.0 * a),
                           [tf.constant(0), tf.zeros([2, 2])])
    _, only = tf.while_loop(lambda i, a: i < n,
                            lambda i, a: (i + 1, tf.cast(tf.reshape(inv, [2, 2]), tf.float32)),
                            [tf.constant(0), tf.zeros([2, 2])])
    value = np.arange(4, dtype=np.float32).reshape(2, 2)
    for steps in (0, 1, 3):
        feed = {inv: value, n: steps}
        on, _ = _run(None, [acc, only], feed, runs=2)
        off, _ = _run(OFF, [acc, only], feed, runs=1)
        _same(on, off)
        want = value if steps else np.zeros((2, 2), np.float32)
        np.testing.assert_array_equal(on[0][1], want)


def test_noops_and_identities_in_cond_branches_inside_a_loop_keep_deadness():
    x = tf.placeholder(tf.float32, [3])

    def body(i, acc):
        def true_fn():
            a, b = tf.tuple([tf.identity(acc * 2.0), tf.identity(acc + 1.0)])
            with tf.control_dependencies([tf.group(a, b)]):
                return tf.identity(a - b)

        def false_fn():
            with tf.control_dependencies([tf.no_op()]):
                return tf.identity(acc * 0.5)
        return i + 1, tf.cond(tf.equal(i % 2, 0), true_fn, false_fn) + x

    _, out = tf.while_loop(lambda i, acc: i < 5, body, [tf.constant(0), tf.ones([3])])
    grad = tf.gradients(tf.reduce_sum(out), x)[0]
    feed = {x: np.array([0.5, -1.0, 2.0], np.float32)}
    on, _ = _run(None, [out, grad], feed)
    off, _ = _run(OFF, [out, grad], feed)
    _same(on, off)


def test_dynamic_rnn_lstm_training_values_are_unchanged():
    rng = np.random.RandomState(3)
    x = tf.placeholder(tf.float32, [2, 5, 4])
    tf.set_random_seed(1)
    cell = tf.nn.rnn_cell.BasicLSTMCell(6)
    outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(outputs)) + tf.reduce_mean(state.c)
    opt = tf.train.AdamOptimizer(0.01)
    grads_and_vars = opt.compute_gradients(loss)
    train = opt.apply_gradients(grads_and_vars)
    feed = {x: rng.randn(2, 5, 4).astype(np.float32)}
    fetches = [loss] + [g for g, _ in grads_and_vars]

    def steps(config):
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            out = []
            for _ in range(3):
                out.append(sess.run(fetches, feed))
                sess.run(train, feed)
            return out
    for a, b in zip(steps(None), steps(OFF)):
        _same([a], [b])


@acts
def test_a_dynamic_rnn_gradient_loop_compiles_once_its_noops_are_rerouted():
    # The gradient loop's tf.tuple waits for a loop variable's Switch (through a NoOp, which
    # the rewrites reroute): the waiting Identity also reads the Switch's true side, so the
    # edge adds nothing and the frame compiles (runtime/compiled_loop.py).
    tf.set_random_seed(2)
    x = tf.placeholder(tf.float32, [2, 4, 3])
    outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), x, dtype=tf.float32)
    grads = tf.gradients(tf.reduce_sum(outputs), tf.trainable_variables() + [x],
                         gate_gradients=True)  # as optimizers ask: tf.tuple per op
    feed = {x: np.random.RandomState(4).randn(2, 4, 3).astype(np.float32)}

    def compiled_frames(config):
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run(grads, feed)
            plan = _dataflow_plan(sess)
        return values, {n.compiled_loop.frame_name for n in plan.nodes if n.compiled_loop}
    on, frames_on = compiled_frames(None)
    off, _ = compiled_frames(OFF)
    _same([on], [off])
    assert any(f.startswith("gradients/") for f in frames_on), frames_on


@acts
def test_a_control_flow_plan_carries_what_the_rewrites_did():
    fetches, feed = _rnn_like_loop()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(fetches, feed)
        plan = [p for p in sess._plan_cache.values() if p.external is not None][-1]
    assert plan.rewrites is plan.external.rewrites
    assert any("(control flow)" in what for _, what in plan.rewrites.log)
