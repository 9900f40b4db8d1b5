"""Graph → GraphDef: NodeDef protos with TensorFlow's attr encoding.

`node_def_from_op(op)` is what `op.node_def` returns and what `RunMetadata.partition_graphs`
is made of; `graph_to_graph_def(graph)` is `graph.as_graph_def()`.
"""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.tensor_shape import TensorShape


def _protos():
    from flowloom.proto import attr_value_pb2, graph_pb2, node_def_pb2, tensor_pb2, \
        versions_pb2  # noqa: PLC0415 - protobuf is only needed to export graphs

    return attr_value_pb2, graph_pb2, node_def_pb2, tensor_pb2, versions_pb2


def tensor_proto_from_array(array, dtype=None):
    """A TensorProto holding `array` (numbers as `tensor_content`, strings as `string_val`)."""
    _, _, _, tensor_pb2, _ = _protos()
    array = np.asarray(array)
    if dtype is None:
        dtype = dtypes.as_dtype(array.dtype) if array.dtype != object else dtypes.string
    proto = tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum)
    proto.tensor_shape.CopyFrom(TensorShape(array.shape).as_proto())
    if dtype.base_dtype is dtypes.string:
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode()
                                for v in array.reshape(-1))
    elif array.size == 1 and array.ndim == 0:
        _scalar_field(proto, dtype, array)
    else:
        proto.tensor_content = np.ascontiguousarray(
            array, dtype=dtype.as_numpy_dtype).tobytes()
    return proto


def _scalar_field(proto, dtype, array):
    v = array.item()
    if dtype in (dtypes.float32,):
        proto.float_val.append(v)
    elif dtype is dtypes.float64:
        proto.double_val.append(v)
    elif dtype is dtypes.bool_:
        proto.bool_val.append(v)
    elif dtype is dtypes.int64:
        proto.int64_val.append(v)
    elif dtype in (dtypes.int32, dtypes.int16, dtypes.int8, dtypes.uint8, dtypes.uint16):
        proto.int_val.append(v)
    else:
        proto.tensor_content = np.ascontiguousarray(array, dtype=dtype.as_numpy_dtype).tobytes()


def attr_value(value):
    """Encodes a Python attr value as TF's AttrValue (bool b, int i, float f, bytes s, DType
    type, TensorShape shape, ndarray tensor, lists of these)."""
    attr_value_pb2 = _protos()[0]
    a = attr_value_pb2.AttrValue()
    if isinstance(value, bool):
        a.b = value
    elif isinstance(value, (int, np.integer)):
        a.i = int(value)
    elif isinstance(value, (float, np.floating)):
        a.f = float(value)
    elif isinstance(value, str):
        a.s = value.encode()
    elif isinstance(value, bytes):
        a.s = value
    elif isinstance(value, dtypes.DType):
        a.type = value.as_datatype_enum
    elif isinstance(value, TensorShape):
        a.shape.CopyFrom(value.as_proto())
    elif isinstance(value, np.ndarray):
        a.tensor.CopyFrom(tensor_proto_from_array(value))
    elif isinstance(value, (list, tuple)):
        a.list.SetInParent()
        for v in value:
            if isinstance(v, bool):
                a.list.b.append(v)
            elif isinstance(v, (int, np.integer)):
                a.list.i.append(int(v))
            elif isinstance(v, (float, np.floating)):
                a.list.f.append(float(v))
            elif isinstance(v, (str, bytes)):
                a.list.s.append(v.encode() if isinstance(v, str) else v)
            elif isinstance(v, dtypes.DType):
                a.list.type.append(v.as_datatype_enum)
            elif isinstance(v, TensorShape):
                a.list.shape.add().CopyFrom(v.as_proto())
            else:
                raise NotImplementedError(f"AttrValue list element of type {type(v).__name__}")
    elif value is None:
        pass
    else:
        raise NotImplementedError(f"AttrValue of type {type(value).__name__}")
    return a


def node_def_from_op(op, device=None, inputs=None):
    """The NodeDef of `op`: name, type, inputs (`x`, `x:1`, `^ctrl`), device and attrs.

    Args:
      op: an Operation.
      device: the device string to write (default: `op.device`).
      inputs: input strings to write instead of the op's own (partition graphs use them).
    """
    _, _, node_def_pb2, _, _ = _protos()
    nd = node_def_pb2.NodeDef(name=op._name, op=op._type,
                              device=op._device if device is None else device)
    if inputs is None:
        inputs = [t._as_node_def_input() for t in op._inputs] + [
            "^" + c._name for c in op._control_inputs]
    nd.input.extend(inputs)
    for k, v in op._attrs.items():
        if v is None:
            continue
        nd.attr[k].CopyFrom(attr_value(v))
    return nd


def versions_def(producer=27, min_consumer=0):
    versions_pb2 = _protos()[4]
    return versions_pb2.VersionDef(producer=producer, min_consumer=min_consumer)


def graph_to_graph_def(graph, add_shapes=False):
    """`graph.as_graph_def()`: a GraphDef with every op, in creation order."""
    _, graph_pb2, _, _, _ = _protos()
    gd = graph_pb2.GraphDef()
    for op in graph._ops:
        nd = node_def_from_op(op)
        if add_shapes and op._outputs:
            shapes = [t._shape.as_proto() for t in op._outputs]
            nd.attr["_output_shapes"].list.shape.extend(shapes)
        gd.node.append(nd)
    gd.versions.CopyFrom(versions_def())
    return gd
