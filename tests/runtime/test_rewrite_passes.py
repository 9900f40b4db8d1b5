"""common_subgraph_elimination and remapping, each switched alone: the same values as the
plan without them, and the rewritten graph visible in RunMetadata.partition_graphs."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.proto.rewriter_config_pb2 import RewriterConfig
from flowloom.runtime import rewrites

OFF = RewriterConfig.OFF

# Under FLOWLOOM_REWRITES=0 (`dev.py test --rewrites off`) no rewrite acts: tests of what a
# rewrite did are skipped there; tests that compare values run in both modes.
acts = pytest.mark.skipif(rewrites.ALL_OFF, reason="FLOWLOOM_REWRITES=0: no rewrite acts")


def _config(**toggles):
    return tf.ConfigProto(graph_options=tf.GraphOptions(
        rewrite_options=RewriterConfig(**toggles)))


def _run(config, fetches, feed=None, init=False):
    with tf.Session(config=config) as sess:
        if init:
            sess.run(tf.global_variables_initializer())
        md = tf.RunMetadata()
        values = sess.run(fetches, feed, options=tf.RunOptions(output_partition_graphs=True),
                          run_metadata=md)
        again = sess.run(fetches, feed)  # the compiled plan, too
        nodes = {n.name: n.op for g in md.partition_graphs for n in g.node}
        plan = list(sess._plan_cache.values())[-1]
    return values, again, nodes, plan


def _same(a, b):
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


@acts
def test_cse_runs_a_repeated_computation_once():
    x = tf.placeholder(tf.float32, [3])
    a = tf.sin(x, name="first") * 2.0
    b = tf.sin(x, name="second") * 2.0  # the same computation
    r1 = tf.random_uniform([3])
    r2 = tf.random_uniform([3])  # stateful: two draws
    fetches = [a + b, b, r1, r2]
    feed = {x: np.array([0.1, 0.2, 0.3], np.float32)}
    # (remapping off: it would fuse each chain of elementwise ops into one op)
    on, again, nodes, plan = _run(_config(remapping=OFF), fetches, feed)
    assert "first" in nodes and "second" not in nodes
    merged = {op.name for op in plan.rewrites.merged}
    assert {"second", "mul_1"} <= merged
    assert "RandomUniform" not in {op.type for op in plan.rewrites.merged}
    assert not np.array_equal(on[2], on[3])
    off, _, nodes_off, _ = _run(_config(common_subgraph_elimination=OFF, remapping=OFF),
                                fetches, feed)
    assert "second" in nodes_off
    _same(on[:2], off[:2])
    _same(on[:2], again[:2])


def test_cse_keeps_ops_that_are_fed_or_waited_for():
    x = tf.placeholder(tf.float32, [])
    a = tf.identity(x * 3.0, name="a")
    b = tf.identity(x * 3.0, name="b")
    with tf.control_dependencies([b]):
        c = tf.identity(x, name="c")
    # (dependency_optimization off: it would drop `b`, which only feeds a control edge)
    _, _, nodes, _ = _run(_config(dependency_optimization=OFF), [a, c], {x: 1.0})
    assert "b" in nodes  # waited for through a control edge
    values, _, _, _ = _run(None, [a, b], {x: 1.0, b: 7.0})
    assert values == [3.0, 7.0]  # a fed twin is not replaced


@acts
@pytest.mark.parametrize("activation", [None, tf.nn.relu, tf.nn.relu6, tf.nn.elu])
def test_matmul_bias_activation_is_one_fused_op(activation):
    rng = np.random.RandomState(1)
    x = tf.placeholder(tf.float32, [None, 6])
    w = tf.Variable(rng.randn(6, 5).astype(np.float32) * 3)
    b = tf.Variable(rng.randn(5).astype(np.float32))
    h = tf.nn.bias_add(tf.matmul(x, w), b, name="biased")
    if activation is not None:
        h = activation(h, name="act")
    loss = tf.reduce_sum(h * h)
    grads = tf.gradients(loss, [w, b])
    fetches = [h] + grads
    feed = {x: rng.randn(4, 6).astype(np.float32)}
    on, again, nodes, plan = _run(None, fetches, feed, init=True)
    # Relu6's gradient reads its input, so there only MatMul + BiasAdd can be fused.
    fused = "act" if activation in (tf.nn.relu, tf.nn.elu) else "biased"
    assert nodes[fused] == "_FusedMatMul" and "MatMul" not in nodes
    off, _, nodes_off, _ = _run(_config(remapping=OFF), fetches, feed, init=True)
    assert nodes_off.get("MatMul") == "MatMul"
    _same(on, off)
    _same(on, again)


@acts
def test_conv_bias_relu_is_fused_and_a_fetched_intermediate_is_not():
    rng = np.random.RandomState(2)
    x = tf.constant(rng.randn(2, 6, 6, 3).astype(np.float32))
    w = tf.constant(rng.randn(3, 3, 3, 4).astype(np.float32))
    bias = tf.placeholder(tf.float32, [4])
    conv = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
    pre = tf.nn.bias_add(conv, bias)
    out = tf.nn.relu(pre, name="out")
    feed = {bias: rng.randn(4).astype(np.float32)}
    on, again, nodes, _ = _run(None, [out], feed)
    assert nodes["out"] == "_FusedConv2D"
    off, _, _, _ = _run(_config(remapping=OFF), [out], feed)
    _same(on, off)
    _same(on, again)
    both, _, nodes, _ = _run(None, [out, pre], feed)
    assert nodes["out"] == "Relu"  # `pre` is fetched: only Conv2D + BiasAdd are fused
    assert nodes[pre.op.name] == "_FusedConv2D"
    _same([both[0]], on)


def test_disable_meta_optimizer_turns_both_off():
    x = tf.placeholder(tf.float32, [2, 2])
    h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, x), [1.0, 2.0]))
    h2 = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, x), [1.0, 2.0]))
    _, _, nodes, plan = _run(_config(disable_meta_optimizer=True), h + h2,
                             {x: np.eye(2, dtype=np.float32)})
    assert "_FusedMatMul" not in nodes.values() and "MatMul_1" in nodes
    assert plan.rewrites.log == []


@acts
def test_elementwise_chain_reuses_dead_buffers_with_the_same_values():
    from flowloom.runtime import rewrite_memory

    rng = np.random.RandomState(3)
    x = tf.placeholder(tf.float32, [64, 128])
    y = tf.placeholder(tf.float32, [64, 128])
    v = tf.Variable(np.ones([64, 128], np.float32))
    chain = ((x + y) * y - x) / (y + 2.0)  # x + y and its successors die at each next op
    prod = x * y
    stored = tf.assign(v, prod)  # Assign keeps its input: that buffer is never reused
    with tf.control_dependencies([stored]):
        after = tf.add(prod, y, name="after")  # prod's last reader, after the Assign
    feed = {x: rng.randn(64, 128).astype(np.float32), y: rng.randn(64, 128).astype(np.float32)}
    # (remapping off: it would run the chain as one fused op)
    with tf.Session(config=_config(remapping=OFF)) as sess:
        sess.run(v.initializer)
        on = [sess.run([chain, after], feed) for _ in range(3)]
        plan = list(sess._plan_cache.values())[-1]
        in_place = [s for s in plan.steps if getattr(s.fn, "func", None) in (
            rewrite_memory._into_first, rewrite_memory._into_second)]
        assert len(in_place) >= 2
        assert "after" not in {s.op.name for s in in_place}
        np.testing.assert_array_equal(sess.run(v), feed[x] * feed[y])
    config = _config(memory_optimization=RewriterConfig.NO_MEM_OPT)
    with tf.Session(config=config) as sess:
        sess.run(v.initializer)
        off = sess.run([chain, after], feed)
    for got in on:
        _same(got, off)


@acts
def test_an_add_of_a_bias_vector_fuses_as_bias_add():
    rng = np.random.RandomState(6)
    x = tf.placeholder(tf.float32, [None, 6])
    w = tf.constant(rng.randn(6, 5).astype(np.float32))
    b = tf.constant(rng.randn(5).astype(np.float32))
    row = tf.constant(rng.randn(1, 5).astype(np.float32))
    h = tf.nn.relu(tf.matmul(x, w) + b, name="h")
    g = tf.add(b, tf.matmul(x, w * 2.0), name="g")  # the bias first
    k = tf.nn.relu(tf.matmul(x, w * 3.0) + row, name="k")  # a [1, 5] operand: not a bias
    feed = {x: rng.randn(4, 6).astype(np.float32)}
    on, again, nodes, _ = _run(None, [h, g, k], feed)
    assert nodes["h"] == "_FusedMatMul" and nodes["g"] == "_FusedMatMul"
    assert "MatMul_2" in nodes
    off, _, _, _ = _run(_config(remapping=OFF), [h, g, k], feed)
    _same(on, off)
    _same(again, off)


@acts
def test_relu_grad_writes_into_the_dead_incoming_gradient_with_the_same_values():
    from flowloom.ops.nn import nn_ops

    rng = np.random.RandomState(4)
    f = tf.placeholder(tf.float32, [64, 128])
    a = tf.placeholder(tf.float32, [64, 128])
    relu = tf.nn.relu(f)
    g0 = a * 3.0  # a ufunc result that dies at the ReluGrad
    grad, = tf.gradients(relu, f, grad_ys=g0)
    g1 = a * 5.0
    seen = tf.identity(g1)  # an alias of g1 read after the ReluGrad: g1 stays untouched
    with tf.control_dependencies([seen]):
        grad1, = tf.gradients(relu, f, grad_ys=g1)
    later = seen + 1.0
    x = rng.randn(64, 128).astype(np.float32)
    x[0, :4] = [0.0, -0.0, np.nan, np.inf]
    feed = {f: x, a: rng.randn(64, 128).astype(np.float32)}
    with tf.Session(config=_config(remapping=OFF)) as sess:
        on = [sess.run([grad, grad1, later], feed) for _ in range(3)]
        plan = list(sess._plan_cache.values())[-1]
        into = [s.op.name for s in plan.steps if getattr(s.fn, "func", None) is
                nn_ops._relu_grad_into]
    assert into == [grad.op.name]
    with tf.Session(config=_config(memory_optimization=RewriterConfig.NO_MEM_OPT)) as sess:
        off = sess.run([grad, grad1, later], feed)
    for got in on:
        _same(got, off)
    np.testing.assert_array_equal(off[0], feed[a] * 3.0 * (x > 0))


def test_relu_grad_into_computes_the_kernel_values():
    from flowloom.ops.nn import nn_ops

    rng = np.random.RandomState(5)
    for shape in [(3, 70000), (1, 5), (7,)]:
        g = rng.randn(*shape).astype(np.float32)
        f = rng.randn(*shape).astype(np.float32)
        want = nn_ops._relu_grad(np, g, f)
        buf = g.copy()
        got = nn_ops._relu_grad_into(np, buf, f)
        assert got is buf
        np.testing.assert_array_equal(got, want)
    g = rng.randn(4, 3).astype(np.float32)
    f = rng.randn(3).astype(np.float32)  # broadcast: a new array, as the kernel
    np.testing.assert_array_equal(nn_ops._relu_grad_into(np, g, f), nn_ops._relu_grad(np, g, f))
