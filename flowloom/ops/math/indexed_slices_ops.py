"""`math_ops._as_indexed_slices`: a dense tensor as IndexedSlices of all its rows."""

from flowloom.framework import dtypes
from flowloom.framework.indexed_slices import IndexedSlices
from flowloom.framework.ops import Tensor


def _as_indexed_slices(x, optimize=True):
    """`x` as IndexedSlices: every row, indices 0..n-1, dense_shape `shape(x)`.

    Raises:
      TypeError: `x` is neither a Tensor nor IndexedSlices.
    """
    from flowloom.ops.array import array_ops
    from flowloom.ops.math import math_ops

    if not isinstance(x, (Tensor, IndexedSlices)):
        raise TypeError(f"Not a Tensor or IndexedSlices: {type(x)}.")
    if isinstance(x, IndexedSlices):
        return x
    x_shape = array_ops.shape(x, optimize=optimize)
    return IndexedSlices(x, math_ops.range_(x_shape[0], dtype=dtypes.int32), x_shape)


def _as_indexed_slices_list(inputs, optimize=True):
    """Each of `inputs` as IndexedSlices, with int64 indices if any has them.

    Raises:
      TypeError: `inputs` is not a list or tuple.
    """
    from flowloom.ops.math import math_ops

    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"Expected a list or tuple, not a {type(inputs)}.")
    outputs = [_as_indexed_slices(i, optimize=optimize) for i in inputs]
    if all(o.indices.dtype == dtypes.int32 for o in outputs) or \
            all(o.indices.dtype == dtypes.int64 for o in outputs):
        return outputs
    return [o if o.indices.dtype == dtypes.int64 else
            IndexedSlices(o.values, math_ops.cast(o.indices, dtypes.int64), o.dense_shape)
            for o in outputs]
