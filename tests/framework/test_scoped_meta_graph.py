"""export_scoped_meta_graph / import_scoped_meta_graph: one scope's ops and variables moved
under another scope (no Saver made on import), summaries keep their tags."""

import numpy as np

import flowloom as tf
from flowloom.framework import meta_graph
from flowloom.proto import summary_pb2


def test_scoped_export_and_import():
    with tf.Graph().as_default():
        with tf.name_scope("outer"):
            i = tf.constant(11)
            tf.summary.scalar("inner", i)
            v = tf.Variable([1.0, 2.0], name="v")
        tf.constant(0, name="elsewhere")
        meta, var_list = meta_graph.export_scoped_meta_graph(export_scope="outer")
    assert sorted(var_list) == ["v:0"] and var_list["v:0"] is v
    assert all(not n.name.startswith("outer/") for n in meta.graph_def.node)
    assert "elsewhere" not in [n.name for n in meta.graph_def.node]
    with tf.Graph().as_default() as g:
        imported = meta_graph.import_scoped_meta_graph(meta, graph=g, import_scope="new_outer")
        assert sorted(imported) == ["v:0"]
        assert imported["v:0"].name == "new_outer/v:0"
        assert "save" not in " ".join(op.name for op in g.get_operations())
        with tf.Session() as sess:
            sess.run(imported["v:0"].initializer)
            np.testing.assert_array_equal(sess.run(imported["v:0"]), [1.0, 2.0])
            summ = summary_pb2.Summary.FromString(sess.run(g.get_tensor_by_name(
                "new_outer/inner:0")))
        assert summ.value[0].tag == "outer/inner"
