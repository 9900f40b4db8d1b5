"""Sorted and sparse segment reductions: Segment{Sum,Mean,Prod,Min,Max},
SparseSegment{Sum,Mean,SqrtN}[WithNumSegments], their *Grad ops and gradients, and the
Python wrappers TF 1.15's math_ops adds (unsorted_segment_mean/sqrt_n, sparse_segment_*).

The kernels check their inputs in the order TF's kernels do (segment by segment), so the
first bad segment id or index gets TF's message. UnsortedSegment{Sum,Prod,Min,Max} live in
segment_ops.
"""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.framework.tensor_util import constant_value
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops, segment_ops

_REAL = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint8, dtypes.int16, dtypes.int8,
         dtypes.int64, dtypes.bfloat16, dtypes.uint16, dtypes.float16, dtypes.uint32,
         dtypes.uint64)
_NUMBER = _REAL + (dtypes.complex64, dtypes.complex128)
_INDEX = (dtypes.int32, dtypes.int64)
_FLOAT = (dtypes.float32, dtypes.float64)


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _shape_error(op, what):
    return ValueError(what)  # the graph adds the node, its attrs and input shapes


def _with_rank(op, i, rank):
    s = op._inputs[i]._shape
    if s.ndims is not None and s.ndims != rank:
        raise _shape_error(op, f"Shape must be rank {rank} but is rank {s.ndims}")


def _data_rows(op):
    """data.shape[1:] after checking data is at least a vector (None: unknown rank)."""
    s = op._inputs[0]._shape
    if s.ndims is None:
        return None
    if s.ndims < 1:
        raise _shape_error(op, "Shape must be at least rank 1 but is rank 0")
    return s.as_list()[1:]


def _dim0(op, i, what):
    value = constant_value(op._inputs[i])
    if value is None:
        return None
    value = int(np.asarray(value).reshape(-1)[0]) if np.size(value) else None
    if value is not None and value < 0:
        raise ValueError(f"Cannot specify a negative value for {what}")
    return value


def _segments(ids):
    """(starts, ids of each run) of the runs of equal ids in the vector `ids` (non-empty)."""
    starts = np.concatenate([[0], np.flatnonzero(ids[1:] != ids[:-1]) + 1])
    return starts, ids[starts]


def _check_runs(run_ids, rows, bad_run=None):
    """TF's walk over the runs: per run, ids must grow, then lie in [0, rows), then
    (sparse ops) the run's indices must be valid. Returns None or (run, 'bounds')."""
    m = run_ids.size
    dec = np.zeros(m, bool)
    dec[:-1] = run_ids[1:] < run_ids[:-1]
    oob = (run_ids < 0) | (run_ids >= rows)
    bad = dec | oob if bad_run is None else dec | oob | bad_run
    if not bad.any():
        return None
    k = int(np.argmax(bad))
    if dec[k]:
        raise _invalid("segment ids are not increasing")
    if oob[k]:
        raise _invalid(f"Segment id {int(run_ids[k])} out of range [0, {rows}), possibly "
                       "because 'segment_ids' input is not sorted.")
    return k


def _fill(dtype, value, shape):
    return np.full(shape, value, dtype=dtype)


def _reduce_runs(reducer, values, starts, mean=None):
    if reducer is None:  # mean: sum / count (integer types divide as C++ does, truncating)
        total = np.add.reduceat(values, starts, axis=0)
        counts = np.diff(np.append(starts, values.shape[0])).reshape(
            (-1,) + (1,) * (values.ndim - 1))
        if values.dtype.kind in "iu":
            q = np.abs(total) // counts
            return np.where(total < 0, -q, q).astype(values.dtype)
        scale = np.sqrt(counts) if mean == "sqrt_n" else counts
        return (total / scale.astype(values.dtype)).astype(values.dtype, copy=False)
    return reducer.reduceat(values, starts, axis=0)


# -- Segment{Sum,Mean,Prod,Min,Max} -------------------------------------------------------------
def _segment_shape(op):
    _with_rank(op, 1, 1)
    rest = _data_rows(op)
    return unknown_shape() if rest is None else TensorShape([None] + rest)


def _sorted_kernel(reducer, default):
    def kernel(xp, data, segment_ids):
        if segment_ids.ndim != 1:
            raise _invalid("segment_ids should be a vector.")
        n = segment_ids.size
        if data.ndim < 1 or n != data.shape[0]:
            raise _invalid("segment_ids should be the same size as dimension 0 of input.")
        rows = int(segment_ids[-1]) + 1 if n else 0
        if rows < 0:
            raise _invalid("segment ids must be >= 0")
        if n == 0:
            return np.zeros((0,) + data.shape[1:], dtype=data.dtype)
        if rows == 0:
            raise _invalid("segment ids must be >= 0")
        starts, run_ids = _segments(segment_ids)
        _check_runs(run_ids, rows)
        out = _fill(data.dtype, default, (rows,) + data.shape[1:])
        with np.errstate(all="ignore"):
            out[run_ids] = _reduce_runs(reducer, data, starts)
        return out
    return kernel


SORTED_OPS = {}
for _type, _reducer, _default, _types in (
        ("SegmentSum", np.add, 0, _NUMBER), ("SegmentMean", None, 0, _NUMBER),
        ("SegmentProd", np.multiply, 1, _NUMBER), ("SegmentMin", np.minimum, 0, _REAL),
        ("SegmentMax", np.maximum, 0, _REAL)):
    _od = SORTED_OPS[_type] = defop(
        _type, inputs=["data: T", "segment_ids: Tindices"], outputs=["output: T"],
        allowed_types={"T": _types, "Tindices": _INDEX})
    _od.shape(_segment_shape)
    _od.kernel(_sorted_kernel(_reducer, _default))
SegmentSum, SegmentMean = SORTED_OPS["SegmentSum"], SORTED_OPS["SegmentMean"]


def _sorted(op_type, default_name):
    def wrapper(data, segment_ids, name=None):
        return apply_op(op_type, (data, segment_ids), name=name).outputs[0]
    wrapper.__name__ = default_name
    wrapper.__doc__ = (f"Computes the {default_name.split('_')[1]} along segments of `data`: "
                       f"`output[i]` reduces the rows `j` with `segment_ids[j] == i` "
                       f"(`segment_ids` sorted, a vector as long as `data`'s first dimension).")
    return wrapper


segment_sum = _sorted("SegmentSum", "segment_sum")
segment_mean = _sorted("SegmentMean", "segment_mean")
segment_prod = _sorted("SegmentProd", "segment_prod")
segment_min = _sorted("SegmentMin", "segment_min")
segment_max = _sorted("SegmentMax", "segment_max")


@SORTED_OPS["SegmentSum"].gradient
def _(op, grad):
    return [array_ops.gather(grad, op._inputs[1]), None]


@SORTED_OPS["SegmentMean"].gradient
def _(op, grad):
    data, ids = op._inputs
    input_rank = array_ops.rank(data)
    ones_shape = array_ops.concat(
        [array_ops.shape(ids), array_ops.fill(array_ops.expand_dims(input_rank - 1, 0), 1)], 0)
    ones = array_ops.fill(ones_shape, math_ops.cast(1, grad.dtype))
    scaled_grad = math_ops.divide(grad, segment_sum(ones, ids))
    return [array_ops.gather(scaled_grad, ids), None]


def _segment_min_or_max_grad(op, grad):
    data, ids = op._inputs
    zeros = array_ops.zeros_like(data, dtype=data.dtype)
    gathered_outputs = array_ops.gather(op.outputs[0], ids)
    is_selected = math_ops.equal(data, gathered_outputs)
    num_selected = segment_sum(math_ops.cast(is_selected, grad.dtype), ids)
    weighted_grads = math_ops.divide(grad, num_selected)
    gathered_grads = array_ops.gather(weighted_grads, ids)
    return [array_ops.where(is_selected, gathered_grads, zeros), None]


SORTED_OPS["SegmentMin"].gradient(_segment_min_or_max_grad)
SORTED_OPS["SegmentMax"].gradient(_segment_min_or_max_grad)


# -- unsorted_segment_mean / unsorted_segment_sqrt_n (Python, as TF's math_ops) ---------------
def _unsorted_segment_n(data, segment_ids, num_segments):
    """The number of entries per segment (at least 1), shaped to divide the segment sums."""
    ones = array_ops.ones(array_ops.shape(segment_ids), dtype=data.dtype)
    n = segment_ops.unsorted_segment_sum(ones, segment_ids, num_segments)
    ndims_output = data._shape.ndims - segment_ids._shape.ndims
    n = array_ops.reshape(n, [num_segments] + [1] * ndims_output)
    return math_ops.maximum(n, math_ops.cast(1, n.dtype))


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of the rows of `data` per segment id (ids in any order; negative ids dropped;
    empty segments are 0)."""
    with name_scope(name, "UnsortedSegmentMean"):
        data = convert_to_tensor(data)
        segment_ids = convert_to_tensor(segment_ids)
        n = _unsorted_segment_n(data, segment_ids, num_segments)
        summed = segment_ops.unsorted_segment_sum(data, segment_ids, num_segments)
        return summed / n


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """The sum of the rows of `data` per segment id divided by sqrt(N), N the segment's size."""
    with name_scope(name, "UnsortedSegmentSqrtN"):
        data = convert_to_tensor(data)
        segment_ids = convert_to_tensor(segment_ids)
        n = _unsorted_segment_n(data, segment_ids, num_segments)
        summed = segment_ops.unsorted_segment_sum(data, segment_ids, num_segments)
        return summed / math_ops.sqrt(n)


# -- SparseSegment{Sum,Mean,SqrtN}[WithNumSegments] --------------------------------------------
def _sparse_shape(with_num):
    def shape(op):
        _with_rank(op, 1, 1)
        _with_rank(op, 2, 1)
        a, b = op._inputs[1]._shape, op._inputs[2]._shape
        if not a.is_compatible_with(b):
            raise _shape_error(op, f"Dimensions must be equal, but are {a[0]} and {b[0]}")
        dim0 = None
        if with_num:
            _with_rank(op, 3, 0)
            dim0 = _dim0(op, 3, "num_segments")
        rest = _data_rows(op)
        return unknown_shape() if rest is None else TensorShape([dim0] + rest)
    return shape


def _sparse_kernel(mean, with_num):
    def compute(data, indices, segment_ids, num_segments=None):
        rows = -1
        if with_num:
            if np.ndim(num_segments) != 0:
                raise _invalid("num_segments should be a scalar, not shape "
                               f"{list(np.shape(num_segments))}".replace(" ", ""))
            rows = int(num_segments)
            if rows < 0:
                raise _invalid("segment ids must be >= 0")
        if indices.ndim != 1:
            raise _invalid("indices should be a vector.")
        if segment_ids.ndim != 1:
            raise _invalid("segment_ids should be a vector.")
        n = indices.size
        if n != segment_ids.size:
            raise _invalid("segment_ids and indices should have same size.")
        last_plus_one = int(segment_ids[-1]) + 1 if n else 0
        if with_num:
            if rows < last_plus_one:
                raise _invalid("segment ids must be < num_segments")
        else:
            rows = last_plus_one
        if rows < 0:
            raise _invalid("segment ids must be >= 0")
        out = np.zeros((rows,) + data.shape[1:], dtype=data.dtype)
        if n == 0:
            return out
        if rows == 0:
            raise _invalid("segment ids must be >= 0")
        starts, run_ids = _segments(segment_ids)
        bad = (indices < 0) | (indices >= data.shape[0])
        k = _check_runs(run_ids, rows, np.logical_or.reduceat(bad, starts) if bad.any()
                        else None)
        if k is not None:
            i = int(starts[k]) + int(np.argmax(bad[starts[k]:]))
            raise _invalid(f"Bad: indices[{i}] == {int(indices[i])} out of range "
                           f"[0, {data.shape[0]})")
        with np.errstate(all="ignore"):
            out[run_ids] = _reduce_runs(None if mean else np.add, data[indices], starts, mean)
        return out

    if with_num:
        def kernel(xp, data, indices, segment_ids, num_segments):
            return compute(data, indices, segment_ids, num_segments)
    else:
        def kernel(xp, data, indices, segment_ids):
            return compute(data, indices, segment_ids)
    return kernel


SPARSE_OPS = {}
for _type, _mean, _types in (("SparseSegmentSum", None, _REAL),
                             ("SparseSegmentMean", "mean", _FLOAT),
                             ("SparseSegmentSqrtN", "sqrt_n", _FLOAT)):
    for _with_num in (False, True):
        _name = _type + ("WithNumSegments" if _with_num else "")
        _inputs = ["data: T", "indices: Tidx", "segment_ids: int32"]
        _allowed = {"T": _types, "Tidx": _INDEX}
        _attrs = {"Tidx": dtypes.int32}
        if _with_num:
            _inputs.append("num_segments: Tnumsegments")
            _allowed["Tnumsegments"] = _INDEX
            _attrs["Tnumsegments"] = dtypes.int32
        _od = SPARSE_OPS[_name] = defop(_name, inputs=_inputs, outputs=["output: T"],
                                        attrs=_attrs, allowed_types=_allowed)
        _od.shape(_sparse_shape(_with_num))
        _od.kernel(_sparse_kernel(_mean, _with_num))


def _sparse(op_type, with_num):
    def wrapper(data, indices, segment_ids, name=None, num_segments=None):
        if num_segments is not None:
            return apply_op(op_type + "WithNumSegments",
                            (data, indices, segment_ids, num_segments), name=name).outputs[0]
        return apply_op(op_type, (data, indices, segment_ids), name=name).outputs[0]

    def wrapper_with_num(data, indices, segment_ids, num_segments, name=None):
        return apply_op(op_type + "WithNumSegments", (data, indices, segment_ids, num_segments),
                        name=name).outputs[0]
    return wrapper_with_num if with_num else wrapper


sparse_segment_sum = _sparse("SparseSegmentSum", False)
sparse_segment_mean = _sparse("SparseSegmentMean", False)
sparse_segment_sqrt_n = _sparse("SparseSegmentSqrtN", False)
sparse_segment_sum_with_num_segments = _sparse("SparseSegmentSum", True)
sparse_segment_mean_with_num_segments = _sparse("SparseSegmentMean", True)
sparse_segment_sqrt_n_with_num_segments = _sparse("SparseSegmentSqrtN", True)
for _f, _what in ((sparse_segment_sum, "sum"), (sparse_segment_mean, "mean"),
                  (sparse_segment_sqrt_n, "sum divided by sqrt(N)")):
    _f.__doc__ = (f"The {_what} of the rows `data[indices[j]]` per (sorted) `segment_ids[j]`; "
                  "with `num_segments`, the output has that many rows (empty ones are 0).")
for _f in (sparse_segment_sum_with_num_segments, sparse_segment_mean_with_num_segments,
           sparse_segment_sqrt_n_with_num_segments):
    _f.__doc__ = "The sparse segment reduction with an output of `num_segments` rows."


# -- SparseSegment{Mean,SqrtN}Grad -------------------------------------------------------------
def _grad_shape(op):
    _with_rank(op, 1, 1)
    a, b = op._inputs[1]._shape, op._inputs[2]._shape
    if not a.is_compatible_with(b):
        raise _shape_error(op, f"Dimensions must be equal, but are {b[0]} and {a[0]}")
    _with_rank(op, 3, 0)
    dim0 = _dim0(op, 3, "output_dim0")
    rest = _data_rows(op)
    return unknown_shape() if rest is None else TensorShape([dim0] + rest)


def _grad_kernel(sqrt_n):
    def kernel(xp, grad, indices, segment_ids, output_dim0):
        if indices.ndim != 1:
            raise _invalid("indices should be a vector.")
        if segment_ids.ndim != 1:
            raise _invalid("segment_ids should be a vector.")
        if np.size(output_dim0) != 1:
            raise _invalid("output_dim0 should be a scalar.")
        n = indices.size
        if n != segment_ids.size:
            raise _invalid("segment_ids and indices should have same size.")
        m = int(np.reshape(output_dim0, ()))
        out = np.zeros((m,) + grad.shape[1:], dtype=grad.dtype)
        if m == 0 or n == 0:
            return out
        num_segments = grad.shape[0]
        if int(segment_ids[-1]) + 1 > num_segments:
            raise _invalid("Invalid number of segments")
        bad = (segment_ids < 0) | (segment_ids >= num_segments)
        if bad.any():
            s = int(segment_ids[np.argmax(bad)])
            raise _invalid(f"Segment id {s} out of range [0, {num_segments}).")
        bad = (indices < 0) | (indices >= m)
        if bad.any():
            raise _invalid(f"Index {int(indices[np.argmax(bad)])} out of range [0, {m}).")
        counts = np.maximum(np.bincount(segment_ids, minlength=num_segments), 1.0)
        scale = (1.0 / (np.sqrt(counts) if sqrt_n else counts)).astype(grad.dtype)
        rows = grad[segment_ids] * scale[segment_ids].reshape((-1,) + (1,) * (grad.ndim - 1))
        np.add.at(out, indices, rows)
        return out
    return kernel


GRAD_OPS = {}
for _type, _sqrt_n in (("SparseSegmentMeanGrad", False), ("SparseSegmentSqrtNGrad", True)):
    _od = GRAD_OPS[_type] = defop(
        _type, inputs=["grad: T", "indices: Tidx", "segment_ids: int32", "output_dim0: int32"],
        outputs=["output: T"], attrs={"Tidx": dtypes.int32},
        allowed_types={"T": _FLOAT, "Tidx": _INDEX})
    _od.shape(_grad_shape)
    _od.kernel(_grad_kernel(_sqrt_n))
    _od.no_gradient()


def sparse_segment_mean_grad(grad, indices, segment_ids, output_dim0, name=None):
    """The gradient of SparseSegmentMean: `output_dim0` rows, each the sum of the scaled
    gradient rows of the segments that read it."""
    return apply_op("SparseSegmentMeanGrad", (grad, indices, segment_ids, output_dim0),
                    name=name).outputs[0]


def sparse_segment_sqrt_n_grad(grad, indices, segment_ids, output_dim0, name=None):
    """The gradient of SparseSegmentSqrtN (see sparse_segment_mean_grad)."""
    return apply_op("SparseSegmentSqrtNGrad", (grad, indices, segment_ids, output_dim0),
                    name=name).outputs[0]


def _sparse_sum_grad(op, grad):
    data, indices, segment_ids = op._inputs[:3]
    input_rows = array_ops.shape(data)[0]
    dx = segment_ops.unsorted_segment_sum(array_ops.gather(grad, segment_ids), indices,
                                          input_rows)
    return [dx] + [None] * (len(op._inputs) - 1)


def _sparse_scaled_grad(grad_fn):
    def gradient(op, grad):
        data, indices, segment_ids = op._inputs[:3]
        dim0 = array_ops.shape(data)[0]
        return [grad_fn(grad, indices, segment_ids, dim0)] + [None] * (len(op._inputs) - 1)
    return gradient


for _with_num in ("", "WithNumSegments"):
    SPARSE_OPS["SparseSegmentSum" + _with_num].gradient(_sparse_sum_grad)
    SPARSE_OPS["SparseSegmentMean" + _with_num].gradient(
        _sparse_scaled_grad(sparse_segment_mean_grad))
    SPARSE_OPS["SparseSegmentSqrtN" + _with_num].gradient(
        _sparse_scaled_grad(sparse_segment_sqrt_n_grad))
