"""as_graph_def encodes NodeDefs as TF does (compared with TF 2.21's recorded GraphDefs)."""

import os

import numpy as np
import pytest
from google.protobuf import text_format
from graphdef_helpers import graph_def_differences, graphdef_programs, load_pbtxt

import flowloom as tf
from flowloom.framework import tensor_proto
from flowloom.proto import graph_pb2, tensor_pb2, types_pb2


@pytest.mark.parametrize("prog", graphdef_programs.PROGRAMS, ids=lambda p: p.__name__)
def test_graph_def_matches_tensorflow(prog):
    want = load_pbtxt(prog.__name__[len("prog_"):] + ".pbtxt")
    got = prog(tf).as_graph_def(add_shapes=True)
    assert graph_def_differences(want, got) == []
    assert got.versions.producer == want.versions.producer


@pytest.mark.parametrize("prog", [graphdef_programs.prog_saver,
                                  graphdef_programs.prog_saver_sharded],
                         ids=lambda p: p.__name__)
def test_saver_def_matches_tensorflow(prog):
    saver_def = prog(tf).saver_for_test.as_saver_def()
    name = prog.__name__[len("prog_"):] + "_def.pbtxt"
    with open(os.path.join(os.path.dirname(__file__), "..", "data", "graphdef", name)) as f:
        want = text_format.Parse(f.read(), tf.train.SaverDef())
    assert saver_def == want


def test_node_def_inputs_devices_and_control_inputs():
    a = tf.constant(1.0, name="a")
    with tf.device("/cpu:0"):
        b = tf.identity(a, name="b")
    d = tf.no_op(name="d")
    with tf.control_dependencies([b, d]):
        c = tf.add(a, b, name="c")  # b is a data input already: no control edge from it
    node = c.op.node_def
    assert list(node.input) == ["a", "b", "^d"]
    assert b.op.node_def.device == "/device:CPU:0"
    assert node.attr["T"].type == types_pb2.DT_FLOAT
    assert "_output_shapes" not in node.attr
    text = str(c.op)
    assert text.startswith('name: "c"') and 'op: "Add"' in text  # TF 1.15's tf.add


def test_output_shapes_only_when_asked():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    tf.identity(x, name="y")
    plain = tf.get_default_graph().as_graph_def()
    shaped = tf.get_default_graph().as_graph_def(add_shapes=True)
    assert all("_output_shapes" not in n.attr for n in plain.node)
    dims = [d.size for d in shaped.node[1].attr["_output_shapes"].list.shape[0].dim]
    assert dims == [-1, 3]


def test_float_attr_given_as_int_is_encoded_as_float():
    from flowloom.framework.graph_def import attr_value_from_python

    assert attr_value_from_python(1, default=0.5).WhichOneof("value") == "f"
    assert attr_value_from_python([1, 2], default=[0.5]).list.f == [1.0, 2.0]
    assert attr_value_from_python([]).HasField("list")
    with pytest.raises(TypeError):
        attr_value_from_python(object())


@pytest.mark.parametrize("value, field", [
    (np.arange(6, dtype=np.float32).reshape(2, 3), "tensor_content"),
    (np.float32(2.5), "float_val"),
    (np.array([7], np.int64), "int64_val"),
    (np.array([True, False]), "bool_val"),
    (np.array([1 + 2j, 3j], np.complex64), "scomplex_val"),
    (np.array([b"a", b"\x00b"], object), "string_val"),
    (np.array([1.5, -2], np.float16), "half_val"),  # TF 1.15: half is never raw bytes
    (np.float16(1.5), "half_val"),
    (np.array([1, 2], np.uint8), "tensor_content"),
    (np.array(3, np.uint32), "uint32_val"),
])
def test_tensor_proto_round_trip(value, field):
    proto = tensor_proto.from_numpy(value)
    assert len(getattr(proto, field))
    back = tensor_proto.to_numpy(proto)
    assert back.dtype == np.asarray(value).dtype or value.dtype == object
    assert back.shape == np.shape(value)
    assert np.array_equal(back, value)


def test_tensor_proto_repeats_last_value_like_tf():
    proto = tensor_proto.from_numpy(0.0, dtype=tf.float32, shape=[2, 3])
    assert list(proto.float_val) == [0.0]
    assert np.array_equal(tensor_proto.to_numpy(proto), np.zeros([2, 3], np.float32))
    proto = tensor_pb2.TensorProto(dtype=types_pb2.DT_INT32, int_val=[1, 2])
    proto.tensor_shape.dim.add(size=4)
    assert tensor_proto.to_numpy(proto).tolist() == [1, 2, 2, 2]
    assert tf.make_ndarray(tf.make_tensor_proto([[1, 2]])).tolist() == [[1, 2]]


def test_tensor_proto_claiming_a_huge_shape_is_an_error():
    proto = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[1.0])
    for size in (1 << 40, 1 << 20):
        proto.tensor_shape.dim.add(size=size)
    with pytest.raises(ValueError, match="over the .*limit"):
        tensor_proto.to_numpy(proto)


@pytest.mark.parametrize("mutate, match", [
    (lambda p: p.tensor_shape.dim.add(size=-1), "negative dimension"),
    (lambda p: setattr(p, "tensor_content", b"\x00" * 7), "tensor_content holds 7 bytes"),
    (lambda p: p.float_val.extend([1, 2, 3]), "3 values given"),
])
def test_tensor_proto_bad_content(mutate, match):
    proto = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT)
    proto.tensor_shape.dim.add(size=2)
    mutate(proto)
    with pytest.raises(ValueError, match=match):
        tensor_proto.to_numpy(proto)


def test_write_graph_binary_and_text(tmp_path):
    tf.identity(tf.constant([1.5, 2.0], name="c"), name="out")
    g = tf.get_default_graph()
    binary = tf.train.write_graph(g, str(tmp_path / "sub"), "graph.pb", as_text=False)
    text = tf.train.write_graph(g.as_graph_def(), str(tmp_path), "graph.pbtxt")
    with open(binary, "rb") as f:
        from_binary = graph_pb2.GraphDef.FromString(f.read())
    with open(text) as f:
        from_text = text_format.Parse(f.read(), graph_pb2.GraphDef())
    assert from_binary == from_text == g.as_graph_def()
    assert sorted(os.listdir(tmp_path)) == ["graph.pbtxt", "sub"]  # no temporary files left


def test_variable_to_proto_and_back():
    with tf.name_scope("outer"):
        v = tf.Variable(1.0, name="v")
    proto = v.to_proto()
    assert (proto.variable_name, proto.initializer_name, proto.snapshot_name,
            proto.initial_value_name) == ("outer/v:0", "outer/v/Assign", "outer/v/read:0",
                                          "outer/v/initial_value:0")
    assert v.to_proto(export_scope="outer").variable_name == "v:0"
    assert v.to_proto(export_scope="elsewhere") is None
