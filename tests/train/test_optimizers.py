"""Optimizers, schedules and moving averages against recorded TensorFlow trajectories.

The programs and TF's results are in tests/data/train_tf.json (recorded by
tests/data/record_train.py): after each step the variables must equal TF's within 1e-5.
"""

import json
import os

import numpy as np
import pytest

import flowloom as tf

with open(os.path.join(os.path.dirname(__file__), "..", "data", "train_tf.json")) as f:
    RECORDED = json.load(f)


def _run(source):
    g = tf.Graph()
    with g.as_default():
        scope = {"tf": tf, "np": np}
        exec(source, scope)  # noqa: S102 - the recorded test programs
        trajectory = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(scope["steps"]):
                sess.run(scope["train_op"])
                trajectory.append(sess.run(scope["fetch"]))
        ops = sorted(op.name + ":" + op.type for op in g.get_operations()
                     if "/update_" in op.name)
        return scope, trajectory, [v.name for v in tf.global_variables()], ops


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_trajectory_matches_tensorflow(case):
    want = RECORDED[case]
    scope, trajectory, variable_names, _ = _run(want["source"])
    assert variable_names == want["variables"]
    assert scope["train_op"].name == want["train_op"]
    for step, (got, expected) in enumerate(zip(trajectory, want["trajectory"])):
        for i, (g, e) in enumerate(zip(got, expected)):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5,
                                       err_msg=f"{case}: step {step}, fetch {i}")
    if want["names"] is not None:
        names = scope["names"]
        assert names == want["names"]


@pytest.mark.parametrize("case", sorted(c for c in RECORDED if RECORDED[c]["graph"]))
def test_whole_graph_matches_tensorflow(case):
    """Every op of the training graph, with TF's name, type and inputs."""
    g = tf.Graph()
    with g.as_default():
        exec(RECORDED[case]["source"], {"tf": tf, "np": np})  # noqa: S102
    got = [[op.name, op.type, [t.name for t in op.inputs]] for op in g.get_operations()]
    assert got == RECORDED[case]["graph"]


@pytest.mark.parametrize("case", ["sgd", "momentum", "adam", "rmsprop_momentum_centered"])
def test_update_op_names_match_tensorflow(case):
    want = RECORDED[case]
    _, _, _, ops = _run(want["source"].replace("steps = 6", "steps = 1"))
    dense = [o for o in ops if "update_w/" in o or "update_b/" in o]
    assert dense == [o for o in want["ops"] if "update_w/" in o or "update_b/" in o]
    # The sparse (embedding) update uses TF's op types.
    assert {o.split(":")[1] for o in ops if "update_emb/" in o} >= \
        {o.split(":")[1] for o in want["ops"] if "update_emb/" in o} - {"Const"}


def test_minimize_errors():
    x = tf.placeholder(tf.float32, [2])
    w = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(x), var_list=[w])
    with pytest.raises(ValueError, match="gate_gradients must be one of"):
        tf.train.GradientDescentOptimizer(0.1).compute_gradients(tf.reduce_sum(w),
                                                                 gate_gradients=5)
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)


def test_global_step_helpers():
    assert tf.train.get_global_step() is None
    step = tf.train.get_or_create_global_step()
    assert step.name == "global_step:0"
    assert step.dtype == tf.int64_ref
    assert tf.train.get_global_step() is step
    assert tf.train.get_or_create_global_step() is step
    with pytest.raises(ValueError, match="already exists"):
        tf.train.create_global_step()


def test_sparse_apply_repeats_indices_in_order():
    from flowloom.ops.state import training_ops

    var = tf.Variable([[1.0], [2.0]])
    accum = tf.Variable([[0.1], [0.1]])
    op = training_ops.sparse_apply_adagrad(var, accum, tf.constant(0.5), [[1.0], [1.0]], [0, 0])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(op)
        v, a = sess.run([var, accum])
    # Two sequential updates of row 0, as TF's kernel applies them.
    a1 = 0.1 + 1.0
    v1 = 1.0 - 0.5 / np.sqrt(a1)
    a2 = a1 + 1.0
    assert np.allclose(a[0], a2) and np.allclose(v[0], v1 - 0.5 / np.sqrt(a2))
    assert np.allclose(v[1], 2.0)
