"""Segment reductions and Unique: how sparse (IndexedSlices) gradients become dense."""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.framework.tensor_util import constant_value
from flowloom.ops.array import array_ops

# -- UnsortedSegment{Sum,Prod,Min,Max} ---------------------------------------------------------
def _unsorted_shape(op):
    data, ids, num = op._inputs
    if num._shape.ndims is not None and num._shape.ndims != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {num._shape.ndims} for "
                         f"'{op._name}' (op: '{op.type}')")
    n = constant_value(num)
    if n is not None and int(n) < 0:
        raise ValueError(f"Dimension size, given by scalar input 2, must be non-negative but "
                         f"is {int(n)}")
    if data._shape.ndims is None or ids._shape.ndims is None:
        return unknown_shape()
    k = ids._shape.ndims
    if not data._shape[:k].is_compatible_with(ids._shape):
        raise ValueError(f"Dimensions must be equal, but are {data._shape[:k]} and "
                         f"{ids._shape}")
    return TensorShape([None if n is None else int(n)] + data._shape.as_list()[k:])


def _shape_string(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _slice_string(shape, flat):
    """TF's SliceDebugString: the multi-index of element `flat` of `shape`, as `[i,j]`."""
    if not shape:
        return ""
    return "[" + ",".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]"


def _unsorted_kernel(reducer, initial):
    def kernel(xp, data, segment_ids, num_segments):
        if np.ndim(num_segments) != 0:
            raise errors.InvalidArgumentError(
                None, None, "num_segments should be a scalar, not shape "
                f"{_shape_string(np.shape(num_segments))}")
        if data.shape[:segment_ids.ndim] != segment_ids.shape:
            raise errors.InvalidArgumentError(
                None, None, f"data.shape = {_shape_string(data.shape)} does not start with "
                f"segment_ids.shape = {_shape_string(segment_ids.shape)}")
        n = int(np.reshape(num_segments, ()))
        if n < 0:
            raise errors.InvalidArgumentError(
                None, None, f"Input num_segments == {n} must not be negative.")
        ids = segment_ids.reshape(-1)
        rows = data.reshape((ids.size,) + data.shape[segment_ids.ndim:])
        out = np.full((n,) + rows.shape[1:], initial(data.dtype), dtype=data.dtype)
        if not rows.size:
            return out
        if ids.size and ids.max() >= n:
            i = int(np.argmax(ids >= n))
            raise errors.InvalidArgumentError(
                None, None, f"segment_ids{_slice_string(segment_ids.shape, i)} = "
                f"{int(ids[i])} is out of range [0, {n})")
        keep = ids >= 0  # TF drops negative ids
        if not keep.all():
            ids, rows = ids[keep], rows[keep]
        if reducer is np.add and ids.size and np.unique(ids).size == ids.size:
            out[ids] = rows
        else:
            with np.errstate(all="ignore"):
                reducer.at(out, ids, rows)
        return out
    return kernel


def _lowest(dtype):
    # tf's DType.min: NumPy's finfo/iinfo, and TF's range for bfloat16 (ml_dtypes' type).
    return dtypes.as_dtype(dtype).min


def _highest(dtype):
    return dtypes.as_dtype(dtype).max


_REAL = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint8, dtypes.int16, dtypes.int8,
         dtypes.int64, dtypes.bfloat16, dtypes.uint16, dtypes.float16, dtypes.uint32,
         dtypes.uint64)
UNSORTED_OPS = {}
for _type, _reducer, _initial, _types in (
        ("UnsortedSegmentSum", np.add, lambda d: 0, None),
        ("UnsortedSegmentProd", np.multiply, lambda d: 1, None),
        ("UnsortedSegmentMax", np.maximum, _lowest, _REAL),
        ("UnsortedSegmentMin", np.minimum, _highest, _REAL)):
    _od = UNSORTED_OPS[_type] = defop(
        _type, inputs=["data: T", "segment_ids: Tindices", "num_segments: Tnumsegments"],
        outputs=["output: T"], attrs={"Tnumsegments": dtypes.int32},
        allowed_types={"T": _types} if _types else None)
    _od.shape(_unsorted_shape)
    _od.kernel(_unsorted_kernel(_reducer, _initial))
UnsortedSegmentSum = UNSORTED_OPS["UnsortedSegmentSum"]


@UnsortedSegmentSum.gradient
def _(op, grad):
    return [_gather_drop_negatives(grad, op._inputs[1])[0], None, None]


def _gather_drop_negatives(params, ids, zero_clipped_indices=None, is_positive=None):
    """(params[ids] with zeros where ids < 0, the clipped ids, the mask of kept rows shaped to
    broadcast): rows dropped by a segment reduction get no gradient."""
    from flowloom.ops.math import math_ops

    if zero_clipped_indices is None:
        zero_clipped_indices = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered = array_ops.gather(params, zero_clipped_indices)
    if is_positive is None:
        is_positive = math_ops.greater_equal(ids, 0)
        positive_shape = array_ops.shape(is_positive)
        broadcastable = array_ops.concat(
            [positive_shape,
             array_ops.ones([array_ops.rank(gathered) - array_ops.rank(is_positive)],
                            dtype=positive_shape.dtype.base_dtype)], axis=0)
        is_positive = array_ops.reshape(is_positive, broadcastable)
        is_positive = math_ops.logical_and(
            is_positive, array_ops.ones_like(gathered, dtype=dtypes.bool_))
    zero_slice = array_ops.zeros_like(gathered)
    return (array_ops.where(is_positive, gathered, zero_slice), zero_clipped_indices,
            is_positive)


def _unsorted_min_or_max_grad(op, grad):
    from flowloom.ops.math import math_ops

    data, ids, num = op._inputs
    gathered_outputs, zero_clipped_indices, is_positive = _gather_drop_negatives(
        op.outputs[0], ids)
    is_selected = math_ops.logical_and(math_ops.equal(data, gathered_outputs), is_positive)
    num_selected = unsorted_segment_sum(math_ops.cast(is_selected, grad.dtype), ids, num)
    weighted_grads = math_ops.divide(grad, num_selected)
    gathered_grads, _, _ = _gather_drop_negatives(weighted_grads, None, zero_clipped_indices,
                                                  is_positive)
    zeros = array_ops.zeros_like(gathered_grads)
    return [array_ops.where(is_selected, gathered_grads, zeros), None, None]


UNSORTED_OPS["UnsortedSegmentMax"].gradient(_unsorted_min_or_max_grad)
UNSORTED_OPS["UnsortedSegmentMin"].gradient(_unsorted_min_or_max_grad)


@UNSORTED_OPS["UnsortedSegmentProd"].gradient
def _(op, grad):
    from flowloom.ops.math import math_ops

    data, ids, num = op._inputs
    is_zero = math_ops.equal(data, math_ops.cast(0, data.dtype))
    num_zeros = unsorted_segment_sum(math_ops.cast(is_zero, dtypes.int32), ids, num)
    # a segment with more than one zero has a zero gradient everywhere
    grad = array_ops.where(math_ops.greater(num_zeros, 1), array_ops.zeros_like(grad), grad)
    non_zero_data = array_ops.where(is_zero, array_ops.ones_like(data), data)
    non_zero_prod = unsorted_segment_prod(non_zero_data, ids, num)
    zero_clipped_indices = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered_prod = array_ops.gather(op.outputs[0], zero_clipped_indices)
    gathered_non_zero_prod = array_ops.gather(non_zero_prod, zero_clipped_indices)
    prod_divided_by_el = gathered_prod / data  # may hold nan/inf where data is 0
    partial_derivative = array_ops.where(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    gathered_grad = _gather_drop_negatives(grad, ids, zero_clipped_indices)[0]
    return [gathered_grad * partial_derivative, None, None]


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums the rows of `data` into `num_segments` segments given by `segment_ids`.

    `output[i] = sum(data[j] for j where segment_ids[j] == i)`; negative ids are dropped.
    """
    return apply_op("UnsortedSegmentSum", (data, segment_ids, num_segments),
                    name=name).outputs[0]


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """The product of the rows of `data` per segment id (ids in any order, negative ids
    dropped; empty segments are 1)."""
    return apply_op("UnsortedSegmentProd", (data, segment_ids, num_segments),
                    name=name).outputs[0]


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """The maximum of the rows of `data` per segment id (empty segments: the dtype's lowest
    value)."""
    return apply_op("UnsortedSegmentMax", (data, segment_ids, num_segments),
                    name=name).outputs[0]


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """The minimum of the rows of `data` per segment id (empty segments: the dtype's highest
    value)."""
    return apply_op("UnsortedSegmentMin", (data, segment_ids, num_segments),
                    name=name).outputs[0]


# -- Unique ------------------------------------------------------------------------------------------
Unique = defop("Unique", inputs=["x: T"], outputs=["y: T", "idx: out_idx"],
               attrs={"out_idx": dtypes.int32})


@Unique.shape
def _(op):
    x = op._inputs[0]._shape
    if x.ndims is not None and x.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {x.ndims}")
    return [unknown_shape(1), x if x.ndims is not None else unknown_shape(1)]


@Unique.kernel
def _(xp, x, *, out_idx):
    if x.ndim != 1:
        raise errors.InvalidArgumentError(None, None, "unique expects a 1D vector.")
    values, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    # TF orders the unique values by first occurrence, not by value.
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return values[order], rank[inverse.reshape(-1)].astype(out_idx.as_numpy_dtype)


Unique.no_gradient()


def unique(x, out_idx=dtypes.int32, name=None):
    """The distinct values `y` of 1-D `x` in order of appearance, and `idx` with x = y[idx]."""
    return apply_op("Unique", (x,), name=name, out_idx=dtypes.as_dtype(out_idx)).outputs


UniqueWithCounts = defop("UniqueWithCounts", inputs=["x: T"],
                         outputs=["y: T", "idx: out_idx", "count: out_idx"],
                         attrs={"out_idx": dtypes.int32})


@UniqueWithCounts.shape
def _(op):
    y, idx = Unique.shape_fn(op)
    return [y, idx, unknown_shape(1)]


@UniqueWithCounts.kernel
def _(xp, x, *, out_idx):
    y, idx = Unique.kernel_fn(xp, x, out_idx=out_idx)
    return y, idx, np.bincount(idx, minlength=y.size).astype(out_idx.as_numpy_dtype)


UniqueWithCounts.no_gradient()


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """`unique(x)` and how often each distinct value occurs: (y, idx, count)."""
    return apply_op("UniqueWithCounts", (x,), name=name,
                    out_idx=dtypes.as_dtype(out_idx)).outputs


# -- UniqueV2, UniqueWithCountsV2: the distinct slices along an axis -----------------------------
def _unique_along(x, axis):
    if axis.ndim != 1:
        raise errors.InvalidArgumentError(None, None, "axis expects a 1D vector.")
    if axis.size > 1:
        raise errors.InvalidArgumentError(
            None, None, "axis does not support input tensors larger than 1 elements")
    if axis.size == 0:
        if x.ndim != 1:
            raise errors.InvalidArgumentError(None, None, "unique expects a 1D vector.")
        a = 0
    else:
        a = int(axis[0])
        if a < 0:
            a += x.ndim
        if not 0 <= a < x.ndim:
            raise errors.InvalidArgumentError(
                None, None, f"axis has to be between [0, {x.ndim})")
    moved = np.moveaxis(x, a, 0)
    rows = moved.reshape(moved.shape[0], -1)
    if rows.shape[1] == 1 or not rows.size:
        _, first, inverse = np.unique(rows.reshape(-1) if rows.shape[1] == 1 else
                                      np.zeros(rows.shape[0]), return_index=True,
                                      return_inverse=True)
    else:
        _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    # TF orders the distinct slices by first occurrence.
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    y = np.moveaxis(moved[first[order]], 0, a)
    return y, rank[inverse.reshape(-1)]


def _unique_v2_shape(op):
    x = op._inputs[0]._shape
    return [unknown_shape(1), x]


UniqueV2 = defop("UniqueV2", inputs=["x: T", "axis: Taxis"], outputs=["y: T", "idx: out_idx"],
                 attrs={"out_idx": dtypes.int32, "Taxis": dtypes.int64},
                 allowed_types={"Taxis": (dtypes.int32, dtypes.int64)})
UniqueV2.shape(_unique_v2_shape)
UniqueV2.no_gradient()


@UniqueV2.kernel
def _(xp, x, axis, *, out_idx):
    y, idx = _unique_along(x, axis)
    return y, idx.astype(out_idx.as_numpy_dtype)


UniqueWithCountsV2 = defop(
    "UniqueWithCountsV2", inputs=["x: T", "axis: Taxis"],
    outputs=["y: T", "idx: out_idx", "count: out_idx"],
    attrs={"out_idx": dtypes.int32, "Taxis": dtypes.int64},
    allowed_types={"Taxis": (dtypes.int32, dtypes.int64)})
UniqueWithCountsV2.shape(lambda op: _unique_v2_shape(op) + [unknown_shape(1)])
UniqueWithCountsV2.no_gradient()


@UniqueWithCountsV2.kernel
def _(xp, x, axis, *, out_idx):
    y, idx = _unique_along(x, axis)
    counts = np.bincount(idx, minlength=np.shape(y)[int(axis[0]) % x.ndim if axis.size else 0])
    return y, idx.astype(out_idx.as_numpy_dtype), counts.astype(out_idx.as_numpy_dtype)


def unique_v2(x, axis, out_idx=dtypes.int32, name=None):
    """The distinct slices of `x` along `axis[0]` (a 1-D x when `axis` is empty), in order of
    first appearance, and `idx` mapping each slice of x to its distinct slice."""
    return apply_op("UniqueV2", (x, axis), name=name, out_idx=dtypes.as_dtype(out_idx)).outputs


def unique_with_counts_v2(x, axis, out_idx=dtypes.int32, name=None):
    """`unique_v2(x, axis)` and how often each distinct slice occurs: (y, idx, count)."""
    return apply_op("UniqueWithCountsV2", (x, axis), name=name,
                    out_idx=dtypes.as_dtype(out_idx)).outputs
