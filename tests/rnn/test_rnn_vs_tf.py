"""RNN cells and drivers against what real TensorFlow built and computed
(tests/data/record_rnn.py): op names and types, variable names, outputs, final states,
gradients; tf.identity on state tuples; a frozen TF graph with a TF1 while loop."""

import gzip
import json
import os

import numpy as np
import pytest

import flowloom as tf
from tests.rnn import programs
from tests.tf_reference import as_tf2_op_type

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
VALUES = np.load(os.path.join(DATA, "rnn_tf.npz"), allow_pickle=False)
def _ops():
    """[name, type] of the default graph's ops, as TF 2.21 (the recorder) types them: its
    math_ops.add builds AddV2 where TF 1.15 and flowloom build Add."""
    return [[op.name, as_tf2_op_type(op.type)]
            for op in tf.get_default_graph().get_operations()]


with gzip.open(os.path.join(DATA, "rnn_tf.json.gz"), "rt") as _f:
    META = json.load(_f)


def _build(name):
    tf.reset_default_graph()
    feeds, outputs = programs.PROGRAMS[name](tf)
    return feeds, programs.flatten_outputs(tf, outputs)


@pytest.mark.parametrize("name", sorted(programs.PROGRAMS))
def test_graph_and_variables_named_as_tf(name):
    _build(name)
    want = META["programs"][name]
    assert programs.variable_names(tf) == want["variables"]
    got = _ops()
    assert sorted(got) == sorted(want["ops"])


@pytest.mark.parametrize("name", sorted(programs.PROGRAMS))
def test_outputs_states_and_gradients_equal_tf(name):
    feeds, flat = _build(name)
    assert {k: t.name for k, t in flat.items()} == META["programs"][name]["outputs"]
    fetches = dict(flat)
    fetches.update(programs.loss_and_grads(tf, feeds, flat))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        programs.set_weights(tf, sess)
        got = sess.run(fetches, feeds)
    keys = {k[len(name) + 1:] for k in VALUES.files if k.startswith(name + "/")}
    assert set(got) == keys
    for k, v in got.items():
        np.testing.assert_allclose(v, VALUES[f"{name}/{k}"], rtol=2e-5, atol=2e-6, err_msg=k)


def test_identity_on_state_tuples_as_tf():
    want = META["identity"]
    tf.reset_default_graph()
    lstm = tf.nn.rnn_cell.BasicLSTMCell(4)
    t = tf.identity(lstm.zero_state(2, tf.float32), name="lstm_state")
    assert [t.name, t.shape.as_list(), t.op.inputs[0].op.type] == want["lstm_state"]
    multi = tf.contrib.rnn.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(4) for _ in range(2)])
    ms = multi.zero_state(2, tf.float32)
    t = tf.identity(input=ms, name="initial_state")
    assert [t.name, t.shape.as_list(), t.op.inputs[0].op.type] == want["multi_state"]
    kept = tf.nest.map_structure(tf.identity, ms)
    assert [type(kept).__name__, type(kept[0]).__name__,
            [x.name for x in tf.nest.flatten(kept)]] == want["map_structure"]
    assert [x.name for x in tf.nest.flatten(ms)] == want["zero_state_names"]
    proj = tf.nn.rnn_cell.LSTMCell(4, num_proj=2)
    with pytest.raises(ValueError) as e:
        tf.identity(proj.zero_state(2, tf.float32))
    assert [type(e.value).__name__, str(e.value)] == want["ragged"]
    with tf.Session() as sess:
        assert sess.run(t).shape == (2, 2, 2, 4)


def test_naming_snippets_as_tf():
    tf.reset_default_graph()
    programs.naming_snippets(tf)
    got = _ops()
    assert sorted(got) == sorted(META["naming_ops"])


def test_dropout_wrapper_builds_tf_ops():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [2, 3, 3], name="x")
    cell = tf.nn.rnn_cell.DropoutWrapper(
        tf.nn.rnn_cell.BasicLSTMCell(3), input_keep_prob=0.5, output_keep_prob=0.8,
        state_keep_prob=0.9, seed=5)
    out, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    got = _ops()
    assert sorted(got) == sorted(META["dropout_ops"])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, c = sess.run([out, state.c], {x: np.ones([2, 3, 3], np.float32)})
    # Output dropout zeroes some entries and scales the rest by 1/0.8; c is never dropped.
    assert o.shape == (2, 3, 3) and np.isfinite(c).all()


def test_variational_dropout_wrapper_builds_tf_ops_and_one_mask_per_run():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [2, 3, 3], name="x")
    cell = tf.nn.rnn_cell.DropoutWrapper(
        tf.nn.rnn_cell.LSTMCell(3), input_keep_prob=0.5, output_keep_prob=0.8,
        state_keep_prob=0.9, variational_recurrent=True, input_size=3, dtype=tf.float32,
        seed=5)
    out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    got = _ops()
    assert sorted(got) == sorted(META["variational_dropout_ops"])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o = sess.run(out, {x: np.ones([2, 3, 3], np.float32)})
    # The output mask is drawn once per run: a column dropped at one step is dropped at all.
    dropped = o == 0
    assert (dropped == dropped[:, :1, :]).all()


def test_frozen_tf_while_loop_graph_imports_and_runs():
    tf.reset_default_graph()
    graph_def = tf.GraphDef()
    with open(os.path.join(DATA, "rnn_frozen_lstm.pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    types = {n.op for n in graph_def.node}
    assert {"Enter", "Exit", "Merge", "Switch", "NextIteration", "LoopCond",
            "TensorArrayV3"} <= types
    tf.import_graph_def(graph_def, name="")
    with tf.Session() as sess:
        o, h = sess.run(["output:0", "final_h:0"], {"input:0": VALUES["frozen/input"],
                                                    "lengths:0": VALUES["frozen/lengths"]})
    np.testing.assert_allclose(o, VALUES["frozen/output"], rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(h, VALUES["frozen/final_h"], rtol=2e-5, atol=2e-6)


def test_reverse_sequence_values_and_errors_as_tf():
    want = META["reverse_sequence_errors"]
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, None, 2])
    lengths = tf.placeholder(tf.int64, [None])
    batch_major = tf.reverse_sequence(x, lengths, seq_axis=1, batch_axis=0)
    time_major = tf.reverse_sequence(x, lengths, seq_axis=0, batch_axis=1)
    xv = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(batch_major, {x: xv, lengths: [4, 0, 2]}),
                                      VALUES["reverse_sequence/batch_major"])
        np.testing.assert_array_equal(sess.run(time_major, {x: xv, lengths: [3, 1, 2, 0]}),
                                      VALUES["reverse_sequence/time_major"])
        for key, lv in (("too_long", [5, 1, 1]), ("negative", [1, -1, 1]), ("count", [1, 1])):
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(batch_major, {x: xv, lengths: lv})
            assert want[key] == ["InvalidArgumentError", e.value.message.split("\n")[0]]
    x2 = tf.placeholder(tf.float32, [2, 3])
    for key, kwargs in (("same_axes", {"seq_axis": 1, "batch_axis": 1}),
                        ("seq_rank", {"seq_axis": 2, "batch_axis": 0}),
                        ("batch_rank", {"seq_axis": 1, "batch_axis": 3}),
                        ("lengths", {"seq_axis": 1, "batch_axis": 0, "n": 3})):
        n = kwargs.pop("n", 2)
        with pytest.raises(ValueError) as e:
            tf.reverse_sequence(x2, list(range(1, n + 1)), **kwargs)
        assert str(e.value).startswith(want[key][1]), (key, str(e.value))
