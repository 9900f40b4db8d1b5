"""Operation.get_attr gives each attr kind as TF 1.15 does (tests/data/get_attr_kinds_tf.json,
made by tests/data/record_get_attr_kinds.py): shapes as TensorShapeProto (lists of them too),
tensors as TensorProto, a Defun passed as a func attr as the NameAttrList naming it (the
function added to the graph's library)."""

import json
import os
import sys
import types

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework.apply_op import apply_op
from flowloom.framework.tensor_shape import TensorShape
from flowloom.graph_function.defun import Defun

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import get_attr_kinds_programs  # noqa: E402

with open(os.path.join(DATA, "get_attr_kinds_tf.json")) as f:
    EXPECTED = json.load(f)


def _partitioned_call(args, tout, f):
    return apply_op("PartitionedCall", (args,), Tout=tout, f=f).outputs


GOT = json.loads(json.dumps(get_attr_kinds_programs.program(tf, _partitioned_call, Defun)))


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tf_1_15(key):
    assert GOT[key] == EXPECTED[key]


def test_lists_of_shapes_and_tensors_are_protos():
    from flowloom.framework.op_metadata import attr_value

    op = types.SimpleNamespace(_name="op", _attrs={
        "s": [TensorShape([]), TensorShape([1])], "t": [np.array(1, np.int32)]})
    assert [type(v).__name__ for v in attr_value(op, "s")] == ["TensorShapeProto"] * 2
    (t,) = attr_value(op, "t")
    assert type(t).__name__ == "TensorProto" and tf.make_ndarray(t) == 1
    assert op._attrs["s"][1] == TensorShape([1])  # flowloom's own form is unchanged
