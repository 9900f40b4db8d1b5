"""Graphs and meta graphs imported inside a cond branch or a while body, as TF 1.15 builds
and runs them (tests/data/record_context_import.py -> context_import_tf.json): the imported
ops join the enclosing context only once they are all wired (their own control inputs keep
them in their loop's frame), and an import scope renames a loop's frame with its context.
Also what a context does with ops made in it other than by apply_op (a function call)."""

import json
import os
import sys

import pytest

import flowloom as tf
from flowloom.framework import meta_graph

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
sys.path.insert(0, DATA)

import context_import_program as program  # noqa: E402

with open(os.path.join(DATA, "context_import_tf.json")) as f:
    TF = json.load(f)


def test_a_graph_def_loop_imported_in_a_cond_branch_as_tf():
    assert program.while_in_cond(tf) == TF["while_in_cond"]


def test_a_meta_graph_loop_imported_in_a_loop_body_as_tf():
    assert program.while_in_while(tf, meta_graph) == TF["while_in_while"]


@pytest.mark.parametrize("key", ["exported_frames", "collections", "frames", "contexts",
                                 "reexported_equal"])
def test_a_scoped_loop_keeps_its_frame_and_context_as_tf(key):
    assert program.scoped_loop_gradients(tf, meta_graph)[key] == \
        TF["scoped_loop_gradients"][key]


def test_gradients_through_a_loop_imported_under_a_scope_as_tf():
    got = program.scoped_loop_gradients(tf, meta_graph)
    want = TF["scoped_loop_gradients"]
    assert got["value"] == pytest.approx(want["value"], rel=1e-6)
    assert got["grad"] == pytest.approx(want["grad"], rel=1e-6)


def test_values_def_round_trip_under_a_scope():
    # TF's ControlFlowContext(values_def, import_scope) and _to_values_def(export_scope):
    # names get the scope prepended (external values' keys too) and lose it again.
    from flowloom.ops.control_flow.control_flow_context import ControlFlowContext

    with tf.Graph().as_default():
        tf.constant(0, name="a")
        tf.constant(2, name="s/a")
        b1 = tf.constant(1, name="b")
        b2 = tf.constant(3, name="s/b")
        plain = ControlFlowContext()
        plain._values = {"a", "b"}
        plain._external_values = {"a": b1}
        scoped = ControlFlowContext(values_def=plain._to_values_def(), import_scope="s")
        assert scoped._values == {"s/a", "s/b"}
        assert scoped._external_values == {"s/a": b2}
        assert scoped._to_values_def(export_scope="s") == plain._to_values_def()
        assert b2.op._control_flow_context is scoped  # a value the context holds
        with pytest.raises(NotImplementedError):
            scoped.to_control_flow_context_def(None)


def test_resource_variables_imported_under_scopes_as_tf():
    assert program.resource_variables_under_scopes(tf, meta_graph) == \
        TF["resource_variables_under_scopes"]


def test_variables_in_custom_collections_are_stored_by_name_as_tf():
    assert program.variables_in_custom_collections(tf, meta_graph) == \
        TF["variables_in_custom_collections"]


def test_a_graph_def_cond_imported_in_a_loop_body_as_tf():
    assert program.cond_in_while(tf) == TF["cond_in_while"]


def test_a_function_call_in_a_cond_branch_waits_on_the_pivot_as_tf():
    from flowloom.graph_function import defun as function

    assert program.function_call_in_cond(tf, function) == TF["function_call_in_cond"]


def test_a_gradient_loop_pushes_shapes_not_tensors_as_tf():
    assert program.shapes_in_gradient_loops(tf) == TF["shapes_in_gradient_loops"]


def test_tf_meta_graph_of_nested_contexts_and_its_gradient_as_tf():
    # TF 1.15 wrote it (stacks of its gradient loops included: a StackV2 handle is [2]).
    got = program.read_nested_contexts(tf, os.path.join(DATA, "nested_contexts_tf1.meta"))
    want = TF["nested_contexts_read"]
    assert got["contexts"] == want["contexts"]
    for got_row, want_row in zip(got["values"], want["values"]):
        assert got_row == pytest.approx(want_row, rel=1e-6)


def test_tf_frozen_dynamic_rnn_imported_in_a_cond_and_a_loop_as_tf():
    got = program.frozen_gru_in_contexts(tf, os.path.join(DATA, "frozen_gru_tf1.pb"))
    assert got == pytest.approx(TF["frozen_gru_in_contexts"], rel=1e-5)
