"""DataType enum values <-> NumPy dtypes for the bytes a tensor bundle stores."""

import numpy as np

from flowloom.proto import types_pb2

# Fixed-width types whose bundle bytes are the little-endian array memory.
NUMPY_DTYPE_OF_ENUM = {
    types_pb2.DT_FLOAT: np.dtype("<f4"),
    types_pb2.DT_DOUBLE: np.dtype("<f8"),
    types_pb2.DT_INT32: np.dtype("<i4"),
    types_pb2.DT_UINT8: np.dtype("u1"),
    types_pb2.DT_INT16: np.dtype("<i2"),
    types_pb2.DT_INT8: np.dtype("i1"),
    types_pb2.DT_COMPLEX64: np.dtype("<c8"),
    types_pb2.DT_INT64: np.dtype("<i8"),
    types_pb2.DT_BOOL: np.dtype("?"),
    types_pb2.DT_UINT16: np.dtype("<u2"),
    types_pb2.DT_COMPLEX128: np.dtype("<c16"),
    types_pb2.DT_HALF: np.dtype("<f2"),
    types_pb2.DT_UINT32: np.dtype("<u4"),
    types_pb2.DT_UINT64: np.dtype("<u8"),
}

_ENUM_OF_KIND_SIZE = {(d.kind, d.itemsize): e for e, d in NUMPY_DTYPE_OF_ENUM.items()}


def numpy_dtype(enum_value):
    """The NumPy dtype of a bundle's fixed-width DataType, or None: bfloat16's (ml_dtypes',
    imported only when a bfloat16 tensor is read) besides NUMPY_DTYPE_OF_ENUM's."""
    found = NUMPY_DTYPE_OF_ENUM.get(enum_value)
    if found is None and enum_value == types_pb2.DT_BFLOAT16:
        from flowloom.framework import dtypes

        np_type = dtypes.bfloat16.as_numpy_dtype
        return None if np_type is None else np.dtype(np_type)
    return found


def enum_for_array(array):
    """Returns the DataType enum value for a NumPy array.

    Bytes, str and object arrays map to DT_STRING.

    Raises:
      TypeError: for dtypes a bundle cannot hold.
    """
    dtype = array.dtype
    if dtype.kind in "SUO":
        return types_pb2.DT_STRING
    if dtype.name == "bfloat16":  # ml_dtypes' type: 2 bytes of float32's top half
        return types_pb2.DT_BFLOAT16
    try:
        return _ENUM_OF_KIND_SIZE[(dtype.kind, dtype.itemsize)]
    except KeyError:
        raise TypeError(f"tensor bundles cannot hold dtype {dtype}") from None


def dtype_name(enum_value):
    """Returns TF's name for a DataType value, e.g. 'DT_FLOAT'."""
    try:
        return types_pb2.DataType.Name(enum_value)
    except ValueError:
        return f"DataType({enum_value})"
