"""Records what real TensorFlow (TF1 graph mode, dataflow control flow) computes for the
programs of tests/control_flow/programs.py.

Run with the reference TensorFlow:
  TF_CPP_MIN_LOG_LEVEL=3 "$FLOWLOOM_TF_PYTHON" tests/data/record_control_flow.py
Writes tests/data/control_flow_values.npz (values, keyed "<program>/<feed #>/<fetch>") and
tests/data/control_flow_graphs.json.gz (op name, type, inputs and control inputs of some
programs' graphs).
"""

import gzip
import json
import re
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
tf.disable_control_flow_v2()

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "control_flow"))
import programs  # noqa: E402


def graph_listing(graph):
    out = []
    for op in graph.get_operations():
        attrs = {}
        for k in ("frame_name", "is_constant", "parallel_iterations"):
            if k in op.node_def.attr:
                v = op.get_attr(k)
                attrs[k] = v.decode() if isinstance(v, bytes) else v
        out.append([op.name, op.type, [t.name for t in op.inputs],
                    [c.name for c in op.control_inputs], attrs])
    return out


def node_listing(graph):
    """The GraphDef's nodes as JSON: name, op, inputs ("^x" for control), and attrs."""
    nodes = []
    for nd in graph.as_graph_def().node:
        attrs = {}
        for k, v in nd.attr.items():
            if k.startswith("_"):
                continue
            kind = v.WhichOneof("value")
            if kind == "type":
                attrs[k] = ["type", tf.as_dtype(v.type).name]
            elif kind == "shape":
                s = tf.TensorShape(v.shape)
                attrs[k] = ["shape", None if s.ndims is None else s.as_list()]
            elif kind == "tensor":
                arr = tf.make_ndarray(v.tensor)
                attrs[k] = ["tensor", arr.dtype.name, list(arr.shape), arr.reshape(-1).tolist()]
            elif kind == "list":
                attrs[k] = ["types", [tf.as_dtype(t).name for t in v.list.type]]
            elif kind == "s":
                attrs[k] = ["s", v.s.decode()]
            else:
                attrs[k] = [kind, getattr(v, kind)]
        nodes.append([nd.name, nd.op, list(nd.input), attrs])
    return nodes


def _core_message(e):
    """The message without TF's node and traceback lines (and the array-name prefix)."""
    lines = [ln.strip() for ln in str(e).split("\n")]
    if isinstance(e, tf.errors.OpError):
        if any(ln.startswith("Node: ") for ln in lines):
            i = next(i for i, ln in enumerate(lines) if ln.startswith("Node: "))
            text = lines[i + 1]
        else:
            text = next(ln for ln in lines if ln and ln != "Graph execution error:")
    else:
        text = lines[0]
    return re.sub(r"^TensorArray [\w/.-]+: ", "", text).strip()


def record_errors():
    out = {}
    for name, fn in programs.ERROR_PROGRAMS.items():
        g = tf.Graph()
        with g.as_default():
            try:
                target = fn(tf)
                with tf.Session() as sess:
                    sess.run(target)
                out[name] = ["OK", ""]
            except Exception as e:  # noqa: BLE001 - recording what TF raises
                out[name] = [type(e).__name__, _core_message(e)]
    return out


def main():
    values = {}
    graphs = {}
    for name, fn in programs.PROGRAMS.items():
        g = tf.Graph()
        with g.as_default():
            tf.set_random_seed(0)
            fetches, feeds = fn(tf)
            if name in programs.STRUCTURE_PROGRAMS:
                graphs[name] = graph_listing(g)
            if name in programs.GRAPH_DEF_PROGRAMS:
                graphs["graph_def/" + name] = node_listing(g)
                pb = g.as_graph_def().SerializeToString()
                values[f"graph_def_pb/{name}"] = np.frombuffer(pb, dtype=np.uint8)
            tensors = {k: v for k, v in fetches.items() if isinstance(v, tf.Tensor)}
            ops_ = [v for v in fetches.values() if isinstance(v, tf.Operation)]
            with tf.Session() as sess:
                for k, feed in enumerate(feeds):
                    if ops_:
                        sess.run(ops_)
                    got = sess.run(tensors, feed)
                    for key, v in got.items():
                        values[f"{name}/{k}/{key}"] = np.asarray(v)
    graphs["errors"] = record_errors()
    # A TF-written MetaGraphDef with loop and cond contexts; gradients taken after import.
    g = tf.Graph()
    with g.as_default():
        loss_name, x_names, feed = programs.meta_graph_forward(tf)
        meta = tf.train.export_meta_graph()
        values["meta_graph_pb"] = np.frombuffer(meta.SerializeToString(), dtype=np.uint8)
    g = tf.Graph()
    with g.as_default():
        tf.train.import_meta_graph(meta)
        grads = tf.gradients(g.get_tensor_by_name(loss_name),
                             [g.get_tensor_by_name(n) for n in x_names])
        with tf.Session() as sess:
            got = sess.run([g.get_tensor_by_name(loss_name)] + grads, feed)
        for k, v in enumerate(got):
            values[f"meta_graph/{k}"] = np.asarray(v)
    graphs["nest"] = programs.nest_results(tf.nest)
    np.savez_compressed(os.path.join(HERE, "control_flow_values.npz"), **values)
    with gzip.open(os.path.join(HERE, "control_flow_graphs.json.gz"), "wt") as f:
        json.dump(graphs, f, separators=(",", ":"), sort_keys=True)
    print(f"recorded {len(values)} values, {len(graphs)} graphs")


if __name__ == "__main__":
    main()
