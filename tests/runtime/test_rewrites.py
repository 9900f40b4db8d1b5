"""Graph rewrites: each switchable through RewriterConfig, each leaving results unchanged."""

import os
import subprocess
import sys

import numpy as np
import pytest

import flowloom as tf
from flowloom.proto.rewriter_config_pb2 import RewriterConfig
from flowloom.runtime import rewrites

# Under FLOWLOOM_REWRITES=0 (`dev.py test --rewrites off`) no rewrite acts: tests of what a
# rewrite did are skipped there; tests that compare values run in both modes.
acts = pytest.mark.skipif(rewrites.ALL_OFF, reason="FLOWLOOM_REWRITES=0: no rewrite acts")


def _config(**toggles):
    return tf.ConfigProto(graph_options=tf.GraphOptions(
        rewrite_options=RewriterConfig(**toggles)))


def _ran(sess, fetches, feed=None):
    md = tf.RunMetadata()
    value = sess.run(fetches, feed, options=tf.RunOptions(
        trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True), run_metadata=md)
    names = {n.name for g in md.partition_graphs for n in g.node}
    return value, names


@acts
def test_group_of_pure_ops_runs_none_of_them():
    c = tf.constant(1.0)
    adds = [tf.add(c, float(i), name=f"a{i}") for i in range(50)]
    group = tf.group(*adds, name="g")
    total = tf.add_n(adds)
    with tf.Session() as sess:
        _, names = _ran(sess, group)
        assert "g" in names and not any(f"a{i}" in names for i in range(50))
        assert sess.run(total) == sum(1.0 + i for i in range(50))  # data consumers: all run
    with tf.Session(config=_config(dependency_optimization=RewriterConfig.OFF)) as sess:
        _, names = _ran(sess, group)
        assert all(f"a{i}" in names for i in range(50))
    with tf.Session(config=_config(disable_meta_optimizer=True)) as sess:
        _, names = _ran(sess, group)
        assert "a0" in names


def test_state_and_checks_in_the_fan_in_still_run():
    v = tf.Variable(0.0)
    inc = tf.assign_add(v, 1.0)
    after = tf.add(inc, 1.0, name="after_inc")  # pure, but its fan-in changes state
    bad = tf.check_numerics(tf.constant(np.inf), "inf here")
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(tf.group(after))
        assert sess.run(v) == 1.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="inf here"):
            sess.run(tf.group(bad))


@acts
def test_identity_under_control_dependencies_keeps_its_semantics():
    x = tf.Variable(0.0)
    inc = tf.assign_add(x, 1.0)
    pure = tf.multiply(tf.constant(2.0), 3.0, name="pure")
    with tf.control_dependencies([inc, pure]):
        y = tf.identity(x)
    with tf.Session() as sess:
        sess.run(x.initializer)
        values = [sess.run(y) for _ in range(3)]
        _, names = _ran(sess, y)
    assert values == [1.0, 2.0, 3.0]
    assert "pure" not in names and inc.op.name in names


def test_whole_programs_agree_with_rewrites_off(tmp_path):
    prog = tmp_path / "p.py"
    prog.write_text(
        "import numpy as np, flowloom as tf\n"
        "tf.set_random_seed(1)\n"
        "x = tf.placeholder(tf.float32, [None, 4])\n"
        "w = tf.Variable(tf.random_normal([4, 2]))\n"
        "loss = tf.reduce_mean(tf.square(tf.matmul(x, w)))\n"
        "opt = tf.train.GradientDescentOptimizer(0.1).minimize(loss)\n"
        "step = tf.group(opt, *[tf.sqrt(tf.abs(w)) for _ in range(5)])\n"
        "with tf.Session() as s:\n"
        "    s.run(tf.global_variables_initializer())\n"
        "    for _ in range(5): s.run(step, {x: np.ones((3, 4))})\n"
        "    print(repr(s.run(w).tolist()))\n")
    outs = []
    for flag in ("1", "0"):
        out = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True,
                             timeout=120, env=dict(os.environ, FLOWLOOM_REWRITES=flag))
        assert out.returncode == 0, out.stderr
        outs.append(out.stdout)
    assert outs[0] == outs[1]


@acts
def test_constant_subgraphs_are_computed_once_when_the_plan_is_compiled():
    c = tf.constant(np.float32(1.0))
    adds = [tf.add(c, np.float32(i)) for i in range(20)]
    total = tf.add_n(adds)
    x = tf.placeholder(tf.float32, [])
    mixed = total * x
    noise = tf.random_uniform([3], seed=1) + c  # stateful: never folded
    with tf.Session() as sess:
        assert sess.run(total) == sum(1.0 + i for i in range(20))
        plan = sess._plan_cache[next(k for k in sess._plan_cache)]
        # 21 Consts, 20 adds, add_n; less the Const 1.0 that `c` repeats (CSE keeps one).
        assert plan.steps == [] and len(plan.folded_ops) == 41
        assert sess.run(mixed, {x: 2.0}) == 2 * sum(1.0 + i for i in range(20))
        a, b = sess.run(noise), sess.run(noise)
        assert not np.array_equal(a, b)
    with tf.Session(config=_config(constant_folding=RewriterConfig.OFF)) as sess:
        assert sess.run(total) == sum(1.0 + i for i in range(20))
        plan = sess._plan_cache[next(k for k in sess._plan_cache)]
        assert len(plan.steps) == 41


def test_a_failing_constant_op_fails_at_run_time():
    shape = tf.placeholder_with_default(np.array([2, 2], np.int32), [2])
    bad = tf.reshape(tf.constant([1.0, 2.0, 3.0]), shape + 0)
    with tf.Session() as sess:
        with pytest.raises((tf.errors.InvalidArgumentError, ValueError)):
            sess.run(bad)
