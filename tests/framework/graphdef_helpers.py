"""Shared helpers for the GraphDef tests: TF's recorded files and NodeDef comparison."""

import os
import sys

import numpy as np
from google.protobuf import text_format

from flowloom.framework import graph_def, op_def, tensor_proto, tf1_attrs
from flowloom.proto import graph_pb2

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
GRAPHDEF_DATA = os.path.join(DATA, "graphdef")
sys.path.insert(0, DATA)
import graphdef_programs  # noqa: F401


def load_pbtxt(name):
    with open(os.path.join(GRAPHDEF_DATA, name)) as f:
        return text_format.Parse(f.read(), graph_pb2.GraphDef())


def load_pb(name):
    with open(os.path.join(GRAPHDEF_DATA, name), "rb") as f:
        return graph_pb2.GraphDef.FromString(f.read())


def same_attr(a, b):
    """AttrValues equal; tensors compare by dtype, shape and values (TF may store one
    repeated value where flowloom stores them all)."""
    if a == b:
        return True
    if a.HasField("tensor") and b.HasField("tensor"):
        x, y = tensor_proto.to_numpy(a.tensor), tensor_proto.to_numpy(b.tensor)
        return (a.tensor.dtype == b.tensor.dtype and x.shape == y.shape
                and np.array_equal(x, y))
    return False


# Attrs that the recording TF (2.x) writes and TF 1.15 does not: flowloom writes TF 1.15's.
TF2_ONLY_ATTRS = {"_has_manual_control_dependencies"}


def _later_attr_at_default(node, key):
    """A TF 2 attr that flowloom leaves out of its NodeDefs while it holds its default (TF 1.15
    lacks it: framework/tf1_attrs.py), holding that default in TF's node."""
    if key not in tf1_attrs.ADDED_AFTER_TF1.get(node.op, ()):
        return False
    default = op_def.get(node.op).attr_defaults.get(key)
    return same_attr(node.attr[key], graph_def.attr_value_from_python(default, default))


def graph_def_differences(want, got):
    """Human-readable differences between two GraphDefs' nodes (empty if they match)."""
    diffs = []
    wn, gn = [n.name for n in want.node], [n.name for n in got.node]
    if wn != gn:
        diffs.append(f"node names differ: TF {wn} flowloom {gn}")
    got_by_name = {n.name: n for n in got.node}
    for w in want.node:
        g = got_by_name.get(w.name)
        if g is None:
            continue
        for field in ("op", "device"):
            if getattr(w, field) != getattr(g, field):
                diffs.append(f"{w.name}.{field}: TF {getattr(w, field)!r} "
                             f"flowloom {getattr(g, field)!r}")
        if list(w.input) != list(g.input):
            diffs.append(f"{w.name}.input: TF {list(w.input)} flowloom {list(g.input)}")
        for key in sorted((set(w.attr) - TF2_ONLY_ATTRS) | set(g.attr)):
            if key not in g.attr and key in w.attr and _later_attr_at_default(w, key):
                continue
            if key not in g.attr or key not in w.attr:
                side = "TF" if key in w.attr else "flowloom"
                diffs.append(f"{w.name}: attr {key} only in {side}")
            elif not same_attr(w.attr[key], g.attr[key]):
                diffs.append(f"{w.name}: attr {key}: TF {w.attr[key]} flowloom {g.attr[key]}")
    return diffs
