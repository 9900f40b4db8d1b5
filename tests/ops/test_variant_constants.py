"""DT_VARIANT constants from TensorProtos (AddN, ZerosLike, Print of them), Const.get_attr
giving TensorProtos, Fill's rank checks, Placeholder shapes of producer-21 GraphDefs and
Print's brackets, as TF 1.15.5 answers (its outputs recorded in the literals below)."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.proto import graph_pb2, tensor_pb2


def _variant(values, type_name=b"int", np_type=np.int32, shape=()):
    return tensor_pb2.TensorProto(
        dtype=tf.variant.as_datatype_enum,
        tensor_shape=tf.TensorShape(list(shape)).as_proto(),
        variant_val=[tensor_pb2.VariantTensorDataProto(
            type_name=type_name, metadata=np.array(v, np_type).tobytes()) for v in values])


def _printed(capfd, tensor, data):
    with tf.Session() as sess:
        sess.run(tf.Print(tensor, data, "m: ").op)
    return capfd.readouterr().err.strip().splitlines()[-1]


def test_variant_const_keeps_its_proto_and_prints_as_tf(capfd):
    with tf.Graph().as_default():
        proto = _variant([3])
        c = tf.constant(proto, dtype=tf.float32)  # as TF: the proto's dtype wins
        assert c.dtype == tf.variant and c.shape == []
        assert c.op.get_attr("value") == proto
        total = tf.add_n([c, c, tf.constant(_variant([5]))])
        zeros = tf.zeros_like(c)
        assert zeros.op.type == "ZerosLike"  # never a Const of zeros
        assert _printed(capfd, total, [c, total, zeros]) == (
            "m: [Variant<type: int value: 3>][Variant<type: int value: 11>]"
            "[Variant<type: int value: 0>]")
        with tf.Session() as sess, pytest.raises(
                tf.errors.InternalError, match="type 21 not convertible to numpy dtype"):
            sess.run(c)


def test_variant_primitives_vectors_and_errors_as_tf(capfd):
    with tf.Graph().as_default():
        f = tf.constant(_variant([2.5], b"float", np.float32))
        assert _printed(capfd, f, [tf.add_n([f, f])]) == "m: [Variant<type: float value: 5>]"
        b = tf.constant(_variant([True], b"bool", np.bool_))
        assert _printed(capfd, b, [tf.add_n([b, b])]) == "m: [Variant<type: bool value: 1>]"
        d = tf.constant(_variant([2.5], b"double", np.float64))
        assert _printed(capfd, d, [tf.zeros_like(d)]) == "m: [Variant<type: double value: 0>]"
        few = tf.constant(_variant([1], shape=[4]))
        assert _printed(capfd, few, [few]) == (
            "m: [Variant<type: int value: 1> Variant<type:  value: [empty]> "
            "Variant<type:  value: [empty]>...]")
        mixed = tf.add_n([tf.constant(_variant([3])), f])
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InternalError,
                               match="Variants a and b have different type ids"):
                sess.run(mixed.op)
            for bad in (_variant([3], b"foo"), _variant([3], b"int", np.int64)):
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match="Cannot parse tensor from proto: dtype: DT_VARIANT"):
                    sess.run(tf.identity(tf.constant(bad)).op)


def test_get_attr_value_is_a_tensor_proto():
    with tf.Graph().as_default():
        value = tf.constant([1.5, 2.5]).op.get_attr("value")
        assert isinstance(value, tensor_pb2.TensorProto)
        assert value.dtype == tf.float32.as_datatype_enum
        assert tf.make_ndarray(value).tolist() == [1.5, 2.5]
        assert tf.make_tensor_proto(value) is value


def test_fill_checks_ranks_as_tf():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Shape must be rank 1 but is rank 2 for 'Fill' "
                           r"\(op: 'Fill'\) with input shapes: \[2,2\], \[\]\."):
            tf.fill([[0, 1], [2, 3]], 1.0)
        with pytest.raises(ValueError, match=r"Shape must be rank 0 but is rank 1 for 'Fill_1' "
                           r"\(op: 'Fill'\) with input shapes: \[2\], \[2\]\."):
            tf.fill([3, 2], [1.0, 2.0])


@pytest.mark.parametrize("producer, shape", [(21, None), (22, [])])
def test_placeholder_scalar_shape_of_old_graphdefs_is_unknown(producer, shape):
    with tf.Graph().as_default():
        graph = tf.Graph()
        with graph.as_default():
            tf.placeholder(tf.float32, shape=[], name="p")
        gdef = graph.as_graph_def()
        gdef.versions.producer = producer
        gdef2 = graph_pb2.GraphDef.FromString(gdef.SerializeToString())
        p, = tf.import_graph_def(gdef2, return_elements=["p:0"])
        assert p.shape.as_list() == shape if shape is not None else p.shape.ndims is None
        with tf.Session() as sess:
            if producer == 21:
                assert sess.run(p + 1.0, {p: [1.0, 2.0]}).tolist() == [2.0, 3.0]
            else:
                with pytest.raises(ValueError, match="Cannot feed value of shape"):
                    sess.run(p, {p: [1.0, 2.0]})


def test_print_brackets_scalars_as_tf(capfd):
    with tf.Graph().as_default():
        data = [tf.constant(3.5), tf.constant([1, 2]), tf.constant("ab")]
        assert _printed(capfd, tf.constant(1.0), data) == "m: [3.5][1 2][ab]"
