"""Scoped meta graphs (export of one scope with its unbound inputs, import under another
scope, copy_scoped_meta_graph), import into an implicit name scope, clear_extraneous_savers
and collection serialization, against TF 1.15 running the same programs
(tests/data/record_scoped_meta_graph.py -> scoped_meta_graph_tf.json)."""

import json
import os
import sys

import pytest

import flowloom as tf
from flowloom.framework import meta_graph
from flowloom.proto import meta_graph_pb2

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
sys.path.insert(0, DATA)

import scoped_meta_graph_program as program  # noqa: E402

with open(os.path.join(DATA, "scoped_meta_graph_tf.json")) as f:
    TF = json.load(f)


def test_scoped_export_import_and_copy_as_tf():
    assert program.scoped_export(tf, meta_graph) == TF["scoped"]


def test_import_into_the_current_name_scope_as_tf(tmp_path):
    assert program.implicit_scope(tf, str(tmp_path)) == TF["implicit"]


def test_clear_extraneous_savers_as_tf():
    assert program.extraneous_savers(tf) == TF["extraneous"]


def test_collections_are_stored_by_their_first_elements_kind_as_tf():
    assert program.collections(tf) == TF["collections"]


def test_an_imported_loop_variable_keeps_its_recorded_shape():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        tf.while_loop(lambda i: i < 10, lambda i: i + 1, [v])
        meta = tf.train.export_meta_graph()
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(meta)
        assert g.get_tensor_by_name("while/Enter:0").shape.as_list() == []
        assert g.get_tensor_by_name("while/Merge:0").shape.as_list() == []


def test_an_empty_saver_still_writes_its_meta_graph(tmp_path):
    path = str(tmp_path / "ckpt")
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.constant([1, 2], name="x")
        assert tf.train.Saver(allow_empty=True).save(sess, path) is None
    with tf.Graph().as_default() as g:
        assert tf.train.import_meta_graph(path + ".meta", import_scope="sub") is None
        tf.Variable(tf.zeros([2]), name="mine/v")
        assert tf.train.import_meta_graph(path + ".meta", import_scope="other") is None
        assert isinstance(tf.train.import_meta_graph(path + ".meta", import_scope="mine"),
                          tf.train.Saver)
        assert g.get_tensor_by_name("sub/x:0") is not None


def test_a_collection_key_that_is_no_string_is_skipped():
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        saver = tf.train.Saver({"v": v})
        meta = meta_graph_pb2.MetaGraphDef()
        tf.add_to_collection(saver, 3)
        saver._add_collection_def(meta, saver)
        assert len(meta.collection_def) == 0
        with pytest.raises(ValueError, match="need to be different"):
            meta_graph.copy_scoped_meta_graph("nope", "nope")


def test_add_op_types_and_the_stripped_op_list_as_tf():
    from flowloom.graph_function import defun

    assert program.op_types(tf, defun) == TF["op_types"]
