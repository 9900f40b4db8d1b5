"""Explaining a GraphDef or MetaGraphDef file without running it (`flowloom explain FILE`)."""

import os
import re

from flowloom.framework import errors


def load_graph_def(path):
    """Reads a GraphDef (.pb binary, .pbtxt text) or the graph of a MetaGraphDef (.meta),
    or of a SavedModel directory's first MetaGraph."""
    from google.protobuf import message, text_format

    from flowloom.proto import graph_pb2, meta_graph_pb2

    if os.path.isdir(path):
        pb = os.path.join(path, "saved_model.pb")
        if not os.path.exists(pb):
            raise errors.NotFoundError(None, None, f"{path} has no saved_model.pb")
        try:
            from flowloom.proto import saved_model_pb2
        except ImportError:
            raise NotImplementedError("SavedModel reading is not in flowloom yet") from None
        sm = saved_model_pb2.SavedModel()
        with open(pb, "rb") as f:
            sm.ParseFromString(f.read())
        if not sm.meta_graphs:
            raise errors.DataLossError(None, None, f"{pb} holds no MetaGraph")
        return sm.meta_graphs[0].graph_def
    with open(path, "rb") as f:
        data = f.read()
    candidates = [graph_pb2.GraphDef, meta_graph_pb2.MetaGraphDef]
    if path.endswith(".meta"):
        candidates.reverse()
    for cls in candidates:
        proto = cls()
        try:
            if path.endswith((".pbtxt", ".txt")):
                text_format.Parse(data.decode("utf-8"), proto)
            else:
                proto.ParseFromString(data)
        except (message.DecodeError, text_format.ParseError, UnicodeDecodeError):
            continue
        if isinstance(proto, meta_graph_pb2.MetaGraphDef):
            if proto.graph_def.node:
                return proto.graph_def
            continue
        if proto.node:
            return proto
    raise errors.DataLossError(None, None, f"{path} is not a GraphDef or MetaGraphDef")


def explain_graph_def(graph_def, fetches, feeds=()):
    """(RunExplanation, Graph) for running `fetches` of `graph_def` with `feeds` fed.

    Names are op names (`y`) or tensor names (`y:0`); a fetched op without outputs is a
    target. Nothing runs: the plan is compiled as Session.run would compile it.
    """
    import flowloom as tf
    from flowloom.explain.report import explain_plan
    from flowloom.runtime import executor

    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    for op in graph.get_operations():
        op._traceback = None  # made by the importer, not by a line of the user's code
    cpus = 1 + max([int(m) for n in graph_def.node
                    for m in re.findall(r"CPU:(\d+)", n.device, re.IGNORECASE)] or [0])
    config = tf.ConfigProto(device_count={"CPU": cpus}, allow_soft_placement=True)
    sess = tf.Session(graph=graph, config=config)
    try:
        fetch_tensors, targets = [], []
        for name in fetches:
            el = graph.as_graph_element(name, allow_tensor=True, allow_operation=True)
            if isinstance(el, tf.Operation):
                if el.outputs:
                    fetch_tensors.append(el.outputs[0])
                else:
                    targets.append(el)
            else:
                fetch_tensors.append(el)
        feed_tensors = tuple(graph.as_graph_element(n if ":" in n else n + ":0")
                             for n in feeds)
        plan = executor.compile_plan(sess, feed_tensors, fetch_tensors, targets)
        return explain_plan(sess, plan, feed_tensors, fetch_tensors, targets), graph
    finally:
        sess.close()
