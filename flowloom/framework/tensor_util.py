"""Static values and shapes: what can be known about a tensor before running it."""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework import tensor_shape
from flowloom.framework.ops import Tensor

# Folding at graph-construction time stays small: a Fill or Range whose value would hold more
# elements than this is "not known statically" (TF's shape inference also bounds it), so a
# hostile `tf.fill([4e7], 1)` costs nothing until it runs.
MAX_FOLDED_ELEMENTS = 1 << 20
# The largest rank a shape tensor may give (TF's limit in shape inference).
MAX_RANK = 1 << 25


def constant_value(tensor, partial=False, _strict=False):
    """The value of `tensor` if it can be computed at graph-construction time, else None.

    With `partial`, a Pack (axis 0) of partly known values gives an object array with None
    for the unknown ones, as TF's constant_value(partial=True). Beyond TF 1.15's rules it
    also sees through Identity/StopGradient and folds StridedSlice (`shape(x)[i]`), which
    flowloom's library code relies on; `_strict` keeps to TF's rules (constant_value_as_shape
    uses them, so `c[...]` has no known dims, as in TF)."""
    if not isinstance(tensor, Tensor):
        # As TF: a value that is no tensor is its own value; a Variable (tensor-like, its
        # op a variable op) has none.
        return None if is_tensor(tensor) else tensor
    op = tensor._op
    t = op._type
    if t == "Const":
        return op._attrs["value"]
    if t == "Shape":
        s = op._inputs[0]._shape
        if s.is_fully_defined():
            return np.array(s.as_list(), dtype=op._attrs["out_type"].as_numpy_dtype)
        return None
    if t == "Size":
        s = op._inputs[0]._shape
        if s.is_fully_defined():
            return np.array(s.num_elements(), dtype=op._attrs["out_type"].as_numpy_dtype)
        return None
    if t == "Rank":
        s = op._inputs[0]._shape
        return None if s.ndims is None else np.array(s.ndims, dtype=np.int32)
    if t == "Pack":
        if not op._inputs or op._attrs["axis"] != 0:  # TF folds only axis-0 Packs
            return None
        vals = [constant_value(x, partial, _strict) for x in op._inputs]
        if partial and any(v is None for v in vals):
            # TF's partial value: the known elements, None for the others.
            out = np.empty(len(vals), dtype=object)
            out[:] = [None if v is None else v for v in vals]
            return out
        if any(v is None for v in vals):
            return None
        return np.stack(vals, axis=op._attrs["axis"])
    if t in ("Identity", "StopGradient"):
        return None if _strict else constant_value(op._inputs[0])
    if t in ("Equal", "NotEqual"):  # as TF: both sides known
        a, b = (constant_value(x, _strict=_strict) for x in op._inputs)
        if a is None or b is None:
            return None
        return np.equal(a, b) if t == "Equal" else np.not_equal(a, b)
    if t == "Cast":
        v = constant_value(op._inputs[0], _strict=_strict)
        return None if v is None else v.astype(op._attrs["DstT"].as_numpy_dtype)
    if t == "ConcatV2":
        vals = [constant_value(x, _strict=_strict) for x in op._inputs]
        if any(v is None for v in vals):
            return None
        return np.concatenate(vals[:-1], axis=int(vals[-1]))
    if t == "Fill":
        dims, value = (constant_value(x, _strict=_strict) for x in op._inputs)
        if dims is None or value is None or np.ndim(dims) != 1 or np.any(dims < 0):
            return None
        size = 1
        for d in dims.tolist():
            size *= int(d)
        if size > MAX_FOLDED_ELEMENTS:
            return None
        return np.full(dims, value)
    if t == "Range":
        vals = [constant_value(x, _strict=_strict) for x in op._inputs]
        if any(v is None or np.ndim(v) != 0 for v in vals):
            return None
        start, limit, delta = (v.item() for v in vals)
        if delta == 0 or abs((limit - start) / delta) > MAX_FOLDED_ELEMENTS:
            return None
        return np.arange(start, limit, delta).astype(op._outputs[0]._dtype.as_numpy_dtype)
    if t == "StridedSlice" and not _strict:
        # shape(x)[i] is common in user code: evaluate on the constant input when possible.
        vals = [constant_value(x) for x in op._inputs]
        if any(v is None for v in vals):
            return None
        from flowloom.ops.array.array_ops import strided_slice_np

        return strided_slice_np(np, *vals, **{k: op._attrs[k] for k in (
            "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")})
    return None


def constant_value_as_shape(tensor, _see_captures=True):
    """A TensorShape from a 1-D shape tensor, with unknown dims where values are unknown.

    Raises:
      ValueError: for a tensor of rank 2 or more, or a scalar other than a known -1 (TF's
        "unknown shape"), as TF's.
    """
    if isinstance(tensor, Tensor):
        op = tensor._op
        value = op._attrs.get("value") if op._type == "Const" else None
        if value.__class__ is np.ndarray and value.ndim == 1 and value.dtype.kind == "i":
            # (the usual shape: a Const of ints, read without constant_value's checks)
            return tensor_shape.TensorShape([None if d == -1 else d for d in value.tolist()])
        if tensor._shape.ndims == 0:
            value = constant_value(tensor)
            if value is None:
                raise ValueError("Received a scalar with unknown value as shape; require a "
                                 "statically known scalar with value '-1' to describe an "
                                 "unknown shape.")
            if value != -1:
                raise ValueError(f"Received a scalar value '{value}' as shape; require a "
                                 "statically known scalar with value '-1' to describe an "
                                 "unknown shape.")
            return tensor_shape.unknown_shape()
        tensor._shape.with_rank(1)
    v = constant_value(tensor, _strict=True)
    if v is not None:
        return tensor_shape.TensorShape([None if d == -1 else int(d) for d in np.ravel(v)])
    op = tensor._op
    if op._type == "Pack":
        dims = []
        for x in op._inputs:
            xv = constant_value(x, _strict=True)
            dims.append(None if xv is None or int(xv) == -1 else int(xv))
        return tensor_shape.TensorShape(dims)
    if op._type == "Shape":
        return op._inputs[0]._shape
    if op._type == "Placeholder" and op._graph._building_function and _see_captures:
        # As TF: inside a function graph a captured outer tensor's Placeholder has the
        # outer tensor's value (fed arguments may differ from call to call: not those).
        # Shape functions do not look (`_see_captures`): TF's C++ inference cannot.
        for inner, outer in zip(getattr(op._graph, "placeholders", ()),
                                getattr(op._graph, "captured", ())):
            if inner is tensor:
                return constant_value_as_shape(outer)
    if op._type == "StridedSlice":
        sliced = _sliced_shape(op)
        if sliced is not None:
            return sliced
    if op._type == "ConcatV2":
        s = tensor_shape.scalar()
        for x in op._inputs[:-1]:
            s = s.concatenate(constant_value_as_shape(x))
        return s
    n = tensor._shape[0].value if tensor._shape.ndims == 1 else None
    if n is not None and n > MAX_RANK:
        raise errors.InternalError(
            None, None, f"Cannot create a tensor with {n} dimensions, as these would be more "
            f"than maximum of {MAX_RANK}")
    return tensor_shape.unknown_shape(n)


# TF's switch for maybe_set_static_shape (its tests turn it off).
_ENABLE_MAYBE_SET_STATIC_SHAPE = True


def maybe_set_static_shape(tensor, shape):
    """Sets `tensor`'s static shape to the known value of `shape` when building a function:
    TF's workaround for shapes across function boundaries (a reshape to a captured constant
    shape). Elsewhere the op's shape function has already done it."""
    from flowloom.framework.graph import get_default_graph

    if (_ENABLE_MAYBE_SET_STATIC_SHAPE and get_default_graph()._building_function
            and not tensor._shape.is_fully_defined() and is_tensor(shape)):
        tensor.set_shape(constant_value_as_shape(shape_tensor(shape)))


def _sliced_shape(op):
    """TF's constant_value_as_shape of a 1-D slice `shape[begin:end:stride]` (begin/end
    masks only), or None."""
    vals = [constant_value(x, _strict=True) for x in op._inputs[1:]]
    if any(v is None or np.shape(v) != (1,) for v in vals):
        return None
    begin, end, stride = (int(v[0]) for v in vals)
    a = op._attrs
    if a["ellipsis_mask"] or a["new_axis_mask"] or a["shrink_axis_mask"] or \
            a["begin_mask"] not in (0, 1) or a["end_mask"] not in (0, 1):
        return None
    whole = constant_value_as_shape(op._inputs[0])
    if whole.ndims is None:
        return None
    dims = whole.dims[None if a["begin_mask"] else begin:None if a["end_mask"] else end:stride]
    return tensor_shape.TensorShape(dims)


def shape_tensor(shape):
    """An int32 (int64 where needed) tensor of `shape` (a list, tuple or TensorShape whose
    Dimensions are unwrapped); an empty list is an empty int32 tensor."""
    from flowloom.framework.ops import convert_to_tensor

    dtype = None
    if isinstance(shape, (tuple, list)):
        if not shape:
            dtype = dtypes.int32
        else:
            shape = tuple(tensor_shape.dimension_value(d) for d in shape)
    return convert_to_tensor(shape, dtype=dtype, name="shape")


def make_ndarray(tensor_proto):
    """The NumPy array a TensorProto holds (`tf.make_ndarray`): a writable array of its own,
    as TF's."""
    from flowloom.framework.tensor_proto import to_numpy

    if tensor_proto.dtype == dtypes.variant.as_datatype_enum:
        raise TypeError("Tensorflow type 21 (variant) not convertible to numpy dtype.")
    array = to_numpy(tensor_proto)
    return array if array.flags.writeable else array.copy()


MakeNdarray = make_ndarray  # TF's other name


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False):
    """A TensorProto of `values` (`tf.make_tensor_proto`; see tensor_proto.from_numpy)."""
    from flowloom.framework.tensor_proto import from_numpy

    return from_numpy(values, dtype=dtype, shape=shape, verify_shape=verify_shape)


def ShapeEquals(tensor_proto, shape):  # noqa: N802 - TF's name
    """Whether the shape of `tensor_proto` is `shape` (a list, tuple or TensorShapeProto)."""
    if hasattr(shape, "dim"):  # a TensorShapeProto
        shape = [d.size for d in shape.dim]
    elif not isinstance(shape, (list, tuple)):
        raise TypeError("shape is not a list")
    return [d.size for d in tensor_proto.tensor_shape.dim] == list(shape)


def is_tensor(x):
    """Whether `x` is a Tensor or tensor-like (a Variable, SparseTensor, IndexedSlices)."""
    from flowloom.framework.op_construction import is_dense_tensor_like
    from flowloom.framework.ops import Tensor

    return isinstance(x, Tensor) or is_dense_tensor_like(x) or \
        hasattr(x, "_to_components") or getattr(x, "is_tensor_like", False)
