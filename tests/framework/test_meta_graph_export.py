"""export_meta_graph(..., save_debug_info=True) writes `<name>.debug`, a GraphDebugInfo of
where the user's code made each exported op, as TF 1.15 (tests/data/record_meta_graph_export.py
-> meta_graph_export_tf.json). TF's traces hold up to 10 frames of its whole stack (for `h/b/y`,
the Const made inside tf.add, none of them the user's); flowloom's hold the user's line."""

import json
import os
import sys

import flowloom as tf
from flowloom.framework import error_interpolation
from flowloom.proto import graph_debug_info_pb2

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
sys.path.insert(0, DATA)

import meta_graph_export_program as program  # noqa: E402

with open(os.path.join(DATA, "meta_graph_export_tf.json")) as f:
    TF = json.load(f)


def test_save_debug_info_writes_the_traces_as_tf():
    got = program.export_with_debug_info(tf, graph_debug_info_pb2)
    want = TF["export_with_debug_info"]
    assert got["files"] == want["files"]
    assert got["traces"] == want["traces"]
    for name, lines in want["lines"].items():
        if lines:  # the user's line, where TF's cut stack reaches it
            assert got["lines"][name] == lines
    assert got["lines"]["h/b/y"] == got["lines"]["h/b"]  # made by the user's tf.add line


def test_create_graph_debug_info_def_keys_ops_by_function_and_name():
    with tf.Graph().as_default() as g:
        tf.constant(1.0, name="c")
        tf.import_graph_def(g.as_graph_def(), name="imp")  # its ops: the import line, as TF
        info = error_interpolation.create_graph_debug_info_def(
            [("", op) for op in g.get_operations()] + [("f", g.get_operation_by_name("c"))])
    assert sorted(info.traces) == ["c", "fc", "imp/c"]
    assert [os.path.basename(f) for f in info.files] == ["test_meta_graph_export.py"]
    assert info.traces["c"] == info.traces["fc"]


def test_default_attrs_are_stripped_in_library_functions_as_tf():
    from flowloom.graph_function import defun as function
    from flowloom.framework import meta_graph

    assert program.stripped_function_attrs(tf, function, meta_graph) == \
        TF["stripped_function_attrs"]


def test_variable_defs_of_tf_before_1_9_take_trainable_from_the_collection_as_tf():
    from flowloom.proto import variable_pb2

    assert program.old_variable_defs(tf, variable_pb2) == TF["old_variable_defs"]
