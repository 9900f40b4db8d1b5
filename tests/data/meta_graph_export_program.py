"""A TF1 program exporting a meta graph with save_debug_info=True, run by TF 1.15
(tests/data/record_meta_graph_export.py) and by flowloom (tests/framework/test_meta_graph_export.py)."""

import os
import tempfile


def export_with_debug_info(tf, graph_debug_info_pb2):
    """The files written and the GraphDebugInfo's traces: the node names, and for each the
    lines of this file among its frames (TF's stack is cut at 10 frames, flowloom keeps the
    user's frame)."""
    here = os.path.abspath(__file__)
    with tf.Graph().as_default(), tempfile.TemporaryDirectory() as d:
        with tf.name_scope("h"):
            a = tf.constant(1.0, name="a")
            tf.add(a, 2.0, name="b")
        tf.train.export_meta_graph(os.path.join(d, "m.meta"), save_debug_info=True)
        files = sorted(os.listdir(d))
        with open(os.path.join(d, "m.debug"), "rb") as f:
            info = graph_debug_info_pb2.GraphDebugInfo.FromString(f.read())
    lines = {k: [c.line for c in info.traces[k].file_line_cols
                 if os.path.abspath(info.files[c.file_index]) == here]
             for k in sorted(info.traces)}
    return {"files": files, "traces": sorted(info.traces), "lines": lines}


def stripped_function_attrs(tf, function, meta_graph):
    """strip_default_attrs=True reaches the bodies of library functions (a Complex inside a
    function called by another loses T and Tout), not the calls of the functions."""
    with tf.Graph().as_default() as g:
        @function.Defun(tf.float32, tf.float32)
        def f0(i, j):
            return tf.complex(i, j, name="double_nested_complex")

        @function.Defun(tf.float32, tf.float32)
        def f1(i, j):
            return f0(i, j)

        f1(tf.constant(1.0), tf.constant(2.0))
        meta, _ = meta_graph.export_scoped_meta_graph(graph_def=g.as_graph_def(),
                                                      strip_default_attrs=True)
    # The calls of the functions are named by the function's hash (TF's and flowloom's
    # differ): only the nodes of registered ops are compared, with the calls counted.
    functions = {f.signature.name for f in meta.graph_def.library.function}
    nodes = list(meta.graph_def.node) + [n for f in meta.graph_def.library.function
                                         for n in f.node_def]
    return {"stripped": meta.meta_info_def.stripped_default_attrs,
            "nodes": sorted([n.op, sorted(n.attr)] for n in nodes if n.op not in functions),
            "calls": sum(n.op in functions for n in nodes)}


def old_variable_defs(tf, variable_pb2):
    """A meta graph whose VariableDefs carry no `trainable` (TF before 1.9 did not write
    it): for a file of TF 1.8 a variable is trainable when it is in TRAINABLE_VARIABLES; for
    a file of 1.9 or later the field is taken as written (absent: False)."""
    with tf.Graph().as_default():
        tf.Variable(1.0, name="t")
        tf.Variable(2.0, name="n", trainable=False)
        meta = tf.train.export_meta_graph()
    for key in ("variables", "trainable_variables"):
        col = meta.collection_def[key].bytes_list
        values = []
        for raw in col.value:
            proto = variable_pb2.VariableDef.FromString(raw)
            proto.ClearField("trainable")
            values.append(proto.SerializeToString())
        del col.value[:]
        col.value.extend(values)
    out = {}
    for version in ("1.8.0", "1.10.1", ""):
        meta.meta_info_def.tensorflow_version = version
        with tf.Graph().as_default():
            tf.train.import_meta_graph(meta)
            out[version or "unknown"] = [
                [v.name, v.trainable] for v in tf.global_variables()] + [
                [v.name for v in tf.trainable_variables()]]
    return out
