"""Pooling codes (a stage of `remapping`): a first conv layer's MaxPool records where each
maximum is (`_MaxPoolCodes`), and the layer's backward ops (MaxPoolGrad + ReluGrad, BiasAddGrad,
Conv2DBackpropFilter) run as one `_FusedPoolConvGrad` from those codes, so the ReLU output
dies at the pooling. The values are the separate ops' own, bit for bit."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.nn import kernel_threads
from flowloom.ops.nn import nn_kernels as K
from flowloom.ops.nn import pool_codes
from flowloom.proto.rewriter_config_pb2 import RewriterConfig
from flowloom.runtime import rewrites

acts = pytest.mark.skipif(rewrites.ALL_OFF or kernel_threads.POOL is not None,
                          reason="no rewrite acts (FLOWLOOM_REWRITES=0 or kernel threads)")

CONV = {"strides": [1, 1, 1, 1], "dilations": [1, 1, 1, 1], "explicit_paddings": [],
        "data_format": "NHWC"}


def _case(rng, n, h, w, c, co, k, dtype, ties=False, nan=False, dead=False):
    x = rng.randn(n, h, w, c).astype(dtype)
    f = (rng.randn(k, k, c, co) * 0.3).astype(dtype)
    r = np.maximum(K.conv2d(x, f, (1, 1), (1, 1), "SAME") + dtype(0.05), 0)
    if ties:
        r[:, ::2] = np.round(r[:, ::2])
    if dead:
        r[..., ::2] = 0
        r[:, :, ::3] = 0
    if nan:
        r[0, 1, 1, 0] = np.nan
    return x, f, r


def _bits(a):
    return np.ascontiguousarray(a).tobytes()


CASES = [  # (n, h, w, c, co, k), (ksize, strides, padding), options
    ((9, 24, 24, 3, 16, 5), ((3, 3), (2, 2), "SAME"), {}),
    ((8, 9, 8, 3, 5, 3), ((3, 3), (2, 2), "SAME"), {"ties": True}),
    ((8, 9, 8, 3, 5, 3), ((2, 2), (2, 2), "VALID"), {"ties": True, "dead": True}),
    ((7, 10, 11, 4, 3, 3), ((2, 3), (3, 2), "VALID"), {}),
    ((6, 13, 11, 3, 8, 3), ((3, 2), (2, 3), "SAME"), {"dead": True}),
    ((6, 12, 12, 3, 8, 3), ((2, 2), (1, 1), "VALID"), {"dead": True, "ties": True}),
    ((5, 9, 8, 3, 6, 3), ((3, 3), (2, 2), "SAME"), {"nan": True}),
    ((30, 24, 24, 3, 1, 5), ((3, 3), (2, 2), "SAME"), {}),  # one channel: separate kernels
    ((4, 12, 12, 16, 16, 3), ((3, 3), (2, 2), "SAME"), {}),  # Winograd: separate kernels
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dims,pool,opts", CASES)
def test_the_kernels_give_the_separate_kernels_values_bit_for_bit(dims, pool, opts, dtype):
    rng = np.random.RandomState(sum(dims))
    n, h, w, c, co, k = dims
    ks, st, pad = pool
    x, f, r = _case(rng, n, h, w, c, co, k, dtype, **opts)
    with np.errstate(invalid="ignore"):
        y = K.max_pool(r, ks, st, pad)
        got_y, codes = pool_codes.max_pool_codes(r, ks, st, pad)
        assert codes.dtype == np.uint8 and codes.shape == y.shape
        assert _bits(got_y) == _bits(y)
        dy = rng.randn(*y.shape).astype(dtype)
        dy[:, :, :1] = -0.0  # signed zeros must come through as the separate ops make them
        want = K.max_pool_grad(r, y, dy, ks, st, pad, relu=True)
        assert _bits(pool_codes.relu_pool_grad(codes, y, dy, r.shape, ks, st, pad)) == \
            _bits(want)
        conv = dict(CONV, padding="SAME")
        pool_attrs = {"ksize": [1, *ks, 1], "strides": [1, *st, 1], "padding": pad}
        bias, filt = pool_codes.pool_conv_grad(x, np.array(f.shape, np.int32), codes, y, dy,
                                               conv, pool_attrs)
    assert _bits(bias) == _bits(want.reshape(-1, co).sum(axis=0))
    assert _bits(filt) == _bits(K.conv2d_backprop_filter(x, f.shape, want, (1, 1), (1, 1),
                                                          "SAME"))


def test_block_routing_matches_max_pool_grad_with_signed_zeros_and_dead_windows():
    # The blockwise path's own gradient (before its sums), against the separate kernel.
    rng = np.random.RandomState(3)
    _, _, r = _case(rng, 7, 12, 13, 3, 6, 3, np.float32, dead=True, ties=True)
    for ks, st, pad in [((3, 3), (2, 2), "SAME"), ((2, 2), (1, 1), "VALID")]:
        y, codes = pool_codes.max_pool_codes(r, ks, st, pad)
        dy = rng.randn(*y.shape).astype(np.float32)
        dy[::2, ::3] = -0.0
        ph, pw, oh, ow = K._pool_geometry(r.shape, ks, st, pad)
        padded = (r.shape[0], r.shape[1] + sum(ph), r.shape[2] + sum(pw), r.shape[3])
        dxs, mask = pool_codes._route(codes, y, dy, padded, ks, st, oh, ow, True)
        h, w = r.shape[1:3]
        got = dxs[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w] * mask[:, ph[0]:ph[0] + h,
                                                              pw[0]:pw[0] + w]
        assert _bits(got) == _bits(K.max_pool_grad(r, y, dy, ks, st, pad, relu=True))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dims,pool,opts", CASES[:7])
def test_the_forward_kernel_gives_the_separate_kernels_values(dims, pool, opts, dtype):
    from flowloom.framework.op_def import get

    rng = np.random.RandomState(sum(dims) + 1)
    n, h, w, c, co, k = dims
    ks, st, pad = pool
    x = rng.randn(n, h, w, c).astype(dtype)
    f = (rng.randn(k, k, c, co) * 0.3).astype(dtype)
    bias = (rng.randn(co) * 0.1).astype(dtype)
    for cpad in ("SAME", "VALID"):
        r = get("_FusedConv2D").kernel_fn(np, x, f, bias, strides=[1, 1, 1, 1], padding=cpad,
                                          data_format="NHWC", dilations=[1, 1, 1, 1],
                                          explicit_paddings=[], fused_ops=[b"BiasAdd", b"Relu"])
        want_y, want_codes = pool_codes.max_pool_codes(r, ks, st, pad)
        y, codes = pool_codes.conv_relu_pool_codes(x, f, bias, [1, 1, 1, 1], cpad,
                                                   [1, *ks, 1], [1, *st, 1], pad)
        assert _bits(y) == _bits(want_y) and _bits(codes) == _bits(want_codes)
        assert _bits(y) == _bits(K.max_pool(r, ks, st, pad))


def test_nan_maxima_are_coded_at_the_first_nan():
    r = np.array([[[[1.0], [np.nan]], [[np.nan], [5.0]]]], np.float32)
    y, codes = pool_codes.max_pool_codes(r, (2, 2), (2, 2), "VALID")
    assert np.isnan(y[0, 0, 0, 0]) and codes[0, 0, 0, 0] == 1


def _first_layer_net(batch=32, size=24, channels=16, seed=1):  # r: 1.2 MiB
    rng = np.random.RandomState(seed)
    x = tf.placeholder(tf.float32, [batch, size, size, 3])
    w = tf.Variable(rng.randn(5, 5, 3, channels).astype(np.float32) * 0.3)
    b = tf.Variable(rng.randn(channels).astype(np.float32) * 0.1)
    r = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), b))
    p = tf.nn.max_pool(r, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    loss = tf.reduce_sum(tf.square(p))
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
    feed = {x: rng.randn(batch, size, size, 3).astype(np.float32)}
    return [loss, w, b], train, feed, r


def _run(config, fetches, train, feed, steps=4, extra=()):
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        got = []
        for _ in range(steps):  # the plan runs interpreted, then compiled
            got.append(sess.run([train] + list(extra), feed)[1:])
            got[-1].extend(sess.run(fetches, feed))
        plan = [p for p in sess._plan_cache.values() if p.steps and
                any(s.op._type.startswith("Apply") for s in p.steps)][-1]
    return got, plan


def _no_rewrites():
    return tf.ConfigProto(graph_options=tf.GraphOptions(
        rewrite_options=RewriterConfig(disable_meta_optimizer=True)))


@acts
def test_a_training_step_runs_the_codes_and_has_the_unrewritten_values():
    fetches, train, feed, _ = _first_layer_net()
    on, plan = _run(None, fetches, train, feed)
    types = [s.op._type for s in plan.steps]
    assert "_FusedConvPoolCodes" in types and "_FusedPoolConvGrad" in types
    for gone in ("Conv2DBackpropFilter", "BiasAddGrad", "_FusedConv2D", "MaxPool",
                 "_FusedMaxPoolGrad"):
        assert gone not in types
    fused = [s for s in plan.steps if s.op._type == "_FusedPoolConvGrad"][0]
    assert [o._type for o in fused.op.replaces][1:] == ["BiasAddGrad", "Identity",
                                                        "Conv2DBackpropFilter"]
    forward = [s for s in plan.steps if s.op._type == "_FusedConvPoolCodes"][0]
    assert [o._type for o in forward.op.replaces] == ["_FusedConv2D", "MaxPool"]
    assert any(r == "remapping" and "-> _FusedPoolConvGrad" in what
               for r, what in plan.rewrites.log)
    tf.reset_default_graph()
    fetches, train, feed, _ = _first_layer_net()
    off, plan = _run(_no_rewrites(), fetches, train, feed)
    assert "_FusedConvPoolCodes" not in [s.op._type for s in plan.steps]
    for a, b in zip(on, off):
        for u, v in zip(a, b):
            assert _bits(u) == _bits(v)


@acts
def test_without_the_conv_fusion_the_pooling_alone_records_codes():
    # The pre-ReLU sum is fetched: the conv chain stays unfused, the MaxPool records codes.
    fetches, train, feed, r = _first_layer_net()
    pre = r.op.inputs[0]
    on, plan = _run(None, fetches, train, feed, extra=[pre])
    types = [s.op._type for s in plan.steps]
    assert "_MaxPoolCodes" in types and "_FusedPoolConvGrad" in types
    assert "_FusedConvPoolCodes" not in types
    tf.reset_default_graph()
    fetches, train, feed, r = _first_layer_net()
    off, _ = _run(_no_rewrites(), fetches, train, feed, extra=[r.op.inputs[0]])
    for a, c in zip(on, off):
        for u, v in zip(a, c):
            assert _bits(u) == _bits(v)


def _plan_of(train, extra, feed):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(2):
            sess.run([train, extra], feed)
        return list(sess._plan_cache.values())[-1]


@acts
def test_a_fetched_relu_output_or_pool_gradient_keeps_the_separate_ops():
    _, train, feed, r = _first_layer_net()
    types = [s.op._type for s in _plan_of(train, r, feed).steps]
    assert "_MaxPoolCodes" not in types and "_FusedPoolConvGrad" not in types
    tf.reset_default_graph()
    _, train, feed, _ = _first_layer_net()
    g = tf.get_default_graph()
    dc = [op for op in g.get_operations() if op.type == "BiasAddGrad"][0].inputs[0]
    types = [s.op._type for s in _plan_of(train, dc, feed).steps]
    assert "_FusedPoolConvGrad" not in types and "_MaxPoolCodes" not in types


@acts
def test_small_layers_keep_the_separate_ops():
    fetches, train, feed, _ = _first_layer_net(batch=2, size=8)
    _, plan = _run(None, fetches, train, feed, steps=2)
    assert "_MaxPoolCodes" not in [s.op._type for s in plan.steps] or rewrites.EVERYWHERE


@acts
def test_a_traced_run_partitions_the_rewritten_ops_with_the_same_values():
    fetches, train, feed, _ = _first_layer_net()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        md = tf.RunMetadata()
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True)
        traced = sess.run([train] + fetches, feed, options=opts, run_metadata=md)[1:]
        nodes = {n.name: n.op for g in md.partition_graphs for n in g.node}
        ran = {n.node_name for d in md.step_stats.dev_stats for n in d.node_stats}
    tf.reset_default_graph()
    fetches, train, feed, _ = _first_layer_net()
    with tf.Session(config=_no_rewrites()) as sess:
        sess.run(tf.global_variables_initializer())
        plain = sess.run([train] + fetches, feed)[1:]
    assert "_FusedPoolConvGrad" in nodes.values() and "_FusedConvPoolCodes" in nodes.values()
    assert "MaxPool" in ran
    for u, v in zip(traced, plain):
        assert _bits(u) == _bits(v)
