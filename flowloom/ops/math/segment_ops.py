"""Segment reductions and Unique: how sparse (IndexedSlices) gradients become dense."""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.framework.tensor_util import constant_value
from flowloom.ops.array import array_ops

# -- UnsortedSegmentSum ------------------------------------------------------------------------
UnsortedSegmentSum = defop(
    "UnsortedSegmentSum", inputs=["data: T", "segment_ids: Tindices",
                                  "num_segments: Tnumsegments"],
    outputs=["output: T"], attrs={"Tnumsegments": dtypes.int32})


@UnsortedSegmentSum.shape
def _(op):
    data, ids, num = op._inputs
    n = constant_value(num)
    if data._shape.ndims is None or ids._shape.ndims is None:
        return unknown_shape()
    k = ids._shape.ndims
    if not data._shape[:k].is_compatible_with(ids._shape):
        raise ValueError(f"Dimensions must be equal, but are {data._shape[:k]} and "
                         f"{ids._shape}")
    return TensorShape([None if n is None else int(n)] + data._shape.as_list()[k:])


@UnsortedSegmentSum.kernel
def unsorted_segment_sum_np(xp, data, segment_ids, num_segments):
    n = int(num_segments)
    ids = segment_ids.reshape(-1)
    if ids.size and ids.max() >= n:
        i = int(np.argmax(ids >= n))
        raise errors.InvalidArgumentError(
            None, None, f"segment_ids[{i}] = {int(ids[i])} is out of range [0, {n})")
    rows = data.reshape((ids.size,) + data.shape[segment_ids.ndim:])
    out = xp.zeros((n,) + rows.shape[1:], dtype=data.dtype)
    keep = ids >= 0  # TF drops negative ids
    if not keep.all():
        ids, rows = ids[keep], rows[keep]
    if ids.size and np.unique(ids).size == ids.size:
        out[ids] = rows
    else:
        np.add.at(out, ids, rows)
    return out


@UnsortedSegmentSum.gradient
def _(op, grad):
    return [_gather_drop_negatives(grad, op._inputs[1]), None, None]


def _gather_drop_negatives(params, ids):
    """params[ids] with zeros where ids < 0 (rows dropped by a segment reduction)."""
    from flowloom.ops.math import math_ops

    clipped = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered = array_ops.gather(params, clipped)
    is_positive = math_ops.greater_equal(ids, 0)
    positive_shape = array_ops.shape(is_positive)
    broadcastable = array_ops.concat(
        [positive_shape, array_ops.ones([array_ops.rank(gathered) - array_ops.rank(is_positive)],
                                        dtype=positive_shape.dtype.base_dtype)], axis=0)
    is_positive = array_ops.reshape(is_positive, broadcastable)
    is_positive = math_ops.logical_and(is_positive, array_ops.ones_like(is_positive))
    return array_ops.where(is_positive, gathered, array_ops.zeros_like(gathered))


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums the rows of `data` into `num_segments` segments given by `segment_ids`.

    `output[i] = sum(data[j] for j where segment_ids[j] == i)`; negative ids are dropped.
    """
    return apply_op("UnsortedSegmentSum", (data, segment_ids, num_segments),
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
