"""Gradient fusion (a stage of `remapping`): MaxPoolGrad + ReluGrad run as one
`_FusedMaxPoolGrad` step, which `memory_optimization` lets write into the dead ReLU output;
the values are the separate ops' own, bit for bit."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework.apply_op import apply_op
from flowloom.ops.nn import nn_kernels
from flowloom.proto.rewriter_config_pb2 import RewriterConfig
from flowloom.runtime import rewrites

OFF = RewriterConfig.OFF
acts = pytest.mark.skipif(rewrites.ALL_OFF, reason="FLOWLOOM_REWRITES=0: no rewrite acts")


def _config(**toggles):
    return tf.ConfigProto(graph_options=tf.GraphOptions(
        rewrite_options=RewriterConfig(**toggles)))


def _relu_grad(g, f):
    return g * (f > 0)


@pytest.mark.parametrize("ksize,strides,padding", [
    ((3, 3), (2, 2), "SAME"), ((2, 2), (2, 2), "VALID"), ((3, 3), (1, 1), "SAME"),
    ((2, 3), (3, 2), "VALID"), ((1, 1), (2, 2), "SAME")])
def test_the_kernel_masks_as_relu_grad_does_also_in_place(ksize, strides, padding):
    rng = np.random.RandomState(0)
    x = np.maximum(rng.randn(5, 9, 8, 3), 0).astype(np.float32)
    x[0, :3, :3] = 0.5  # ties: the first maximum in window order takes the gradient
    y = nn_kernels.max_pool(x, ksize, strides, padding)
    dy = rng.randn(*y.shape).astype(np.float32)
    want = _relu_grad(nn_kernels.max_pool_grad(x, y, dy, ksize, strides, padding), x)
    got = nn_kernels.max_pool_grad(x, y, dy, ksize, strides, padding, relu=True)
    np.testing.assert_array_equal(got, want)
    buf = x.copy()
    out = nn_kernels.max_pool_grad(buf, y, dy, ksize, strides, padding, relu=True, out=buf)
    assert out is buf
    np.testing.assert_array_equal(buf, want)


@np.errstate(invalid="ignore")
def test_the_kernel_keeps_nan_gradients_where_the_mask_is_zero():
    x = np.array([[[[0.0], [2.0]], [[-1.0], [1.0]]]], np.float32)
    y = nn_kernels.max_pool(x, (1, 1), (1, 1), "VALID")
    dy = np.array([[[[np.nan], [1.0]], [[np.inf], [3.0]]]], np.float32)
    want = _relu_grad(nn_kernels.max_pool_grad(x, y, dy, (1, 1), (1, 1), "VALID"), x)
    buf = x.copy()
    got = nn_kernels.max_pool_grad(buf, y, dy, (1, 1), (1, 1), "VALID", relu=True, out=buf)
    np.testing.assert_array_equal(got, want)  # nan * 0 stays nan, as in ReluGrad
    assert np.isnan(got[0, 0, 0, 0]) and np.isnan(got[0, 1, 0, 0])


def _conv_pool_net(batch=4, size=8, channels=16):
    rng = np.random.RandomState(1)
    x = tf.placeholder(tf.float32, [batch, size, size, 3])
    w = tf.Variable(rng.randn(3, 3, 3, channels).astype(np.float32) * 0.3)
    b = tf.Variable(rng.randn(channels).astype(np.float32) * 0.1)
    r = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), b))
    p = tf.nn.max_pool(r, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    loss = tf.reduce_sum(tf.square(p))
    gw, gb, gx = tf.gradients(loss, [w, b, x])
    feed = {x: rng.randn(batch, size, size, 3).astype(np.float32)}
    return x, [loss, gw, gb, gx], feed


def _run(config, fetches, feed):
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        md = tf.RunMetadata()
        first = sess.run(fetches, feed, options=tf.RunOptions(output_partition_graphs=True),
                         run_metadata=md)
        again = [sess.run(fetches, feed) for _ in range(2)]  # interpreted, then compiled
        nodes = {n.name: n.op for g in md.partition_graphs for n in g.node}
        plan = list(sess._plan_cache.values())[-1]
    return [first] + again, nodes, plan


def _assert_same(runs, reference):
    for values in runs:
        for a, b in zip(values, reference):
            assert np.asarray(a).dtype == np.asarray(b).dtype
            np.testing.assert_array_equal(a, b)


def test_a_training_step_has_the_values_of_the_separate_ops():
    _, fetches, feed = _conv_pool_net()
    on, _, _ = _run(None, fetches, feed)
    off, _, _ = _run(_config(remapping=OFF, memory_optimization=RewriterConfig.NO_MEM_OPT),
                     fetches, feed)
    _assert_same(on, off[0])


@acts
def test_the_pair_runs_as_one_step_that_writes_into_the_relu_output():
    _, fetches, feed = _conv_pool_net(batch=8, size=24)  # 8*24*24*16 floats: reused buffer
    _, nodes, plan = _run(None, fetches, feed)
    fused = [s for s in plan.steps if s.op._type == "_FusedMaxPoolGrad"]
    assert len(fused) == 1 and "MaxPoolGrad" not in nodes.values()
    assert nodes[fused[0].op._name] == "_FusedMaxPoolGrad"
    assert [o._type for o in fused[0].op.replaces] == ["MaxPoolGrad", "ReluGrad"]
    assert "_fused_max_pool_grad_into" in repr(fused[0].fn)
    assert any(r == "remapping" and "MaxPoolGrad + ReluGrad -> _FusedMaxPoolGrad" in what
               for r, what in plan.rewrites.log)
    # Without memory_optimization the fused op makes its own array.
    _, _, plan = _run(_config(memory_optimization=RewriterConfig.NO_MEM_OPT), fetches, feed)
    fused = [s for s in plan.steps if s.op._type == "_FusedMaxPoolGrad"]
    assert len(fused) == 1 and "_into" not in repr(fused[0].fn)


@acts
def test_a_fetched_pool_gradient_or_other_features_are_not_fused():
    x, fetches, feed = _conv_pool_net()
    g = tf.get_default_graph()
    pool_grad = [op for op in g.get_operations() if op.type == "MaxPoolGrad"][0].outputs[0]
    on, nodes, _ = _run(None, fetches + [pool_grad], feed)
    assert "MaxPoolGrad" in nodes.values() and "_FusedMaxPoolGrad" not in nodes.values()
    off, _, _ = _run(_config(disable_meta_optimizer=True), fetches + [pool_grad], feed)
    _assert_same(on, off[0])
    # ReluGrad masked by another tensor than the pooled input: two ops stay.
    tf.reset_default_graph()
    v = tf.placeholder(tf.float32, [2, 4, 4, 1])
    other = tf.placeholder(tf.float32, [2, 4, 4, 1])
    p = tf.nn.max_pool(v, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    dv = tf.gradients(p, v)[0]
    out = apply_op("ReluGrad", (dv, other)).outputs[0]
    rng = np.random.RandomState(2)
    feed = {v: rng.randn(2, 4, 4, 1).astype(np.float32),
            other: rng.randn(2, 4, 4, 1).astype(np.float32)}
    _, nodes, _ = _run(None, [out], feed)
    assert "_FusedMaxPoolGrad" not in nodes.values()
