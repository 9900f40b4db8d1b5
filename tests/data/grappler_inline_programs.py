"""Programs whose GraphDefs go through Grappler's function inlining (TF's
`tf_optimizer.OptimizeGraph` with `optimizers: "function"`), run by
record_grappler_inline.py under TF 1.15 and by tests/runtime/test_rewrite_inline.py under
flowloom. Each program builds a graph in the default graph and returns (fetch node names,
feeds {name: value}, names to evaluate after inlining).
"""


def control_edges(tf, function):
    @function.Defun(tf.float32, tf.float32)
    def f2(x, y):
        return x + 1.0, x * y

    a = tf.placeholder(tf.float32, name="a")
    c = tf.no_op(name="ctl")
    with tf.control_dependencies([c]):
        r1, r2 = f2(a, a, name="call")
    tf.multiply(r1, r2, name="out")
    with tf.control_dependencies([r1.op]):
        tf.identity(a, name="after")
    f2(a, a, name="kept")
    return ["out", "after", "kept"], {"a:0": 3.0}, ["out:0", "after:0", "kept:1"]


def nested(tf, function):
    @function.Defun(tf.float32)
    def inner(x):
        return x * 3.0

    @function.Defun(tf.float32)
    def outer(x):
        return inner(x) + 1.0

    a = tf.placeholder(tf.float32, name="a")
    tf.identity(outer(a, name="call") * 2.0, name="out")
    return ["out"], {"a:0": 2.0}, ["out:0"]


def no_inline(tf, function):
    @function.Defun(tf.float32, noinline=True)
    def kept_call(x):
        return x - 1.0

    a = tf.placeholder(tf.float32, name="a")
    tf.identity(kept_call(a, name="call") * 2.0, name="out")
    return ["out"], {"a:0": 5.0}, ["out:0"]


def small_graph(tf, function):
    """Three nodes: under RewriterConfig.min_graph_nodes' default (4), nothing is done."""
    @function.Defun(tf.float32)
    def twice(x):
        return x * 2.0

    a = tf.placeholder(tf.float32, name="a")
    tf.identity(twice(a, name="call"), name="out")
    return ["out"], {"a:0": 5.0}, ["out:0"]


PROGRAMS = {"control_edges": control_edges, "nested": nested, "no_inline": no_inline,
            "small_graph": small_graph}


def inline(tf, function, tf_optimizer, meta_graph_pb2, config_pb2, export_meta_graph, fetch):
    """The GraphDef of the default graph after function inlining only."""
    meta_graph = export_meta_graph(graph_def=tf.get_default_graph().as_graph_def())
    collection = meta_graph_pb2.CollectionDef()
    collection.node_list.value.extend(fetch)
    meta_graph.collection_def["train_op"].CopyFrom(collection)
    config = config_pb2.ConfigProto()
    config.graph_options.rewrite_options.optimizers.append("function")
    return tf_optimizer.OptimizeGraph(config, meta_graph)


def summary(graph_def):
    """{node name: [op, inputs]} and the names of the library's functions."""
    return {"nodes": {n.name: [n.op, list(n.input)] for n in graph_def.node},
            "functions": sorted(f.signature.name for f in graph_def.library.function)}


def freeze(tf, function, tf_optimizer, meta_graph_pb2, config_pb2, export_meta_graph,
           graph_util):
    """TF's graph_util_test freezing of an inlined function call: (op types of the frozen
    graph, its output's value)."""
    @function.Defun(tf.float32)
    def plus_one(x):
        return x + 1.0

    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="variable_node")
        tf.Variable(1.0, name="unused_variable_node")
        tf.multiply(plus_one(v), 2.0, name="output_node")
        with tf.Session() as sess:
            sess.run(v.initializer)
            inlined = inline(tf, function, tf_optimizer, meta_graph_pb2, config_pb2,
                             export_meta_graph, ["variable_node", "output_node"])
            frozen = graph_util.convert_variables_to_constants(sess, inlined, ["output_node"])
    with tf.Graph().as_default():
        tf.import_graph_def(frozen, name="")
        with tf.Session() as sess:
            value = float(sess.run("output_node:0"))
    return sorted(n.op for n in frozen.node), value
