"""TensorProto <-> numpy array, as `tf.make_tensor_proto` and `tf.make_ndarray` convert them.

Encoding follows TF's `make_tensor_proto`: numeric arrays of more than one element go into
`tensor_content` (raw little-endian bytes), scalars, one-element arrays, bools, complex
numbers and strings into the typed `*_val` fields.

Decoding never trusts the header: the number of elements a shape claims is checked against
`MAX_TENSOR_BYTES` before anything is allocated, so a proto that claims a huge shape with
little content is an error, not an allocation. As in TF, fewer `*_val` values than elements
means "repeat the last value" (that is how `tf.zeros([1000, 1000])` is stored).
"""

import numpy as np

from flowloom.framework import dtypes, variant
from flowloom.proto import tensor_pb2, tensor_shape_pb2, types_pb2

# TF's protos cannot exceed 2 GiB; no valid tensor decodes larger than that.
MAX_TENSOR_BYTES = 1 << 31

# dtypes whose multi-element arrays TF 1.15 stores as raw bytes (`_TENSOR_CONTENT_TYPES`;
# half and uint16 go value by value, in half_val and int_val).
_CONTENT_TYPES = frozenset([
    types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE, types_pb2.DT_INT32, types_pb2.DT_UINT8,
    types_pb2.DT_INT16, types_pb2.DT_INT8, types_pb2.DT_INT64, types_pb2.DT_UINT32,
    types_pb2.DT_UINT64,
])

# The quantized dtypes (TF's structured NumPy types of one integer field): stored as raw
# bytes like the integers they hold, one by one in int_val.
_QUANTIZED = {types_pb2.DT_QINT8: np.int8, types_pb2.DT_QUINT8: np.uint8,
              types_pb2.DT_QINT16: np.int16, types_pb2.DT_QUINT16: np.uint16,
              types_pb2.DT_QINT32: np.int32}
_CONTENT_TYPES = _CONTENT_TYPES | frozenset(_QUANTIZED)
_QUANTIZED_BY_NP = {np.dtype(dtypes.as_dtype(e).as_numpy_dtype): dtypes.as_dtype(e)
                    for e in _QUANTIZED}

# dtype enum -> the TensorProto field holding its values one by one.
_VAL_FIELD = {
    types_pb2.DT_HALF: "half_val", types_pb2.DT_FLOAT: "float_val",
    types_pb2.DT_DOUBLE: "double_val", types_pb2.DT_INT32: "int_val",
    types_pb2.DT_UINT8: "int_val", types_pb2.DT_INT16: "int_val", types_pb2.DT_INT8: "int_val",
    types_pb2.DT_UINT16: "int_val", types_pb2.DT_INT64: "int64_val",
    types_pb2.DT_UINT32: "uint32_val", types_pb2.DT_UINT64: "uint64_val",
    types_pb2.DT_BOOL: "bool_val", types_pb2.DT_STRING: "string_val",
    types_pb2.DT_COMPLEX64: "scomplex_val", types_pb2.DT_COMPLEX128: "dcomplex_val",
    types_pb2.DT_BFLOAT16: "half_val",  # the 16 bits of each value, as TF 1.15 stores them
    **{enum: "int_val" for enum in _QUANTIZED},
}


def shape_to_proto(shape):
    """TensorShapeProto of a tuple of ints (None or -1 for unknown dims)."""
    proto = tensor_shape_pb2.TensorShapeProto()
    for d in shape:
        proto.dim.add(size=-1 if d is None else int(d))
    return proto


def from_numpy(values, dtype=None, shape=None, verify_shape=False):
    """Returns a TensorProto holding `values`, encoded as TF's `make_tensor_proto` does.

    Args:
      values: a numpy array or Python value.
      dtype: optional DType (or anything `tf.as_dtype` takes).
      shape: optional shape; fewer values than it holds are stored as given and the last
        one repeats (a single value is stored once), as TF does.
      verify_shape: require `values` to have exactly `shape` (TypeError otherwise).

    Returns:
      A `TensorProto`.

    Raises:
      TypeError: for values of a type a TensorProto cannot hold.
      ValueError: if `values` does not fit `shape`, or holds more than 2 GiB.
    """
    from flowloom.framework.ops import infer_dtype, tensor_value_to_numpy

    if isinstance(values, np.ndarray) and values.dtype in _QUANTIZED_BY_NP and dtype is None:
        dtype = _QUANTIZED_BY_NP[values.dtype]
    if isinstance(values, tensor_pb2.TensorProto):
        return values  # as TF: a TensorProto is already one
    if isinstance(values, variant.Variant) or variant.is_variant_array(values):
        dtype = dtypes.variant
    dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else infer_dtype(values)
    if dtype is dtypes.variant:
        array = np.asarray(values, dtype=object)
        proto = tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum,
                                       tensor_shape=shape_to_proto(array.shape))
        variant.append_to_proto(proto, array.reshape(-1))
        return proto
    if dtype.as_numpy_dtype is None or dtype.as_datatype_enum not in _VAL_FIELD:
        raise TypeError(f"Cannot create a TensorProto of dtype {dtype.name}")
    if dtype.as_datatype_enum in _QUANTIZED:
        array = _quantized_array(values, dtype)
    else:
        array = tensor_value_to_numpy(values, dtype)
    proto = tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum)
    if shape is None:
        shape = array.shape
    else:
        shape = tuple(int(d) for d in shape)
        size = int(np.prod(shape, dtype=object)) if shape else 1
        if verify_shape and array.shape != shape:
            raise TypeError(f"Expected Tensor's shape: {shape}, got {array.shape}.")
        if array.size == size:
            array = array.reshape(shape)
        elif array.size > size:
            raise ValueError(f"Too many elements provided. Needed at most {size}, but "
                             f"received {array.size}")
        elif array.size > 1:  # fewer values: stored as given, readers repeat the last one
            proto.tensor_shape.CopyFrom(shape_to_proto(shape))
            _append_values(proto, dtype.as_datatype_enum, array.reshape(-1))
            return proto
    proto.tensor_shape.CopyFrom(shape_to_proto(shape))
    enum = dtype.as_datatype_enum
    if array.size > 1 and not any(array.strides):
        # One value broadcast over the shape (a decoded fill): stored once, as TF stores it.
        _append_values(proto, enum, np.asarray(array[(0,) * array.ndim]).reshape(1))
        return proto
    if enum in _CONTENT_TYPES and array.size > 1:
        if array.nbytes >= MAX_TENSOR_BYTES:
            raise ValueError("Cannot create a tensor proto whose content is larger than 2GB.")
        proto.tensor_content = np.ascontiguousarray(array).astype(
            array.dtype.newbyteorder("<"), copy=False).tobytes()
        return proto
    _append_values(proto, enum, array.reshape(-1))
    return proto


def _quantized_array(values, dtype):
    """An array of TF's structured NumPy type for a quantized dtype: the values must be
    tuples (one number each) or such an array, as TF 1.15 takes them."""
    npt = np.dtype(dtype.as_numpy_dtype)
    if isinstance(values, np.ndarray) and values.dtype == npt:
        return values

    def check(v):
        if isinstance(v, list):
            for x in v:
                check(x)
        elif not isinstance(v, tuple):
            raise TypeError(f"Expected {dtype.name}, got {v!r} of type '{type(v).__name__}' "
                            "instead.")
    check(values)
    return np.array(values, dtype=npt)


def _append_values(proto, enum, flat):
    field = getattr(proto, _VAL_FIELD[enum])
    if enum in _QUANTIZED:
        field.extend(flat.view(flat.dtype[0]).tolist())
    elif enum == types_pb2.DT_HALF:
        field.extend(flat.astype(np.float16).view(np.uint16).tolist())
    elif enum == types_pb2.DT_BFLOAT16:
        field.extend(flat.astype(dtypes.bfloat16.as_numpy_dtype).view(np.uint16).tolist())
    elif enum in (types_pb2.DT_COMPLEX64, types_pb2.DT_COMPLEX128):
        field.extend(np.stack([flat.real, flat.imag], axis=-1).reshape(-1).tolist())
    elif enum == types_pb2.DT_STRING:
        field.extend(v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in flat)
    else:
        field.extend(flat.tolist())


def _shape_of(proto, what):
    shape = []
    if proto.tensor_shape.unknown_rank:
        raise ValueError(f"{what}: a tensor value must have a known shape")
    for d in proto.tensor_shape.dim:
        if d.size < 0:
            raise ValueError(f"{what}: a tensor value has a negative dimension ({d.size})")
        shape.append(d.size)
    # As TF, the running product is checked dimension by dimension (a later 0 does not help).
    entries = 1
    for d in shape:
        entries *= d
        if entries > 2**63 - 1:
            raise ValueError(f"{what}: shape [{','.join(map(str, shape))}] is too large (more "
                             "than 2**63 - 1 entries)")
    return tuple(shape)


def to_numpy(proto, what="TensorProto"):
    """Returns the numpy array a TensorProto holds (`tf.make_ndarray`).

    Args:
      proto: a `TensorProto`.
      what: how to name the tensor in error messages (e.g. "attr 'value' of node c").

    Returns:
      A numpy array (strings: an object array of bytes).

    Raises:
      TypeError: for a dtype flowloom cannot hold in numpy.
      ValueError: for a negative or unknown dimension, content of the wrong size, or a
        shape that needs more than `MAX_TENSOR_BYTES` bytes.
    """
    try:
        dtype = dtypes.as_dtype(proto.dtype)
    except TypeError:
        raise TypeError(f"{what}: unsupported tensor dtype enum {proto.dtype}") from None
    if proto.dtype == types_pb2.DT_VARIANT:
        shape = _shape_of(proto, what)
        num_elements = int(np.prod(shape, dtype=object)) if shape else 1
        if num_elements * 8 > MAX_TENSOR_BYTES:
            raise ValueError(f"{what}: shape {list(shape)} of dtype variant needs "
                             f"{num_elements * 8} bytes, over the {MAX_TENSOR_BYTES}-byte limit "
                             "on a tensor value")
        return variant.array_from_proto(proto, shape, num_elements)
    if dtype.is_ref_dtype or dtype.as_numpy_dtype is None or proto.dtype not in _VAL_FIELD:
        raise TypeError(f"{what}: cannot convert a tensor of dtype {dtype.name} to an array")
    shape = _shape_of(proto, what)
    num_elements = 1
    for d in shape:
        num_elements *= d
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    itemsize = 8 if proto.dtype == types_pb2.DT_STRING else np_dtype.itemsize
    if num_elements * itemsize > MAX_TENSOR_BYTES:
        raise ValueError(f"{what}: shape {list(shape)} of dtype {dtype.name} needs "
                         f"{num_elements * itemsize} bytes, over the {MAX_TENSOR_BYTES}-byte "
                         "limit on a tensor value")
    if proto.tensor_content:
        if proto.dtype not in _CONTENT_TYPES and proto.dtype not in (
                types_pb2.DT_BOOL, types_pb2.DT_COMPLEX64, types_pb2.DT_COMPLEX128,
                types_pb2.DT_BFLOAT16):
            raise ValueError(f"{what}: tensor_content is not allowed for dtype {dtype.name}")
        content = proto.tensor_content
        if len(content) != num_elements * np_dtype.itemsize:
            raise ValueError(f"{what}: tensor_content holds {len(content)} bytes, shape "
                             f"{list(shape)} of dtype {dtype.name} needs "
                             f"{num_elements * np_dtype.itemsize}")
        # A read-only view of the proto's bytes where the byte order already matches: the
        # file's bytes are not held twice.
        array = np.frombuffer(content, dtype=np_dtype.newbyteorder("<")).astype(
            np_dtype, copy=False)
        return array.reshape(shape)
    values = _values(proto, dtype, np_dtype)
    if values.size > num_elements:
        raise ValueError(f"{what}: {values.size} values given for shape {list(shape)} "
                         f"({num_elements} elements)")
    if values.size == num_elements:
        return values.reshape(shape)
    if num_elements == 0:
        return np.zeros(shape, dtype=np_dtype)
    if values.size <= 1:
        # TF: no values means all zeros, one value is repeated. A read-only broadcast view
        # holds it without allocating the shape (a 171-byte GraphDef can claim gigabytes).
        if values.size == 0:
            values = np.array([b"" if proto.dtype == types_pb2.DT_STRING else 0], np_dtype)
        out = np.broadcast_to(values.reshape(()), shape)
        return out
    out = np.empty(num_elements, dtype=np_dtype)
    out[:values.size] = values
    out[values.size:] = values[-1]
    return out.reshape(shape)


def _values(proto, dtype, np_dtype):
    enum = proto.dtype
    raw = getattr(proto, _VAL_FIELD[enum])
    if enum == types_pb2.DT_STRING:
        out = np.empty(len(raw), dtype=object)
        for i, v in enumerate(raw):
            out[i] = bytes(v)
        return out
    if enum == types_pb2.DT_HALF:
        return np.array(raw, dtype=np.uint16).view(np.float16)
    if enum == types_pb2.DT_BFLOAT16:
        return np.array(raw, dtype=np.uint16).view(np_dtype)
    if enum in (types_pb2.DT_COMPLEX64, types_pb2.DT_COMPLEX128):
        parts = np.array(raw, dtype=np_dtype.type(0).real.dtype)
        if parts.size % 2:
            raise ValueError(f"complex tensor value has an odd number ({parts.size}) of parts")
        return (parts[0::2] + 1j * parts[1::2]).astype(np_dtype)
    if enum in _QUANTIZED:
        wide = np.array(raw, dtype=np.int64)
        info = np.iinfo(_QUANTIZED[enum])
        if wide.size and (wide.min() < info.min or wide.max() > info.max):
            raise ValueError(f"a {dtype.name} tensor value holds out-of-range values")
        return wide.astype(_QUANTIZED[enum]).view(np_dtype)
    if enum in (types_pb2.DT_INT8, types_pb2.DT_INT16, types_pb2.DT_UINT8, types_pb2.DT_UINT16):
        wide = np.array(raw, dtype=np.int64)
        info = np.iinfo(np_dtype)
        if wide.size and (wide.min() < info.min or wide.max() > info.max):
            raise ValueError(f"a {dtype.name} tensor value holds out-of-range values")
        return wide.astype(np_dtype)
    return np.array(raw, dtype=np_dtype)
