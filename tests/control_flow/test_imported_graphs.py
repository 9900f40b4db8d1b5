"""GraphDefs with TF1 loops, written by real TensorFlow (tests/data/record_control_flow.py),
rebuilt node by node with Graph.create_op (as an importer does) and run: they give TF's
values. This covers the gradient loops too (stacks, b_sync triggers, backward frames)."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import dtypes, tensor_shape
from flowloom.framework import op_def as op_registry
from flowloom.framework.apply_op import _output_dtypes
from tests.control_flow import programs
from tests.control_flow.test_programs import GRAPHS, VALUES


def _attr(v):
    kind = v[0]
    if kind == "type":
        return dtypes.as_dtype(v[1])
    if kind == "types":
        return [dtypes.as_dtype(t) for t in v[1]]
    if kind == "shape":
        return tensor_shape.TensorShape(v[1]) if v[1] is not None else \
            tensor_shape.unknown_shape()
    if kind == "tensor":
        return np.array(v[3], dtype=v[1]).reshape(v[2])
    return v[1]


def _import(nodes):
    """Builds the nodes into the default graph; back edges (NextIteration → Merge) are
    patched in once their source exists."""
    g = tf.get_default_graph()
    pending = list(nodes)
    patches = []
    while pending:
        progress = False
        rest = []
        for name, op_type, inputs, attrs in pending:
            data = [i for i in inputs if not i.startswith("^")]
            ctrl = [i[1:] for i in inputs if i.startswith("^")]

            def tensor(ref):
                op_name, _, idx = ref.partition(":")
                op = g._ops_by_name.get(op_name)
                return None if op is None else op.outputs[int(idx or 0)]

            tensors = [tensor(i) for i in data]
            missing = [k for k, t in enumerate(tensors) if t is None]
            if missing and not (op_type in ("Merge", "RefMerge") and 0 not in missing):
                rest.append((name, op_type, inputs, attrs))
                continue
            if any(g._ops_by_name.get(c) is None for c in ctrl):
                rest.append((name, op_type, inputs, attrs))
                continue
            for k in missing:  # a loop Merge's back edge: patched below
                tensors[k] = tensors[0]
                patches.append((name, k, data[k]))
            kw = {k: _attr(v) for k, v in attrs.items()}
            opdef = op_registry.get(op_type)
            out_dtypes = _output_dtypes(opdef, dict(kw), tensors)
            op = g.create_op(op_type, tensors, out_dtypes, name=name + "/", attrs=kw)
            for c in ctrl:
                op._add_control_input(g._ops_by_name[c])
            progress = True
        if not progress:
            raise AssertionError(f"cannot import: {[n[0] for n in rest][:5]}")
        pending = rest
    for name, k, ref in patches:
        op_name, _, idx = ref.partition(":")
        g._ops_by_name[name]._update_input(k, g._ops_by_name[op_name].outputs[int(idx or 0)])


@pytest.mark.parametrize("name", programs.GRAPH_DEF_PROGRAMS)
def test_tensorflow_graph_def_runs(name):
    # Names of the fetched tensors, from building the program once with flowloom itself.
    probe = tf.Graph()
    with probe.as_default():
        fetches, feeds = programs.PROGRAMS[name](tf)
    fetch_names = {k: v.name for k, v in fetches.items() if isinstance(v, tf.Tensor)}
    op_names = [v.name for v in fetches.values() if isinstance(v, tf.Operation)]
    g = tf.Graph()
    with g.as_default():
        _import(GRAPHS["graph_def/" + name])
        with tf.Session() as sess:
            for k, feed in enumerate(feeds):
                for op_name in op_names:
                    sess.run(g.get_operation_by_name(op_name))
                got = sess.run({key: g.get_tensor_by_name(n) for key, n in fetch_names.items()},
                               feed)
                for key, v in got.items():
                    np.testing.assert_allclose(v, VALUES[f"{name}/{k}/{key}"], rtol=2e-5,
                                               atol=1e-6, err_msg=f"{name} {key}")


@pytest.mark.parametrize("name", programs.GRAPH_DEF_PROGRAMS)
def test_tensorflow_graph_def_imports_with_import_graph_def(name):
    """The serialized GraphDef TF wrote, through tf.import_graph_def (back edges included)."""
    probe = tf.Graph()
    with probe.as_default():
        fetches, feeds = programs.PROGRAMS[name](tf)
    fetch_names = {k: v.name for k, v in fetches.items() if isinstance(v, tf.Tensor)}
    op_names = [v.name for v in fetches.values() if isinstance(v, tf.Operation)]
    graph_def = tf.GraphDef.FromString(VALUES[f"graph_def_pb/{name}"].tobytes())
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(graph_def, name="")
        assert any(op.type == "NextIteration" for op in g.get_operations())
        with tf.Session() as sess:
            for k, feed in enumerate(feeds):
                for op_name in op_names:
                    sess.run(g.get_operation_by_name(op_name))
                got = sess.run({key: g.get_tensor_by_name(n) for key, n in fetch_names.items()},
                               feed)
                for key, v in got.items():
                    np.testing.assert_allclose(v, VALUES[f"{name}/{k}/{key}"], rtol=2e-5,
                                               atol=1e-6, err_msg=f"{name} {key}")


def _gradients_after_import(meta, loss_name, x_names, feed):
    g = tf.Graph()
    with g.as_default():
        tf.train.import_meta_graph(meta)
        loss = g.get_tensor_by_name(loss_name)
        grads = tf.gradients(loss, [g.get_tensor_by_name(n) for n in x_names])
        with tf.Session() as sess:
            return sess.run([loss] + grads, feed)


def test_tensorflow_meta_graph_contexts_allow_gradients():
    """TF's MetaGraphDef stores the cond/while contexts; rebuilt, they let tf.gradients
    differentiate through the imported loops, with TF's values."""
    probe = tf.Graph()
    with probe.as_default():
        loss_name, x_names, feed = programs.meta_graph_forward(tf)
    meta = tf.MetaGraphDef.FromString(VALUES["meta_graph_pb"].tobytes())
    got = _gradients_after_import(meta, loss_name, x_names, feed)
    for k, v in enumerate(got):
        np.testing.assert_allclose(v, VALUES[f"meta_graph/{k}"], rtol=2e-5, atol=1e-6)


def test_exported_meta_graph_round_trip_keeps_contexts():
    g = tf.Graph()
    with g.as_default():
        loss_name, x_names, feed = programs.meta_graph_forward(tf)
        meta = tf.train.export_meta_graph()
    assert "while_context" in meta.collection_def
    tf_meta = tf.MetaGraphDef.FromString(VALUES["meta_graph_pb"].tobytes())
    from flowloom.proto import control_flow_pb2

    def contexts(m, key, proto):  # parsed: the order of map entries in bytes is not fixed
        return [proto.FromString(raw) for raw in m.collection_def[key].bytes_list.value]

    for key, proto in (("while_context", control_flow_pb2.WhileContextDef),
                       ("cond_context", control_flow_pb2.CondContextDef)):
        assert contexts(meta, key, proto) == contexts(tf_meta, key, proto)  # TF's, exactly
    got = _gradients_after_import(meta, loss_name, x_names, feed)
    for k, v in enumerate(got):
        np.testing.assert_allclose(v, VALUES[f"meta_graph/{k}"], rtol=2e-5, atol=1e-6)
