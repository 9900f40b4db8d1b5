"""Slicing: Slice, StridedSlice (and `tensor[...]` with NumPy's basic indexing), their gradients."""

import builtins

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import (Tensor)
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import Dimension, TensorShape, unknown_shape
from flowloom.framework.tensor_util import constant_value, constant_value_as_shape
from flowloom.framework.shape_eval import input_value, input_value_as_shape


_builtin_slice = builtins.slice

from flowloom.ops.array.array_ops import concat, constant, rank, reshape, shape, stack
from flowloom.ops.array.manip_ops import pad



# -- Slice, StridedSlice -----------------------------------------------------------------------------
Slice = defop("Slice", inputs=["input: T", "begin: Index", "size: Index"], outputs=["output: T"])


@Slice.shape
def _(op):
    """TF's Slice shape function: exact where the sizes are known (a -1 takes the rest of the
    dimension after a known begin), else the sizes' partly known values."""
    x, b, sz = op._inputs
    begin = input_value_as_shape(b)
    sizes = input_value(sz)
    if sizes is not None:
        dims = x._shape.as_list() if x._shape.ndims is not None else [None] * np.size(sizes)
        out = []
        for i, size in enumerate(np.ravel(sizes)):
            size = int(size)
            if size == -1:
                d = dims[i] if i < len(dims) else None
                start = begin[i].value if begin.ndims is not None and i < begin.ndims else None
                out.append(None if d is None or start is None else d - start)
            elif size < 0:
                raise ValueError(f"Out of bounds slicing on dimension {i} of length {dims[i]}: "
                                 f"sizes vector cannot be < -1, but was {size}")
            else:
                out.append(size)
        return TensorShape(out)
    partial = input_value_as_shape(sz)
    if partial.ndims is not None:
        return partial
    return unknown_shape(x._shape.ndims)


@Slice.kernel
def _(xp, x, begin, size):
    if np.ndim(begin) != 1 or np.ndim(size) != 1 or np.size(begin) != x.ndim or \
            np.size(size) != x.ndim:
        raise errors.InvalidArgumentError(
            None, None, "Expected begin and size arguments to be 1-D tensors of size "
            f"{x.ndim}, but got shapes {list(np.shape(begin))} and {list(np.shape(size))} "
            "instead.".replace(" ", " "))
    begin, size = np.ravel(begin).tolist(), np.ravel(size).tolist()
    idx = tuple(_builtin_slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))
    for b, s, d in zip(begin, size, x.shape):
        if b < 0 or (s != -1 and b + s > d):
            raise errors.InvalidArgumentError(
                None, None, f"Expected size[i] in [0, {d - b}], but got {s}")
    return x[idx]


def _slice_specialize(op, consts, general):
    """A constant size with a computed begin (a random crop): each run checks the begin
    against the input's dims and slices; anything else runs the general kernel."""
    size = consts[2]
    if size is None or consts[1] is not None or np.ndim(size) != 1:
        return None
    sizes = np.ravel(size).tolist()
    rank = len(sizes)

    def slice_to_constant_size(x, begin, size_):
        if type(x) is not np.ndarray or x.ndim != rank or type(begin) is not np.ndarray or \
                begin.shape != (rank,):
            return general(x, begin, size_)
        idx = []
        for b, s, d in zip(begin.tolist(), sizes, x.shape):
            if b < 0 or (s != -1 and b + s > d):
                return general(x, begin, size_)  # its error
            idx.append(_builtin_slice(b, None if s == -1 else b + s))
        return x[tuple(idx)]
    return slice_to_constant_size


Slice.kernel_fn.specialize = _slice_specialize


def slice(input_, begin, size, name=None):  # noqa: A001 - TF's name
    return apply_op("Slice", (input_, begin, size), name=name).outputs[0]


@Slice.gradient
def _(op, grad):
    """grad padded with zeros back to the input's shape."""
    x, begin, _ = op._inputs
    index_dtype = begin.dtype.base_dtype
    slice_size = shape(op._outputs[0], out_type=index_dtype)
    rank_shape = stack([rank(x), 1])
    before = reshape(begin, rank_shape)
    after = reshape(shape(x, out_type=index_dtype) - slice_size - begin, rank_shape)
    return pad(grad, concat([before, after], 1)), None, None


StridedSlice = defop("StridedSlice", inputs=["input: T", "begin: Index", "end: Index",
                                             "strides: Index"], outputs=["output: T"],
                     attrs={"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0,
                            "new_axis_mask": 0, "shrink_axis_mask": 0})


def _python_index(nd, begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                  shrink_axis_mask):
    """The Python index tuple equivalent to a StridedSlice over a rank-`nd` input."""
    idx = []
    n_specs = len(begin)
    real = sum(1 for i in range(n_specs)
               if not (new_axis_mask >> i) & 1 and not (ellipsis_mask >> i) & 1)
    for i in range(n_specs):
        if (ellipsis_mask >> i) & 1:
            idx.append(Ellipsis)
            continue
        if (new_axis_mask >> i) & 1:
            idx.append(None)
            continue
        if (shrink_axis_mask >> i) & 1:
            idx.append(int(begin[i]))
            continue
        b = None if (begin_mask >> i) & 1 else int(begin[i])
        e = None if (end_mask >> i) & 1 else int(end[i])
        idx.append(_builtin_slice(b, e, int(strides[i])))
    del real
    return tuple(idx)




def strided_slice_np(xp, x, begin, end, strides, *, begin_mask=0, end_mask=0, ellipsis_mask=0,
                     new_axis_mask=0, shrink_axis_mask=0):
    x = np.asarray(x) if xp is np else x
    idx = _python_index(x.ndim, begin, end, strides, begin_mask, end_mask, ellipsis_mask,
                        new_axis_mask, shrink_axis_mask)
    for i, s in enumerate(strides):
        if int(s) == 0:
            raise errors.InvalidArgumentError(None, None, f"strides[{i}] must be non-zero")
    # Shrunk indices must be in range, as TF checks.
    dim = 0
    for i, k in enumerate(idx):
        if k is Ellipsis:
            dim += x.ndim - sum(1 for j in idx if j is not None and j is not Ellipsis)
            continue
        if k is None:
            continue
        if dim >= x.ndim:
            raise errors.InvalidArgumentError(
                None, None, f"Index out of range using input dim {dim}; input has only "
                f"{x.ndim} dims")
        if isinstance(k, int):
            n = x.shape[dim]
            if k < -n or k >= n:
                raise errors.InvalidArgumentError(
                    None, None, f"slice index {k} of dimension {dim} out of bounds.")
        dim += 1
    return x[idx]


def _strided_slice_specialize(op, consts, general):
    """Constant begin/end/strides: the index for an input shape is made (and checked by the
    general kernel) the first time that shape comes; later inputs of it are indexed at once."""
    if consts[0] is not None or any(c is None for c in consts[1:]):
        return None
    masks = [op._attrs.get(k, 0) for k in _MASKS]
    by_shape = {}

    def slice_by_constants(x, begin, end, strides):
        if type(x) is np.ndarray:
            idx = by_shape.get(x.shape)
            if idx is not None:
                return x[idx]
        r = general(x, begin, end, strides)
        if type(x) is np.ndarray and len(by_shape) < 16:
            by_shape[x.shape] = _python_index(x.ndim, begin, end, strides, *masks)
        return r
    return slice_by_constants


StridedSlice.kernel(strided_slice_np)
strided_slice_np.specialize = _strided_slice_specialize


_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


@StridedSlice.gradient
def _(op, grad):
    x, begin, end, strides = op._inputs
    x_shape = shape(x, out_type=begin.dtype.base_dtype)
    from flowloom.ops.random.random_ops import seed_rules

    if seed_rules() != "1":
        # TF 2.x: statically known vectors become Consts of the grad op
        # (`StridedSliceGrad/begin`); TF 1.15 passes the op's own inputs (no ops more, which
        # its default op seeds count)
        x_shape, begin, end, strides = (t if v is None else v for t, v in (
            (t, constant_value(t)) for t in (x_shape, begin, end, strides)))
    return [apply_op("StridedSliceGrad", (x_shape, begin, end, strides, grad),
                     **{k: op._attrs[k] for k in _MASKS}).outputs[0], None, None, None]


StridedSliceGrad = defop("StridedSliceGrad", inputs=["shape: Index", "begin: Index",
                                                     "end: Index", "strides: Index", "dy: T"],
                         outputs=["output: T"],
                         attrs={"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0,
                                "new_axis_mask": 0, "shrink_axis_mask": 0})
StridedSliceGrad.shape(lambda op: constant_value_as_shape(op._inputs[0]))


@StridedSliceGrad.kernel
def _(xp, shape, begin, end, strides, dy, **masks):
    out = xp.zeros(tuple(int(d) for d in shape), dtype=dy.dtype)
    idx = _python_index(out.ndim, begin, end, strides, **masks)
    view_shape = out[idx].shape
    out[idx] = dy.reshape(view_shape)
    return out


StridedSliceGrad.kernel_attrs = _MASKS


@StridedSliceGrad.gradient
def _(op, grad):
    _, begin, end, strides, _ = op._inputs
    return [None, None, None, None, strided_slice(
        grad, begin, end, strides, **{k: op._attrs[k] for k in _MASKS})]


def _partial_values(t, n):
    """The elements of a 1-D index tensor, None where an element is not known statically."""
    v = constant_value(t)
    if v is not None:
        return [int(x) for x in np.ravel(v)]
    if t._op._type == "Pack":
        out = []
        for x in t._op._inputs:
            xv = constant_value(x)
            out.append(None if xv is None else int(xv))
        return out
    return [None] * n


@StridedSlice.shape
def _(op):
    x, b, e, s = op._inputs
    a = op._attrs
    if x._shape.ndims is None or b._shape.ndims is None or b._shape[0].value is None:
        return unknown_shape()
    n = b._shape[0].value
    if bin(a["ellipsis_mask"]).count("1") > 1:
        raise ValueError("Multiple ellipses in slice spec not allowed")
    bv, ev, sv = (_partial_values(t, n) for t in (b, e, s))
    dims = x._shape.as_list()
    result = []
    dim = 0
    n_real = sum(1 for i in range(n) if not (a["new_axis_mask"] >> i) & 1
                 and not (a["ellipsis_mask"] >> i) & 1)
    for i in range(n):
        if (a["ellipsis_mask"] >> i) & 1:
            for _ in range(len(dims) - n_real):
                result.append(dims[dim])
                dim += 1
            continue
        if (a["new_axis_mask"] >> i) & 1:
            result.append(1)
            continue
        if dim >= len(dims):
            raise ValueError(f"Index out of range using input dim {dim}; input has only "
                             f"{len(dims)} dims")
        d = dims[dim]
        if (a["shrink_axis_mask"] >> i) & 1:
            if d is not None and bv[i] is not None and not -d <= bv[i] < d:
                raise ValueError(f"slice index {bv[i]} of dimension {dim} out of bounds.")
            dim += 1
            continue
        stride = sv[i]
        if stride == 0:
            raise ValueError("strides must be non-zero")
        begin = None if (a["begin_mask"] >> i) & 1 else bv[i]
        end = None if (a["end_mask"] >> i) & 1 else ev[i]
        unknown = d is None or stride is None or (begin is None and not (a["begin_mask"] >> i) & 1) \
            or (end is None and not (a["end_mask"] >> i) & 1)
        result.append(None if unknown else len(range(d)[_builtin_slice(begin, end, stride)]))
        dim += 1
    result.extend(dims[dim:])
    return TensorShape(result)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    from flowloom.ops.state import slice_assign_ops

    if strides is None:
        if isinstance(begin, (list, tuple)):
            strides = [1] * len(begin)
        else:  # a begin tensor: strides of its shape (TF's ones_like(begin))
            from flowloom.ops.array.array_ops import ones_like

            strides = ones_like(begin)
    masks = dict(begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                 new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)
    out = apply_op("StridedSlice", (input_, begin, end, strides), name=name, **masks).outputs[0]
    # As TF, the slice can be assigned to when it was taken from a variable (`var`).
    parent_name = name if name is not None else out.op.name
    return slice_assign_ops.mark_slice(out, var, begin, end, strides, masks, parent_name)


def _as_index(part):
    if isinstance(part, Dimension):
        return part.value if part.value is None else int(part)
    return part


_SLICE_TYPE_ERROR = (
    "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
    "tf.int32/tf.int64 tensors are valid indices")


def _check_index(idx):
    """TypeError (TF's message) unless `idx` can be a slice bound or a shrinking index."""
    if isinstance(idx, (int, np.integer, Dimension)) and not isinstance(idx, bool):
        return
    dtype = getattr(idx, "dtype", None)
    try:
        ok = dtype is not None and dtypes.as_dtype(dtype).base_dtype in (dtypes.int32,
                                                                        dtypes.int64)
    except TypeError:
        ok = False
    shape = getattr(idx, "shape", None)
    # As TF: a scalar or unknown-rank index tensor is accepted (a vector is not).
    if not ok or (shape is not None and getattr(shape, "ndims", None) not in (0, None)):
        raise TypeError(_SLICE_TYPE_ERROR + f", got {idx!r}")


def _slice_helper(tensor, slice_spec, var=None):
    """`tensor[slice_spec]` with NumPy's basic indexing semantics, as a StridedSlice op (a
    boolean mask, as in TF, selects with `boolean_mask`)."""
    if isinstance(slice_spec, bool) or \
            (isinstance(slice_spec, Tensor) and slice_spec.dtype.base_dtype == dtypes.bool_) or \
            (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool):
        from flowloom.ops.array.gather_ops import boolean_mask

        return boolean_mask(tensor=tensor, mask=slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for i, s in enumerate(slice_spec):
        if isinstance(s, np.ndarray) and s.ndim == 0 and s.dtype.kind in "iu":
            s = int(s)  # a 0-d integer array indexes as its integer (TF)
        if isinstance(s, _builtin_slice):
            # As TF: a known `Dimension` (anything with __index__) is an integer index.
            s = _builtin_slice(*(_as_index(p) for p in (s.start, s.stop, s.step)))
            for part in (s.start, s.stop, s.step):
                if part is not None:
                    _check_index(part)
            begin.append(0 if s.start is None else s.start)
            end.append(0 if s.stop is None else s.stop)
            strides.append(1 if s.step is None else s.step)
            if s.start is None:
                begin_mask |= 1 << i
            if s.stop is None:
                end_mask |= 1 << i
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= 1 << i
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= 1 << i
        elif isinstance(s, (int, np.integer)) and not isinstance(s, bool):
            begin.append(int(s))
            end.append(int(s) + 1)
            strides.append(1)
            shrink_axis_mask |= 1 << i
        elif isinstance(s, Tensor):
            _check_index(s)
            begin.append(s)
            end.append(s + 1)  # as TF: the `+` operator (AddV2 named "add")
            strides.append(1)
            shrink_axis_mask |= 1 << i
        else:
            _check_index(s)
            raise TypeError(_SLICE_TYPE_ERROR + f", got {s!r}")
    with name_scope(None, "strided_slice", [tensor] + begin + end + strides) as scope:
        if begin:
            packed_begin, packed_end, packed_strides = (stack(begin), stack(end),
                                                        stack(strides))
            if dtypes.int64 in (packed_begin.dtype, packed_end.dtype, packed_strides.dtype):
                from flowloom.ops.math.math_ops import cast

                packed_begin, packed_end, packed_strides = (
                    t if t.dtype == dtypes.int64 else cast(t, dtypes.int64)
                    for t in (packed_begin, packed_end, packed_strides))
        else:
            empty = constant([], dtype=dtypes.int32)
            packed_begin = packed_end = packed_strides = empty
        return strided_slice(tensor, packed_begin, packed_end, packed_strides,
                             begin_mask=begin_mask, end_mask=end_mask,
                             ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                             shrink_axis_mask=shrink_axis_mask, var=var, name=scope)


Tensor._override_operator("__getitem__", _slice_helper)


def strided_slice_grad(shape, begin, end, strides, dy, begin_mask=0, end_mask=0,
                       ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, name=None):
    """The gradient of StridedSlice: `dy` placed in a zero tensor of `shape` at the slice."""
    return apply_op("StridedSliceGrad", (shape, begin, end, strides, dy), name=name,
                    begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                    new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask).outputs[0]
