"""TF1 programs that import graphs and meta graphs into control-flow contexts, run by
TF 1.15 (tests/data/record_context_import.py) and by flowloom
(tests/control_flow/test_import_into_contexts.py); each returns a JSON-able summary."""


def _ops(graph, prefix=""):
    return [[op.name, op.type, [t.name for t in op.inputs],
             sorted(c.name for c in op.control_inputs)]
            for op in graph.get_operations() if op.name.startswith(prefix)]


def _frames(graph):
    return sorted([op.name, op.get_attr("frame_name").decode()
                   if isinstance(op.get_attr("frame_name"), bytes)
                   else op.get_attr("frame_name")]
                  for op in graph.get_operations() if op.type in ("Enter", "RefEnter"))


def while_in_cond(tf):
    """A GraphDef holding a while loop, imported inside a cond branch: its ops, values."""
    with tf.Graph().as_default() as g:
        r = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [0])
    graph_def = g.as_graph_def()
    out = {}
    with tf.Graph().as_default() as g:
        pred = tf.placeholder(tf.bool, name="pred")
        x = tf.placeholder(tf.int32, name="x")

        def imported():
            # The loop's start comes from outside the branch (an input_map through a Switch).
            return tf.import_graph_def(graph_def, input_map={"while/Const:0": x * 2},
                                       return_elements=[r.name])[0]

        result = tf.cond(pred, imported, lambda: tf.constant(1))
        out["ops"] = _ops(g, "cond/")
        with tf.Session() as sess:
            out["values"] = [int(sess.run(result, {pred: True, x: 1})),
                             int(sess.run(result, {pred: True, x: 6})),
                             int(sess.run(result, {pred: False, x: 1}))]
    return out


def while_in_while(tf, meta_graph):
    """A meta graph holding a while loop, imported in another loop's body."""
    with tf.Graph().as_default():
        var = tf.Variable(1.0, name="v")
        _, output = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2.0),
                                  [0, var])
        output_name = output.name
        meta_graph_def, _ = meta_graph.export_scoped_meta_graph()
    out = {}
    with tf.Graph().as_default() as g:
        def body(i, _):
            meta_graph.import_scoped_meta_graph(meta_graph_def)
            return i + 1, g.get_tensor_by_name(output_name)

        _, x = tf.while_loop(lambda i, x: i < 2, body, [0, 0.0], name="")
        out["ops"] = _ops(g, "while/")
        out["frames"] = _frames(g)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["value"] = float(sess.run(x))
    return out


def scoped_loop_gradients(tf, meta_graph):
    """A loop exported from one scope and imported under another: the loop's frame and
    contexts follow the import scope, and tf.gradients through the imported loop works."""
    out = {}
    with tf.Graph().as_default():
        with tf.name_scope("export"):
            var = tf.Variable(0.5)
            _, output = tf.while_loop(
                lambda i, x: i < 4, lambda i, x: (i + 1, x * x + tf.cast(i, tf.float32)),
                [0, var])
        meta, _ = meta_graph.export_scoped_meta_graph(export_scope="export")
        out["exported_frames"] = sorted(
            [n.name, n.attr["frame_name"].s.decode()]
            for n in meta.graph_def.node if n.op == "Enter")
        out["collections"] = sorted(meta.collection_def)
    with tf.Graph().as_default() as g:
        meta_graph.import_scoped_meta_graph(meta, import_scope="import")
        out["frames"] = _frames(g)
        out["contexts"] = [c.name for c in g.get_collection("while_context")]
        again, _ = meta_graph.export_scoped_meta_graph(export_scope="import")
        out["reexported_equal"] = again.graph_def == meta.graph_def and \
            again.collection_def["while_context"] == meta.collection_def["while_context"]
        var = g.get_tensor_by_name(var.name.replace("export/", "import/"))
        output = g.get_tensor_by_name(output.name.replace("export/", "import/"))
        grad = tf.gradients([output], [var])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["value"], out["grad"] = [float(v) for v in sess.run([output, grad[0]])]
    return out


def resource_variables_under_scopes(tf, meta_graph):
    """Resource variables of a meta graph imported under the current name scope and under an
    import scope used twice (the second import is `s_1`): the collections' variables are
    found under the names the import gave."""
    out = {}
    with tf.Graph().as_default():
        tf.Variable(1.0, name="myvar", use_resource=True)
        meta, _ = meta_graph.export_scoped_meta_graph()
    with tf.Graph().as_default() as g:
        with tf.name_scope("foo"):
            got = meta_graph.import_scoped_meta_graph(meta, import_scope="bar")
            out["under_name_scope"] = sorted([k, v.name] for k, v in got.items())
            got = meta_graph.import_scoped_meta_graph(meta)
            out["no_import_scope"] = sorted([k, v.name] for k, v in got.items())
        out["twice"] = []
        for _ in range(2):
            got = meta_graph.import_scoped_meta_graph(meta, import_scope="s")
            out["twice"].append(sorted([k, v.name] for k, v in got.items()))
        out["globals"] = [v.name for v in g.get_collection("variables")]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["values"] = [float(v) for v in sess.run(g.get_collection("variables"))]
    return out


def variables_in_custom_collections(tf, meta_graph):
    """A variable in a collection of the user's own is stored by name (a node_list) and
    comes back as its tensor; in the variable collections it is a VariableDef."""
    out = {}
    for use_resource in (False, True):
        with tf.Graph().as_default() as g0:
            with tf.variable_scope("drop/keep"):
                tf.get_variable("w", shape=[2], collections=["mine", "variables"],
                                use_resource=use_resource)
        meta = meta_graph.export_scoped_meta_graph(graph=g0, export_scope="drop")[0]
        row = {"kinds": {k: meta.collection_def[k].WhichOneof("kind")
                         for k in sorted(meta.collection_def)},
               "mine": list(meta.collection_def["mine"].node_list.value)}
        with tf.Graph().as_default() as g1:
            meta_graph.import_scoped_meta_graph(meta, import_scope="imp")
            row["imported"] = [[x.name, isinstance(x, tf.Tensor)]
                               for x in g1.get_collection("mine") + g1.get_collection("variables")]
        again = meta_graph.export_scoped_meta_graph(graph=g1)[0]
        row["again"] = list(again.collection_def["mine"].node_list.value)
        out[str(use_resource)] = row
    return out


def cond_in_while(tf):
    """A GraphDef holding a cond, imported in a loop body with its input mapped to a loop
    variable: the imported ops read the loop's values (checked once they are in the loop)."""
    with tf.Graph().as_default() as g:
        a = tf.placeholder(tf.float32, [], name="a")
        r = tf.cond(a > 2.0, lambda: a * 2.0, lambda: a - 1.0)
    graph_def = g.as_graph_def()
    out = {}
    with tf.Graph().as_default() as g:
        def body(i, v):
            got = tf.import_graph_def(graph_def, input_map={"a:0": v},
                                      return_elements=[r.name])[0]
            return i + 1, got

        _, v = tf.while_loop(lambda i, v: i < 4, body, [0, 1.5])
        out["ops"] = [[op.name, op.type, [t.name for t in op.inputs],
                       sorted(c.name for c in op.control_inputs),
                       [t.shape.as_list() for t in op.outputs]]
                      for op in g.get_operations() if op.name.startswith("while/import/")]
        with tf.Session() as sess:
            out["value"] = float(sess.run(v))
    return out


def function_call_in_cond(tf, function):
    """A Defun called in a cond branch waits on the branch's pivot; its input's Switch is
    named in the branch's scope (the call is made outside a scope of its own)."""
    import re

    @function.Defun(tf.float32)
    def double(x):
        return x * 2.0

    with tf.Graph().as_default() as g:
        p = tf.placeholder(tf.bool, name="p")
        a = tf.constant(3.0, name="a")
        r = tf.cond(p, lambda: double(a), lambda: a)

        def name(text):  # the function's name carries a hash (TF's and flowloom's differ)
            return re.sub(r"double_[0-9A-Za-z]+", "double", text)

        out = {"ops": [[name(op.name), name(op.type), [name(t.name) for t in op.inputs],
                        sorted(name(c.name) for c in op.control_inputs)]
                       for op in g.get_operations() if op.name.startswith("cond/")]}
        with tf.Session() as sess:
            out["values"] = [float(sess.run(r, {p: True})), float(sess.run(r, {p: False}))]
    return out


def shapes_in_gradient_loops(tf):
    """tf.gradients through a loop: a Shape of a forward value made by the gradient joins the
    forward loop, so the backprop pushes the shape on its stack, not the whole tensor (no
    push is made for the Shape's own input)."""
    import numpy as np

    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="x")

        def body(i, a):
            s = tf.reduce_sum(x * tf.cast(i, tf.float32), axis=1, keepdims=True)
            return i + 1, a + s

        _, r = tf.while_loop(lambda i, a: i < 3, body, [0, tf.zeros_like(x[:, :1])])
        grad = tf.gradients(r, x)[0]
        shapes = [op.name for op in g.get_operations()
                  if op.type in ("Shape", "Size", "Rank") and op.name.startswith("gradients/")]
        pushes = [op for op in g.get_operations() if op.type == "StackPushV2"]
        out = {"pushes_under_shape": sorted(p.name for p in pushes
                                            if any(p.name.startswith(s + "/") for s in shapes)),
               "pushed_dtypes": sorted({p.inputs[1].dtype.name for p in pushes})}
        with tf.Session() as sess:
            out["grad"] = sess.run(grad, {x: np.ones((2, 3), np.float32)}).tolist()
    return out


def write_nested_contexts(tf, path):
    """Writes a meta graph holding loops in conds in loops, and the gradient TF builds
    through them (its stacks among them), to `path`; returns its values."""
    with tf.Graph().as_default():
        x = tf.Variable(1.5, name="x")
        p = tf.placeholder(tf.bool, name="p")

        def body(i, a):
            b = tf.cond(a < 10.0, lambda: a * x, lambda: a + x)
            _, b = tf.while_loop(lambda j, c: j < 2, lambda j, c: (j + 1, c * 1.1), [0, b])
            return i + 1, b

        y = tf.cond(p, lambda: tf.while_loop(lambda i, a: i < 4, body, [0, x])[1],
                    lambda: x * 3.0)
        tf.add_to_collection("y", y)
        grad = tf.gradients(y, x)[0]
        tf.add_to_collection("grad", grad)
        tf.train.export_meta_graph(path)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return [float(v) for v in sess.run([y, grad], {p: True}) +
                    sess.run([y, grad], {p: False})]


def read_nested_contexts(tf, path):
    """Imports the meta graph `write_nested_contexts` wrote, runs its own gradient and a new
    one built through the imported contexts."""
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(path)
        y = tf.get_collection("y")[0]
        x = [v for v in tf.global_variables() if v.name == "x:0"][0]
        p = g.get_tensor_by_name("p:0")
        new_grad = tf.gradients(y, x)[0]
        old_grad = tf.get_collection("grad")[0]
        out = {"contexts": [sorted(c.name for c in g.get_collection("while_context")),
                            sorted(c.name for c in g.get_collection("cond_context"))]}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            # (TF refuses the two gradients in one run: its frames of the new gradient's
            # loops clash with the imported one's, "more than one LoopCond".)
            out["values"] = [[float(v) for v in sess.run([y, old_grad], {p: b})] +
                             [float(sess.run(new_grad, {p: b}))] for b in (True, False)]
    return out


def write_frozen_gru(tf, graph_util, path):
    """Writes a frozen GraphDef of a dynamic_rnn (a while loop over TensorArrays) to `path`."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2, 5, 3], name="x")
        cell = tf.nn.rnn_cell.GRUCell(4, kernel_initializer=tf.constant_initializer(0.1))
        out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        tf.identity(tf.reduce_sum(out), name="y")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            frozen = graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["y"])
    with open(path, "wb") as f:
        f.write(frozen.SerializeToString())


def frozen_gru_in_contexts(tf, path):
    """The frozen dynamic_rnn imported in a cond branch and in a loop body (its input mapped
    to a tensor of the loop): its loop and TensorArrays run inside the enclosing frame."""
    import numpy as np

    with open(path, "rb") as f:
        graph_def = tf.GraphDef.FromString(f.read())
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, name="p")
        xin = tf.placeholder(tf.float32, [2, 5, 3], name="xin")

        def imported(x):
            return tf.import_graph_def(graph_def, input_map={"x:0": x},
                                       return_elements=["y:0"])[0]

        r = tf.cond(p, lambda: imported(xin), lambda: tf.constant(-1.0))

        def body(i, acc):
            return i + 1, acc + imported(xin * tf.cast(i, tf.float32))

        _, w = tf.while_loop(lambda i, a: i < 3, body, [0, 0.0])
        xs = np.linspace(-1, 1, 30).reshape(2, 5, 3).astype(np.float32)
        with tf.Session() as sess:
            return [float(sess.run(r, {p: True, xin: xs})),
                    float(sess.run(r, {p: False, xin: xs})), float(sess.run(w, {xin: xs}))]
