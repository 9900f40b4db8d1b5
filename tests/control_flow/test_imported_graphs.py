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
