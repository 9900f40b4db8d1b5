"""Records what real TensorFlow (TF1 graph mode, TF1 while loops, legacy RNN cells) builds and
computes for the programs of tests/rnn/programs.py.

Run with the reference TensorFlow:
  TF_CPP_MIN_LOG_LEVEL=3 TF_USE_LEGACY_KERAS=1 "$FLOWLOOM_TF_PYTHON" tests/data/record_rnn.py
Writes:
  tests/data/rnn_tf.npz        values: "<program>/<key>" (outputs, states, loss, gradients),
                               and the frozen graph's input and output;
  tests/data/rnn_tf.json.gz    per program: op names and types, variables; tf.identity on
                               state tuples; zero_state names; DropoutWrapper op names;
  tests/data/rnn_frozen_lstm.pb  a dynamic_rnn LSTM frozen with convert_variables_to_constants.
"""

import gzip
import json
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
tf.disable_control_flow_v2()

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "rnn"))
import programs


def op_listing(graph):
    return [[op.name, op.type] for op in graph.get_operations()]


def record_programs(values, meta):
    for name, build in programs.PROGRAMS.items():
        g = tf.Graph()
        with g.as_default():
            tf.set_random_seed(1)
            feeds, outputs = build(tf)
            flat = programs.flatten_outputs(tf, outputs)
            listing = op_listing(g)
            variables = programs.variable_names(tf)
            fetches = dict(flat)
            fetches.update(programs.loss_and_grads(tf, feeds, flat))
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                programs.set_weights(tf, sess)
                got = sess.run(fetches, feeds)
        for k, v in got.items():
            values[f"{name}/{k}"] = np.asarray(v)
        meta["programs"][name] = {"ops": listing, "variables": variables,
                                  "outputs": {k: t.name for k, t in flat.items()}}
        print(name, len(listing), "ops")


def record_identity(meta):
    """tf.identity on state tuples: TF packs same-shaped tuples; ragged ones raise."""
    out = {}
    g = tf.Graph()
    with g.as_default():
        lstm = tf.nn.rnn_cell.BasicLSTMCell(4)
        st = lstm.zero_state(2, tf.float32)
        t = tf.identity(st, name="lstm_state")
        out["lstm_state"] = [t.name, t.shape.as_list(), t.op.inputs[0].op.type]
        multi = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(4) for _ in range(2)])
        ms = multi.zero_state(2, tf.float32)
        t = tf.identity(input=ms, name="initial_state")
        out["multi_state"] = [t.name, t.shape.as_list(), t.op.inputs[0].op.type]
        kept = tf.nest.map_structure(tf.identity, ms)
        out["map_structure"] = [type(kept).__name__, type(kept[0]).__name__,
                                [x.name for x in tf.nest.flatten(kept)]]
        out["zero_state_names"] = [x.name for x in tf.nest.flatten(ms)]
        proj = tf.nn.rnn_cell.LSTMCell(4, num_proj=2)
        try:
            tf.identity(proj.zero_state(2, tf.float32))
            out["ragged"] = None
        except (ValueError, TypeError) as e:
            out["ragged"] = [type(e).__name__, str(e).split("\n")[0]]
    meta["identity"] = out


def record_dropout_names(meta):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3, 3], name="x")
        cell = tf.nn.rnn_cell.DropoutWrapper(
            tf.nn.rnn_cell.BasicLSTMCell(3), input_keep_prob=0.5, output_keep_prob=0.8,
            state_keep_prob=0.9, seed=5)
        tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        meta["dropout_ops"] = op_listing(g)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3, 3], name="x")
        cell = tf.nn.rnn_cell.DropoutWrapper(
            tf.nn.rnn_cell.LSTMCell(3), input_keep_prob=0.5, output_keep_prob=0.8,
            state_keep_prob=0.9, variational_recurrent=True, input_size=3, dtype=tf.float32,
            seed=5)
        tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        meta["variational_dropout_ops"] = op_listing(g)


def record_naming(meta):
    g = tf.Graph()
    with g.as_default():
        programs.naming_snippets(tf)
        meta["naming_ops"] = op_listing(g)


def _message(e):
    text = getattr(e, "message", str(e))
    lines = [ln.strip() for ln in text.split("\n")]
    if any(ln.startswith("Node: ") for ln in lines):
        return lines[next(i for i, ln in enumerate(lines) if ln.startswith("Node: ")) + 1]
    return lines[0].split(" for '{{node")[0]


def record_reverse_sequence(values, meta):
    """ReverseSequence values and its shape-function and kernel errors."""
    out = {}
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, None, 2])
        lengths = tf.placeholder(tf.int64, [None])
        batch_major = tf.reverse_sequence(x, lengths, seq_axis=1, batch_axis=0)
        time_major = tf.reverse_sequence(x, lengths, seq_axis=0, batch_axis=1)
        xv = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
        with tf.Session() as sess:
            values["reverse_sequence/batch_major"] = sess.run(
                batch_major, {x: xv, lengths: [4, 0, 2]})
            values["reverse_sequence/time_major"] = sess.run(
                time_major, {x: xv, lengths: [3, 1, 2, 0]})
            for key, lv in (("too_long", [5, 1, 1]), ("negative", [1, -1, 1]),
                            ("count", [1, 1])):
                try:
                    sess.run(batch_major, {x: xv, lengths: lv})
                except tf.errors.OpError as e:
                    out[key] = [type(e).__name__, _message(e)]
        x2 = tf.placeholder(tf.float32, [2, 3])
        for key, kwargs in (("same_axes", {"seq_axis": 1, "batch_axis": 1}),
                            ("seq_rank", {"seq_axis": 2, "batch_axis": 0}),
                            ("batch_rank", {"seq_axis": 1, "batch_axis": 3}),
                            ("lengths", {"seq_axis": 1, "batch_axis": 0, "n": 3})):
            n = kwargs.pop("n", 2)
            try:
                tf.reverse_sequence(x2, list(range(1, n + 1)), **kwargs)
            except ValueError as e:
                out[key] = [type(e).__name__, _message(e)]
    meta["reverse_sequence_errors"] = out


def record_frozen(values):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 5, 3], name="input")
        lengths = tf.placeholder(tf.int32, [2], name="lengths")
        cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(4),
                                            tf.nn.rnn_cell.GRUCell(3)])
        out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
        tf.identity(out, name="output")
        tf.identity(state[1], name="final_h")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            programs.set_weights(tf, sess)
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, g.as_graph_def(), ["output", "final_h"])
            xv = np.random.default_rng(5).uniform(-1, 1, size=(2, 5, 3)).astype(np.float32)
            lv = np.array([5, 3], np.int32)
            o, h = sess.run(["output:0", "final_h:0"], {x: xv, lengths: lv})
    with open(os.path.join(HERE, "rnn_frozen_lstm.pb"), "wb") as f:
        f.write(frozen.SerializeToString())
    values["frozen/input"] = xv
    values["frozen/lengths"] = lv
    values["frozen/output"] = o
    values["frozen/final_h"] = h


def main():
    values = {}
    meta = {"programs": {}}
    record_programs(values, meta)
    record_identity(meta)
    record_dropout_names(meta)
    record_naming(meta)
    record_reverse_sequence(values, meta)
    record_frozen(values)
    np.savez_compressed(os.path.join(HERE, "rnn_tf.npz"), **values)
    with gzip.open(os.path.join(HERE, "rnn_tf.json.gz"), "wt") as f:
        json.dump(meta, f)


if __name__ == "__main__":
    main()
