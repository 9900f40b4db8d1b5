"""TensorInfo: how a SignatureDef names a tensor (TF's `tf.saved_model.utils`)."""

from flowloom.framework.ops import Tensor
from flowloom.framework.sparse_tensor import SparseTensor
from flowloom.framework.tensor_shape import unknown_shape
from flowloom.proto import meta_graph_pb2


def build_tensor_info(tensor):
    """Returns the `TensorInfo` proto of a Tensor or SparseTensor.

    Args:
      tensor: a Tensor, or a SparseTensor (stored as its three component tensors).

    Returns:
      A `TensorInfo` with the tensor's name (or COO components), dtype and shape.

    Example:
      info = tf.saved_model.utils.build_tensor_info(x)   # name "x:0", dtype DT_FLOAT
    """
    if isinstance(tensor, SparseTensor):
        info = meta_graph_pb2.TensorInfo(dtype=tensor.dtype.as_datatype_enum,
                                         tensor_shape=_shape(tensor).as_proto())
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
        return info
    if not isinstance(tensor, Tensor):
        raise TypeError(f"build_tensor_info takes a Tensor or SparseTensor, not {tensor!r}")
    return meta_graph_pb2.TensorInfo(name=tensor.name, dtype=tensor.dtype.as_datatype_enum,
                                     tensor_shape=tensor.get_shape().as_proto())


def _shape(sparse):
    from flowloom.framework.tensor_util import constant_value

    dims = constant_value(sparse.dense_shape)
    if dims is None:
        return unknown_shape(sparse.dense_shape.get_shape().num_elements())
    from flowloom.framework.tensor_shape import TensorShape

    return TensorShape([int(d) for d in dims])


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """Returns the Tensor or SparseTensor a `TensorInfo` names, in `graph`.

    Args:
      tensor_info: a `TensorInfo` proto.
      graph: the Graph holding the tensor (default: the default graph).
      import_scope: prefix the names with this scope (as `load(import_scope=)` did).

    Raises:
      KeyError: `tensor_info` has neither a name nor COO components.
    """
    from flowloom.framework.graph import get_default_graph

    graph = graph if graph is not None else get_default_graph()

    def by_name(name):
        if import_scope:
            name = f"{import_scope}/{name}"
        return graph.get_tensor_by_name(name)

    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return by_name(tensor_info.name)
    if encoding == "coo_sparse":
        coo = tensor_info.coo_sparse
        return SparseTensor(by_name(coo.indices_tensor_name), by_name(coo.values_tensor_name),
                            by_name(coo.dense_shape_tensor_name))
    raise KeyError(f"Invalid TensorInfo.encoding: {encoding}")

