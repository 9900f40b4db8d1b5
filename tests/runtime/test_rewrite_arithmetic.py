"""arithmetic_optimization stages and Identity/NoOp removal, each switched on alone: the same
values bit for bit as the plan without them, and the rewritten graph in partition graphs."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.proto.rewriter_config_pb2 import RewriterConfig
from flowloom.runtime import rewrite_arithmetic, rewrites

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
    return [first] + again, nodes


def _same(runs, reference):
    for values in runs:
        for a, b in zip(values, reference):
            assert np.asarray(a).dtype == np.asarray(b).dtype
            np.testing.assert_array_equal(a, b)


def _rng_feed(*placeholders, seed=0, dtype=np.float32):
    rng = np.random.RandomState(seed)
    return {p: rng.randn(*p.shape.as_list()).astype(dtype) for p in placeholders}


def _stage_alone(monkeypatch, stage, fetches, feed):
    """(runs with only `stage` on, runs with arithmetic_optimization off, their nodes)."""
    monkeypatch.setattr(rewrite_arithmetic, "STAGES", (stage,))
    others = dict(dependency_optimization=OFF, common_subgraph_elimination=OFF, remapping=OFF)
    on, nodes_on = _run(_config(**others), fetches, feed)
    off, nodes_off = _run(_config(arithmetic_optimization=OFF, **others), fetches, feed)
    _same(on, off[0])
    return nodes_on, nodes_off


@acts
def test_add_chain_becomes_one_addn(monkeypatch):
    x, y, z = (tf.placeholder(tf.float32, [5, 7]) for _ in range(3))
    total = tf.add(tf.add(tf.add(x, y), z), x * 3.0, name="total")
    broadcast = tf.add(tf.add(x, 1.0), y, name="broadcast")  # a scalar operand: stays Add
    nodes, off = _stage_alone(monkeypatch, "add_ops", [total, broadcast],
                              _rng_feed(x, y, z))
    assert nodes["total"] == "AddN" and "Add_1" not in nodes and off["total"] in ("Add", "AddV2")
    assert nodes["broadcast"] in ("Add", "AddV2")


@acts
def test_redundant_reshape_cast_and_transpose_are_dropped(monkeypatch):
    x = tf.placeholder(tf.float32, [4, 6])
    same = tf.reshape(x, [4, 6], name="same_shape")
    twice = tf.reshape(tf.reshape(x * 2.0, [24], name="flat"), [6, 4], name="twice")
    cast = tf.cast(same, tf.float32, name="nop_cast")
    back = tf.transpose(tf.transpose(x + 1.0, [1, 0], name="t1"), [1, 0], name="t2")
    fetches = [cast * 1.5, twice, back * 2.0]
    feed = _rng_feed(x)
    nodes, _ = _stage_alone(monkeypatch, "redundant_reshape", fetches, feed)
    assert "same_shape" not in nodes and "flat" not in nodes and nodes["twice"] == "Reshape"
    nodes, _ = _stage_alone(monkeypatch, "redundant_cast", fetches, feed)
    assert "nop_cast" not in nodes
    nodes, off = _stage_alone(monkeypatch, "redundant_transpose", fetches, feed)
    assert "t2" not in nodes and "t1" not in nodes and "t2" in off


@acts
def test_negations_fold_into_subtraction(monkeypatch):
    x = tf.placeholder(tf.float32, [3, 4])
    y = tf.placeholder(tf.float32, [4])  # broadcast: Sub broadcasts as Add does
    a = tf.add(x, tf.negative(y), name="a")
    b = tf.add(tf.negative(x), y, name="b")
    c = tf.subtract(x, tf.negative(y), name="c")
    d = tf.negative(tf.negative(x * 2.0), name="d")
    feed = _rng_feed(x, y)
    nodes, off = _stage_alone(monkeypatch, "negation", [a, b, c], feed)
    assert nodes["a"] == "Sub" and nodes["b"] == "Sub" and nodes["c"] == "AddV2"
    assert off["a"] in ("Add", "AddV2")
    nodes, _ = _stage_alone(monkeypatch, "involution", [d * 1.0], feed)
    assert "d" not in nodes and "Neg" not in nodes.values()


@acts
def test_integer_negation_wraps_as_before(monkeypatch):
    x = tf.placeholder(tf.int32, [4])
    y = tf.placeholder(tf.int32, [4])
    r = tf.add(x, tf.negative(y), name="r")
    feed = {x: np.array([1, -5, 2**31 - 1, 0], np.int32),
            y: np.array([-(2**31), 3, -1, 2**31 - 1], np.int32)}
    nodes, _ = _stage_alone(monkeypatch, "negation", [r], feed)
    assert nodes["r"] == "Sub"


@acts
def test_reduction_over_nothing_is_dropped(monkeypatch):
    x = tf.placeholder(tf.float32, [3, 1, 4])
    s = tf.reduce_sum(x * 2.0, axis=[1], keepdims=True, name="over_one")
    m = tf.reduce_mean(x, axis=[0], name="real")  # reduces: stays
    nodes, _ = _stage_alone(monkeypatch, "redundant_reduction", [s * 1.0, m], _rng_feed(x))
    assert "over_one" not in nodes and nodes["real"] == "Mean"


@acts
def test_a_fetched_op_is_never_dropped(monkeypatch):
    x = tf.placeholder(tf.float32, [2, 3])
    r = tf.reshape(x, [2, 3], name="r")
    c = tf.cast(r, tf.float32, name="c")
    nodes, _ = _stage_alone(monkeypatch, "redundant_reshape", [r, c], _rng_feed(x))
    assert nodes["r"] == "Reshape"


def test_gradients_of_a_training_step_are_unchanged():
    rng = np.random.RandomState(4)
    x = tf.placeholder(tf.float32, [8, 5])
    w = tf.Variable(rng.randn(5, 3).astype(np.float32))
    b = tf.Variable(rng.randn(3).astype(np.float32))
    h = tf.tanh(tf.matmul(x, w) + b)
    loss = tf.reduce_mean(tf.square(h - 1.0)) + tf.reduce_sum(tf.abs(w)) * 0.01
    grads = tf.gradients(loss, [w, b])
    feed = _rng_feed(x)
    on, nodes = _run(None, grads, feed, init=True)
    off, _ = _run(_config(arithmetic_optimization=OFF, dependency_optimization=OFF), grads,
                  feed, init=True)
    _same(on, off[0])


# -- Identity and NoOp removal (dependency_optimization) ---------------------------------------
@acts
def test_plain_identity_is_removed_and_values_stay():
    x = tf.placeholder(tf.float32, [3])
    y = tf.identity(x * 2.0, name="plain") + 1.0
    only = _config(arithmetic_optimization=OFF)
    on, nodes = _run(only, [y], _rng_feed(x))
    off, nodes_off = _run(_config(arithmetic_optimization=OFF, dependency_optimization=OFF),
                          [y], _rng_feed(x))
    _same(on, off[0])
    assert "plain" not in nodes and "plain" in nodes_off


def test_identity_with_a_control_dependency_stays():
    # The seeds' case: the identity makes each read wait for the increment.
    x = tf.Variable(0.0)
    inc = tf.assign_add(x, 1.0)
    c = tf.constant(4.0) * 1.0
    with tf.control_dependencies([inc]):
        y = tf.identity(x, name="after_inc")
        z = tf.identity(c, name="waits") * y
    with tf.Session() as sess:
        sess.run(x.initializer)
        assert [sess.run(y) for _ in range(3)] == [1.0, 2.0, 3.0]
        assert [sess.run(z) for _ in range(2)] == [16.0, 20.0]
        md = tf.RunMetadata()
        sess.run(z, options=tf.RunOptions(output_partition_graphs=True), run_metadata=md)
        nodes = {n.name for g in md.partition_graphs for n in g.node}
    assert "waits" in nodes


def test_identity_that_moves_a_value_across_devices_stays():
    with tf.device("/cpu:1"):
        v = tf.Variable(np.arange(4, dtype=np.float32))
        doubled = v * 2.0
    with tf.device("/cpu:0"):
        copied = tf.identity(doubled, name="to_cpu0")
        outs = [copied + 1.0, copied * 3.0]
    with tf.device("/cpu:1"):
        local = tf.identity(doubled, name="local") - 1.0
    config = tf.ConfigProto(device_count={"CPU": 2})
    with tf.Session(config=config) as sess:
        sess.run(v.initializer)
        md = tf.RunMetadata()
        got = sess.run(outs + [local], options=tf.RunOptions(output_partition_graphs=True),
                       run_metadata=md)
        nodes = {n.name for g in md.partition_graphs for n in g.node}
    assert "to_cpu0" in nodes and ("local" not in nodes or rewrites.ALL_OFF)
    np.testing.assert_array_equal(got[0], np.arange(4) * 2.0 + 1.0)
    np.testing.assert_array_equal(got[2], np.arange(4) * 2.0 - 1.0)


def test_noop_between_updates_is_removed_and_the_updates_run():
    v = tf.Variable(0.0)
    w = tf.Variable(0.0)
    first = tf.group(tf.assign_add(v, 1.0), name="inner_group")
    with tf.control_dependencies([first]):
        step = tf.assign_add(w, 1.0)
    with tf.Session() as sess:
        sess.run([v.initializer, w.initializer])
        md = tf.RunMetadata()
        sess.run(step, options=tf.RunOptions(output_partition_graphs=True), run_metadata=md)
        sess.run(step)
        sess.run(step)
        nodes = {n.name for g in md.partition_graphs for n in g.node}
        assert sess.run([v, w]) == [3.0, 3.0]
    assert "inner_group" not in nodes or rewrites.ALL_OFF


@acts
@pytest.mark.parametrize("toggle", ["arithmetic_optimization", "dependency_optimization"])
def test_debug_names_the_rewrite(toggle):
    x = tf.placeholder(tf.float32, [2])
    y = tf.identity(tf.reshape(x, [2]) + tf.negative(x)) * 2.0
    with tf.Session() as sess:
        sess.run(y, {x: [1.0, 2.0]})
        plan = list(sess._plan_cache.values())[-1]
    assert toggle in dict(plan.rewrites.log) or rewrites._ALL_OFF
