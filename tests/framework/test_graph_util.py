"""tf.graph_util: freezing gives TF's frozen GraphDef; sub-graph extraction and pruning."""

import numpy as np
import pytest
from graphdef_helpers import graph_def_differences, load_pb

import flowloom as tf
from flowloom.framework import tensor_proto
from tests.tf_reference import as_tf2_op_type

TF_FROZEN = load_pb("frozen_mlp.pb")


def _const_values(graph_def):
    return {n.name: tensor_proto.to_numpy(n.attr["value"].tensor)
            for n in graph_def.node if n.op == "Const"}


def _build_mlp(values):
    """The program record_graphdef.py froze with TF, with TF's weights."""
    x = tf.placeholder(tf.float32, [None, 6], name="input")
    w1 = tf.Variable(values["dense1/kernel"], name="dense1/kernel")
    b1 = tf.Variable(values["dense1/bias"], name="dense1/bias")
    w2 = tf.Variable(values["dense2/kernel"], name="dense2/kernel")
    b2 = tf.Variable(values["dense2/bias"], name="dense2/bias")
    h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
    logits = tf.add(tf.matmul(h, w2), b2, name="logits")
    return tf.identity(logits, name="output")


def test_convert_variables_to_constants_matches_tensorflow():
    _build_mlp(_const_values(TF_FROZEN))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        frozen = tf.graph_util.convert_variables_to_constants(
            sess, sess.graph.as_graph_def(), ["output"])
    for node in frozen.node:  # recorded by TF 2.21, whose tf.add is AddV2
        node.op = as_tf2_op_type(node.op)
    assert graph_def_differences(TF_FROZEN, frozen) == []


def test_whitelist_and_blacklist():
    _build_mlp(_const_values(TF_FROZEN))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        gd = sess.graph.as_graph_def()
        frozen = tf.graph_util.convert_variables_to_constants(
            sess, gd, ["output"], variable_names_whitelist=["dense1/kernel"],
            variable_names_blacklist=["dense1/bias"])
    ops = {n.name: n.op for n in frozen.node}
    assert ops["dense1/kernel"] == "Const" and ops["dense1/bias"] == "VariableV2"


def test_extract_sub_graph():
    a = tf.constant(1.0, name="a")
    b = tf.identity(a, name="b")
    c = tf.no_op(name="c")
    with tf.control_dependencies([c]):
        tf.identity(b, name="d")
    tf.constant(2.0, name="unused")
    gd = tf.get_default_graph().as_graph_def()
    sub = tf.graph_util.extract_sub_graph(gd, ["d"])
    assert [n.name for n in sub.node] == ["a", "b", "c", "d"]
    with pytest.raises(TypeError):
        tf.graph_util.extract_sub_graph(gd, "d")
    with pytest.raises(AssertionError):
        tf.graph_util.extract_sub_graph(gd, ["nope"])


def test_remove_training_nodes():
    x = tf.placeholder(tf.float32, name="x")
    y = tf.check_numerics(tf.identity(x, name="id1"), "bad", name="check")
    tf.identity(y * 2.0, name="out")
    gd = tf.graph_util.remove_training_nodes(tf.get_default_graph().as_graph_def(),
                                             protected_nodes=["out"])
    # What TF 1.15 and 2.21 both return (checked with both): a CheckNumerics goes with its
    # edges (mul loses that input), and the result holds nodes only.
    assert [(n.name, list(n.input)) for n in gd.node] == \
        [("x", []), ("mul/y", []), ("mul", ["mul/y"]), ("out", ["mul"])]
    assert not gd.HasField("library") and not gd.HasField("versions")
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, name="a")
        b = tf.identity(a, name="b")
        with tf.control_dependencies([b]):
            c = tf.identity(a, name="c")
        tf.identity(c, name="d")
        gd = tf.graph_util.remove_training_nodes(tf.get_default_graph().as_graph_def())
    # Identities with control inputs, or used as one, stay; `d` is spliced out (TF 1.15's).
    assert [(n.name, list(n.input)) for n in gd.node] == \
        [("a", []), ("b", ["a"]), ("c", ["a", "^b"])]


def test_must_run_on_cpu():
    s = tf.constant("text")
    f = tf.constant(1.0)
    assert tf.graph_util.must_run_on_cpu(s.op)
    assert not tf.graph_util.must_run_on_cpu(f.op)
    v = tf.Variable(1.0)
    assert tf.graph_util.must_run_on_cpu(v.op, pin_variables_on_cpu=True)
    assert np.isscalar(1.0)
