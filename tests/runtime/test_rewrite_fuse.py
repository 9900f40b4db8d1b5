"""Elementwise fusion (a stage of `remapping`): a chain of elementwise ops runs as one
`_FusedElementwise` step writing into one buffer, with the values of the separate ops."""

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


def _run(config, fetches, feed, init=False):
    with tf.Session(config=config) as sess:
        if init:
            sess.run(tf.global_variables_initializer())
        md = tf.RunMetadata()
        first = sess.run(fetches, feed, options=tf.RunOptions(output_partition_graphs=True),
                         run_metadata=md)
        again = [sess.run(fetches, feed) for _ in range(2)]  # interpreted, then compiled
        nodes = {n.name: n.op for g in md.partition_graphs for n in g.node}
        plan = list(sess._plan_cache.values())[-1]
    return [first] + again, nodes, plan


def _compare(fetches, feed, init=False):
    """(nodes with fusion on, plan) after checking the values equal those without it."""
    on, nodes, plan = _run(None, fetches, feed, init)
    off, _, _ = _run(_config(remapping=OFF), fetches, feed, init)
    for values in on:
        for a, b in zip(values, off[0]):
            assert np.asarray(a).dtype == np.asarray(b).dtype
            np.testing.assert_array_equal(a, b)
    return nodes, plan


def _feed(*placeholders, shapes=None, dtype=np.float32, seed=0):
    rng = np.random.RandomState(seed)
    shapes = shapes or [p.shape.as_list() for p in placeholders]
    return {p: (rng.randn(*s) * 3).astype(dtype) for p, s in zip(placeholders, shapes)}


@acts
def test_a_chain_runs_as_one_step():
    x = tf.placeholder(tf.float32, [None, 16])
    w = tf.placeholder(tf.float32, [16])
    y = tf.nn.sigmoid(tf.nn.relu(tf.tanh(x * w + 1.0) - 0.25) * 2.0, name="y")
    nodes, plan = _compare([y], _feed(x, w, shapes=[[8, 16], [16]]))
    assert nodes["y"] == "_FusedElementwise"
    assert not {"Tanh", "Relu", "Mul", "AddV2", "Add"} & set(nodes.values())
    assert len([s for s in plan.steps if s.op._type == "_FusedElementwise"]) == 1
    assert any(r == "remapping" and "_FusedElementwise 'y'" in what
               for r, what in plan.rewrites.log)


@acts
def test_a_fetched_or_shared_intermediate_splits_the_chain():
    x = tf.placeholder(tf.float32, [4, 5])
    a = tf.exp(x * 0.5, name="a")
    b = tf.sqrt(a + 1.0, name="b")
    c = tf.log(a + 2.0, name="c")  # `a` has two readers: chains end before it
    nodes, _ = _compare([b, c, a * 1.0], _feed(x))
    assert nodes["b"] == "_FusedElementwise" and nodes["c"] == "_FusedElementwise"
    assert nodes["a"] == "_FusedElementwise"  # x * 0.5 -> exp, read by three ops
    fetched, _ = _compare([b, a], _feed(x))
    assert fetched["b"] == "_FusedElementwise" and fetched["a"] == "_FusedElementwise"


def test_operands_that_broadcast_the_value_to_a_larger_shape():
    x = tf.placeholder(tf.float32, [3])
    grow = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    y = tf.abs(tf.maximum(x, 0.5) * grow - 1.0)  # the value becomes [4, 3] at the Mul
    z = tf.minimum(2.0 - x, grow)  # the chain's value is the second operand
    w = 3.0 / (1.0 - tf.exp(x * 0.1))  # ... of non-commutative ops
    nodes, _ = _compare([y, z, w], _feed(x))
    assert rewrites.ALL_OFF or nodes[w.op.name] == "_FusedElementwise"


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float16, np.float64])
def test_other_dtypes_keep_their_values(dtype):
    x = tf.placeholder(tf.as_dtype(dtype), [6])
    y = tf.placeholder(tf.as_dtype(dtype), [6])
    r = tf.abs(tf.maximum(x * y - y, x) + x)
    if np.dtype(dtype).kind == "f":
        r = tf.exp(tf.negative(tf.square(r * 0.01)))
    feed = {x: np.array([1, -2, 3, -4, 100, 7]).astype(dtype),
            y: np.array([5, 6, -7, 8, -9, 0]).astype(dtype)}
    _compare([r], feed)


def test_a_broadcast_error_inside_the_chain_names_the_op_type():
    x = tf.placeholder(tf.float32, [None])
    y = tf.placeholder(tf.float32, [None])
    r = tf.tanh(x * 2.0 + y, name="r")
    for config in (None, _config(remapping=OFF)):
        with tf.Session(config=config) as sess:
            for _ in range(2):  # interpreted, then compiled
                with pytest.raises(tf.errors.InvalidArgumentError, match="Add"):
                    sess.run(r, {x: np.ones(3), y: np.ones(4)})


def test_a_training_step_with_elementwise_math_is_unchanged():
    rng = np.random.RandomState(5)
    x = tf.placeholder(tf.float32, [16, 8])
    w = tf.Variable(rng.randn(8, 4).astype(np.float32))
    h = tf.matmul(x, w)
    gelu = 0.5 * h * (1.0 + tf.tanh(0.79788456 * (h + 0.044715 * h * h * h)))
    loss = tf.reduce_mean(tf.square(gelu - 0.3))
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    feed = {x: rng.randn(16, 8).astype(np.float32)}
    weights = []
    for config in (None, _config(remapping=OFF)):
        with tf.Session(config=config) as sess:
            sess.run(w.initializer)
            for _ in range(3):
                sess.run(step, feed)
            weights.append(sess.run(w))
    np.testing.assert_array_equal(weights[0], weights[1])


def test_scalar_chains_stay_separate_ufuncs():
    # NumPy scalars are never written in place, so a fused kernel only adds its own cost
    # (a per-example random value's scaling: uniform * (hi - lo) + lo)
    x = tf.placeholder(tf.float32, [])
    y = tf.identity(x * 3.0 + 1.0, name="y")
    v = tf.placeholder(tf.float32, [2])
    w = tf.identity(v * 3.0 + 1.0, name="w")
    nodes, _ = _compare([y, w], {x: np.float32(2.5), v: np.array([1, 2], np.float32)})
    assert nodes["add"] in ("Add", "AddV2") and nodes["mul"] == "Mul"
    assert rewrites.ALL_OFF or "_FusedElementwise" in nodes.values()


@acts
def test_an_integer_chain_wraps_around_without_warnings():
    import warnings

    x = tf.placeholder(tf.int32, [4])
    y = tf.identity(tf.abs(x * 65536 - 1) * x, name="y")
    feed = {x: np.array([2**15, -2**15, 7, 2**31 - 1], np.int32)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nodes, _ = _compare([y], feed)
    assert "_FusedElementwise" in nodes.values()
