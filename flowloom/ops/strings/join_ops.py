"""String reductions: ReduceJoin (`tf.strings.reduce_join`) and UnsortedSegmentJoin.

ReduceJoin concatenates strings over the given axes, the first axis listed varying fastest:
over `[1, 0]` (the default for a matrix: every axis, last first) a matrix joins row by row,
over `[0, 1]` column by column. UnsortedSegmentJoin joins the entries of each segment in the
order they occur.
"""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import NotDifferentiable, defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.framework.tensor_util import constant_value


def _as_bytes(value):
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


ReduceJoin = defop("ReduceJoin", inputs=["inputs: string", "reduction_indices: int32"],
                   outputs=["output: string"], attrs={"keep_dims": False, "separator": ""})


@ReduceJoin.shape
def _(op):
    from flowloom.ops.math.reduction_ops import _reduction_shape

    return _reduction_shape(op)


@ReduceJoin.kernel
def _(xp, values, axes, *, keep_dims, separator):
    values = np.asarray(values, dtype=object)
    nd, given = values.ndim, [int(a) for a in np.ravel(axes)]
    reduced = []
    for a in given:
        if not -nd <= a < nd:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid reduction dimension {a} for input with {nd} dimensions.")
        if a % nd in reduced:
            raise errors.InvalidArgumentError(None, None, f"Duplicate reduction dimension {a}")
        reduced.append(a % nd)
    kept = [d for d in range(nd) if d not in reduced]
    # The first axis listed varies fastest, so it goes last in row-major order.
    grouped = values.transpose(kept + reduced[::-1])
    out_shape = [values.shape[d] for d in kept]
    rows = grouped.reshape(out_shape + [int(np.prod([values.shape[d] for d in reduced]))])
    sep = _as_bytes(separator)
    out = np.empty(out_shape, dtype=object)
    flat = out.reshape(-1)
    flat_rows = rows.reshape(flat.size, rows.shape[-1])
    for i in range(flat.size):
        flat[i] = sep.join(_as_bytes(s) for s in flat_rows[i])
    if keep_dims:
        out = out.reshape([1 if d in reduced else n for d, n in enumerate(values.shape)])
    return out


def reduce_join(inputs, axis=None, keep_dims=None, separator="", name=None,
                reduction_indices=None, keepdims=None):
    """Joins the strings of `inputs` over `axis` (`tf.strings.reduce_join`).

    Args:
      inputs: a string `Tensor`.
      axis: the axes to join over (None: all, last first); negative axes count from the end.
        The first axis listed varies fastest in the joined string.
      keep_dims: keep the joined axes with length 1 (`keepdims` is its newer name).
      separator: the string put between joined strings.
      name: a name for the op.
      reduction_indices: the older name of `axis`.
      keepdims: the newer name of `keep_dims`.

    Returns:
      A string `Tensor`: `inputs` with the joined axes removed (or of length 1).

    Example:
      tf.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1, separator="-")  # [a-b, c-d]
    """
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
    keep = bool(keepdims if keepdims is not None else keep_dims)
    if axis is not None and reduction_indices is not None:
        raise ValueError("Cannot specify both 'axis' and 'reduction_indices'")
    axis = reduction_indices if axis is None else axis
    from flowloom.ops.array.array_ops import constant, rank
    from flowloom.ops.math.math_ops import range_

    with name_scope(None, "ReduceJoin", [inputs, axis]):
        inputs = convert_to_tensor(inputs)
        if axis is None:
            nd = inputs._shape.ndims
            axis = constant(np.arange(nd - 1, -1, -1), dtype=dtypes.int32) if nd is not None \
                else range_(rank(inputs) - 1, -1, -1)
        return apply_op("ReduceJoin", (inputs, axis), name=name, keep_dims=keep,
                        separator=separator).outputs[0]


UnsortedSegmentJoin = defop(
    "UnsortedSegmentJoin", inputs=["inputs: string", "segment_ids: Tindices",
                                   "num_segments: Tnumsegments"],
    outputs=["output: string"], attrs={"separator": "", "Tnumsegments": dtypes.int32},
    allowed_types={"Tindices": (dtypes.int32, dtypes.int64),
                   "Tnumsegments": (dtypes.int32, dtypes.int64)})


@UnsortedSegmentJoin.shape
def _(op):
    data, ids, count = (t._shape for t in op._inputs)
    if count.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {count.ndims}")
    if data.ndims is None or ids.ndims is None:
        return unknown_shape()
    for a, b in zip(data.as_list(), ids.as_list()):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    n = constant_value(op._inputs[2])
    if n is not None and int(n) < 0:
        raise ValueError("Dimension size, given by scalar input 2, must be non-negative but "
                         f"is {int(n)}")
    return TensorShape([None if n is None else int(n)]).concatenate(data[ids.ndims:])


@UnsortedSegmentJoin.kernel
def _(xp, values, ids, count, *, separator):
    values, ids, n = np.asarray(values, dtype=object), np.asarray(ids), int(count)
    if values.shape[:ids.ndim] != ids.shape:
        raise errors.InvalidArgumentError(
            None, None, f"segment_ids shape {list(ids.shape)} must be a prefix of inputs "
            f"shape {list(values.shape)}")
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        raise errors.InvalidArgumentError(
            None, None, "segment_ids are not allowed to exceed num_segments or to have "
            "negative values.")
    inner = values.shape[ids.ndim:]
    parts = [[[] for _ in range(n)] for _ in range(int(np.prod(inner, dtype=np.int64)))]
    rows = values.reshape((ids.size, -1)) if values.size else np.empty((ids.size, len(parts)))
    for row, segment in zip(rows, ids.reshape(-1).tolist()):
        for k, s in enumerate(row):
            parts[k][segment].append(_as_bytes(s))
    sep = _as_bytes(separator)
    out = np.empty((n, len(parts)), dtype=object)
    for k, segments in enumerate(parts):
        for segment, strings in enumerate(segments):
            out[segment, k] = sep.join(strings)
    return out.reshape((n,) + inner)


NotDifferentiable("ReduceJoin", "UnsortedSegmentJoin")


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """Joins the strings of each segment, in the order they occur.

    Args:
      inputs: a string `Tensor`.
      segment_ids: an int32/int64 `Tensor` whose shape is a prefix of `inputs`'s; each in
        [0, num_segments).
      num_segments: a scalar int32/int64: the number of segments.
      separator: the string put between joined strings.
      name: a name for the op.

    Returns:
      A string `Tensor` of shape `[num_segments] + inputs.shape[segment_ids.ndim:]`; a
      segment with no entries gives "".
    """
    return apply_op("UnsortedSegmentJoin", (inputs, segment_ids, num_segments), name=name,
                    separator=separator).outputs[0]
