"""tf.sort and tf.argsort, built on TopKV2 as TF builds them (negated values for ascending
order; other axes transposed to the last)."""

import numpy as np

from flowloom.framework.graph import name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_util import constant_value
from flowloom.ops.array import array_ops


def _descending_sort(values, axis, return_argsort):
    from flowloom.ops.math.math_ops import range_
    from flowloom.ops.math.reduction_ops import top_k

    k = array_ops.shape(values)[axis]
    rank = array_ops.rank(values)
    static_rank = values._shape.ndims
    if axis == -1 or axis + 1 == static_rank:
        top_k_input, transposition = values, None
    else:
        if axis < 0:
            axis += static_rank if static_rank is not None else rank
        if static_rank is not None:
            transposition = array_ops.constant(
                np.r_[np.arange(axis), [static_rank - 1], np.arange(axis + 1, static_rank - 1),
                      [axis]].astype(np.int32), name="transposition")
        else:
            transposition = array_ops.concat(
                [range_(axis), [rank - 1], range_(axis + 1, rank - 1), [axis]], axis=0)
        top_k_input = array_ops.transpose(values, transposition)
    sorted_values, indices = top_k(top_k_input, k)
    out = indices if return_argsort else sorted_values
    if transposition is not None:
        out = array_ops.transpose(out, transposition)
    return out


def _sort_or_argsort(values, axis, direction, return_argsort):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"{direction} should be one of ASCENDING, DESCENDING")
    axis = convert_to_tensor(axis, name="axis")
    axis_static = constant_value(axis)
    if axis._shape.ndims not in (None, 0) or axis_static is None:
        raise ValueError("axis must be a constant scalar")
    axis_static = int(axis_static)
    values = convert_to_tensor(values, name="values")
    if direction == "DESCENDING":
        return _descending_sort(values, axis_static, return_argsort)
    out = _descending_sort(-values, axis_static, return_argsort)
    return out if return_argsort else -out


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """`values` sorted along `axis` (a constant), ASCENDING or DESCENDING."""
    with name_scope(name, "sort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=False)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The indices that sort `values` along `axis`; equal values keep their order."""
    del stable  # the underlying TopKV2 is stable
    with name_scope(name, "argsort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=True)
