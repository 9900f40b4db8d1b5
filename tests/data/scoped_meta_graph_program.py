"""TF1 meta-graph programs run by TF 1.15 (tests/data/record_scoped_meta_graph.py) and by
flowloom (tests/framework/test_scoped_meta_graph.py); each returns a JSON-able summary."""

import numpy as np


def _nodes(meta):
    return sorted([n.name, n.op, list(n.input)] for n in meta.graph_def.node)


def _kinds(meta):
    return {k: v.WhichOneof("kind") for k, v in meta.collection_def.items()}


def _layers(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    with tf.name_scope("hidden1"):
        w = tf.Variable(np.ones((3, 2), np.float32), name="weights")
        b = tf.Variable(np.zeros(2, np.float32), name="biases")
        h = tf.nn.relu(tf.matmul(x, w) + b, name="relu")
    with tf.name_scope("hidden2"):
        w2 = tf.Variable(np.ones((2, 1), np.float32), name="weights")
        out = tf.matmul(h, w2, name="out")
    with tf.name_scope("block"):
        start = tf.Variable([1.0, 2.0], name="start")
        tf.multiply(start, 3.0, name="tripled")
    return x, h, out


def scoped_export(tf, meta_graph):
    """export_scoped_meta_graph of one scope (its nodes, unbound inputs and variables), its
    import under another scope with the unbound input mapped, and copy_scoped_meta_graph."""
    out = {}
    with tf.Graph().as_default() as g:
        x, h, _ = _layers(tf)
        meta, var_list = meta_graph.export_scoped_meta_graph(export_scope="hidden2")
        out["nodes"] = _nodes(meta)
        out["kinds"] = _kinds(meta)
        out["unbound"] = [v.decode() for v in meta.collection_def["unbound_inputs"]
                          .bytes_list.value]
        out["graph_unbound"] = [v if isinstance(v, str) else v.decode()
                                for v in g.get_collection("unbound_inputs")]
        out["var_list"] = sorted(var_list)
        try:
            meta_graph.import_scoped_meta_graph(meta, import_scope="again")
        except ValueError as e:
            out["unmapped_error"] = str(e)
        imported = meta_graph.import_scoped_meta_graph(
            meta, import_scope="again", input_map={"$unbound_inputs_hidden1/relu": h})
        out["imported_vars"] = sorted([k, v.name] for k, v in imported.items())
        try:
            meta_graph.copy_scoped_meta_graph("hidden1", "copy")
        except ValueError as e:
            out["copy_unbound_error"] = str(e)
        copied = meta_graph.copy_scoped_meta_graph("block", "copy")
        out["copied_vars"] = sorted([k, v.name] for k, v in copied.items())
        ops = sorted(op.name for op in g.get_operations()
                     if op.name.startswith(("again/", "copy/")))
        out["new_ops"] = ops
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: [[1.0, 2.0, 3.0]]}
            out["again_out"] = sess.run(g.get_tensor_by_name("again/out:0"), feed).tolist()
            out["copy_tripled"] = sess.run(g.get_tensor_by_name("copy/tripled:0")).tolist()
    return out


def implicit_scope(tf, directory):
    """A meta graph imported inside a name scope, and its Saver's names."""
    import os

    path = os.path.join(directory, "ckpt")
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[1.0], [2.0]], name="w")
        tf.matmul(x, w, name="y")
        saver = tf.train.Saver()
        sess.run(tf.global_variables_initializer())
        saver.save(sess, path)
    with tf.Graph().as_default() as g, tf.Session() as sess:
        with tf.name_scope("new_model"):
            new_saver = tf.train.import_meta_graph(path + ".meta")
        new_saver.restore(sess, path)
        y = sess.run("new_model/y:0", {"new_model/x:0": [[1.0, 1.0]]}).tolist()
        saver_def = new_saver.as_saver_def()
        return {"y": y, "ops": sorted(op.name for op in g.get_operations())[:8],
                "saver": [saver_def.filename_tensor_name, saver_def.save_tensor_name,
                          saver_def.restore_op_name]}


def extraneous_savers(tf):
    """Two Savers; the meta graph of one with clear_extraneous_savers."""
    with tf.Graph().as_default():
        v0 = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name="v0")
        v1 = tf.Variable(11.0, name="v1")
        saver0 = tf.train.Saver({"v0": v0}, name="saver0")
        saver1 = tf.train.Saver({"v1": v1}, name="saver1")
        tf.add_to_collection("savers", saver0)
        tf.add_to_collection("savers", saver1)
        whole = tf.train.export_meta_graph()
        only0 = saver0.export_meta_graph()
        only1 = saver1.export_meta_graph(clear_extraneous_savers=True)
    return {"whole_nodes": len(whole.graph_def.node), "only0_nodes": len(only0.graph_def.node),
            "only1_nodes": len(only1.graph_def.node),
            "only1_node_names": sorted(n.name for n in only1.graph_def.node),
            "whole_savers": len(whole.collection_def["savers"].bytes_list.value),
            "only1_savers": len(only1.collection_def["savers"].bytes_list.value),
            "whole_has_saver_def": whole.HasField("saver_def")}


def collections(tf):
    """How collections of mixed or odd element types are stored."""
    with tf.Graph().as_default():
        tf.add_to_collection("ints", 3)
        tf.add_to_collection("ints", 4)
        tf.add_to_collection("mixed", 3)
        tf.add_to_collection("mixed", 3.5)
        tf.add_to_collection("floats", 3.5)
        tf.add_to_collection("floats", 2)
        tf.add_to_collection("bools", True)
        tf.add_to_collection("strings", "hello")
        tf.add_to_collection("strings", b"bytes")
        tf.add_to_collection("ops", tf.no_op(name="noop"))
        meta = tf.train.export_meta_graph()
    return {"kinds": _kinds(meta),
            "values": {k: list(getattr(v, v.WhichOneof("kind")).value)
                       for k, v in meta.collection_def.items() if k in ("ints", "floats",
                                                                          "bools")}}


def op_types(tf, function):
    """The op types tf.add, `+` and truncated_normal build, and the stripped op list of a
    meta graph whose graph calls a Defun (its body's ops are listed, the function is not)."""
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        s = tf.constant("x")

        @function.Defun(tf.float32)
        def minus_one(x):
            return x - 1

        minus_one(tf.identity(a))
        out = {"tf.add": tf.add(a, a).op.type, "plus": (a + a).op.type,
               "tf.add strings": tf.add(s, s).op.type, "plus strings": (s + s).op.type,
               "truncated_normal": tf.truncated_normal([2]).op.type}
        meta = tf.train.export_meta_graph()
        out["stripped"] = [op.name for op in meta.meta_info_def.stripped_op_list.op]
    return out
