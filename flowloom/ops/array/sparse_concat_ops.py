"""SparseConcat (TF's op type) and `tf.sparse_concat` / `tf.sparse.concat` (TF 1.15's).

The inputs are SparseTensors in row-major order with one rank and the same dense shape
outside `concat_dim`; the result holds every entry, its `concat_dim` index offset by the sizes
of the inputs before it, in row-major order again. SparseConcat has no gradient (as TF's).
"""

import numpy as np

from flowloom.framework import errors, tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.import_shapes import _merge_error
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.sparse_tensor import SparseTensor, SparseTensorValue
from flowloom.framework.tensor_util import constant_value

SparseConcat = defop(
    "SparseConcat", inputs=["indices: N * int64", "values: N * T", "shapes: N * int64"],
    outputs=["output_indices: int64", "output_values: T", "output_shape: int64"],
    attrs={"concat_dim": None}).no_gradient()


def _shape_str(dims):
    return "[" + ",".join(str(int(d)) for d in dims) + "]"


def _merge_dims(a, b):
    if a.value is not None and b.value is not None and a.value != b.value:
        # TF's InferenceContext::Merge of two dimensions
        raise ValueError(f"Dimensions must be equal, but are {a.value} and {b.value}")
    return a.merge_with(b)


@SparseConcat.shape
def _(op):
    n = len(op._inputs) // 3
    rows = tensor_shape.Dimension(0)
    cols = tensor_shape.Dimension(None)
    shape = tensor_shape.unknown_shape()
    for i in range(n):
        ind = op._inputs[i]._shape.with_rank(2)
        val = op._inputs[i + n]._shape.with_rank(1)
        shp = op._inputs[i + 2 * n]._shape.with_rank(1)
        rows = rows + _merge_dims(ind[0], val[0])
        cols = _merge_dims(cols, ind[1])
        error = _merge_error(shape, shp)
        if error:
            raise ValueError(error)
        shape = shape.merge_with(shp)
    return [tensor_shape.TensorShape([rows, cols]), tensor_shape.TensorShape([rows]), shape]


@SparseConcat.kernel
def _(xp, *args, concat_dim):
    n = len(args) // 3
    inds, vals, shapes = args[:n], args[n:2 * n], args[2 * n:]
    inds = [np.asarray(x) for x in inds]
    for i, ind in enumerate(inds):
        if ind.ndim != 2:
            raise errors.InvalidArgumentError(
                None, None, "Input indices should be a matrix but received shape "
                            f"{_shape_str(ind.shape)} at position {i}")
    for i, val in enumerate(vals):
        if np.ndim(val) != 1:
            raise errors.InvalidArgumentError(
                None, None, "Input values should be a vector but received shape "
                            f"{_shape_str(np.shape(val))} at position {i}")
    for i, shp in enumerate(shapes):
        if np.ndim(shp) != 1:
            raise errors.InvalidArgumentError(
                None, None, "Input shapes should be a vector but received shape "
                            f"{_shape_str(np.shape(shp))} at position {i}")
    shapes = [np.asarray(s, np.int64) for s in shapes]
    rank = shapes[0].size
    dim = rank + concat_dim if concat_dim < 0 else concat_dim
    if not 0 <= dim < rank:
        raise errors.InvalidArgumentError(
            None, None, f"Concat dimension must be in range [{-rank}, {rank}), got "
                        f"{concat_dim}")
    for i in range(1, n):
        if shapes[i].size != rank:
            raise errors.InvalidArgumentError(
                None, None, f"Ranks of all input tensors must match: expected {rank} but got "
                            f"{shapes[i].size} at position {i}")
        for j in range(rank):
            if j != dim and shapes[i][j] != shapes[0][j]:
                raise errors.InvalidArgumentError(
                    None, None, f"Input shapes must match: expected {shapes[0][j]} for "
                                f"dimension {j} but got {shapes[i][j]} at position {i}")
    for i, (ind, val, shp) in enumerate(zip(inds, vals, shapes)):
        if ind.shape[0] != np.shape(val)[0]:
            raise errors.InvalidArgumentError(
                None, None, "indices and values rows (indexing dimension) must match. "
                            f"(indices = {ind.shape[0]}, values = {np.shape(val)[0]})")
        if ind.shape[1] != rank:
            raise errors.InvalidArgumentError(None, None,
                                              "Order length must be SparseTensor rank.")
    offsets = np.cumsum([0] + [int(s[dim]) for s in shapes])
    parts = []
    for ind, offset in zip(inds, offsets):
        ind = ind.astype(np.int64, copy=True)
        ind[:, dim] += offset
        parts.append(ind)
    indices = np.concatenate(parts).reshape(-1, rank)
    values = np.concatenate([np.asarray(v) for v in vals])
    # Each input is ordered by (concat_dim, the other dims); the inputs follow each other
    # along concat_dim, so a stable row-major sort gives TF's output order.
    order = np.lexsort(indices.T[::-1]) if len(indices) else np.arange(0)
    out_shape = shapes[0].copy()
    out_shape[dim] = offsets[-1]
    return [indices[order], values[order], out_shape]


def _convert_to_sparse_tensors(sp_inputs):
    if not isinstance(sp_inputs, (list, tuple)):
        raise TypeError("Inputs must be a list or tuple.")
    out = []
    for sp in sp_inputs:
        if isinstance(sp, SparseTensorValue):
            sp = SparseTensor.from_value(sp)
        if not isinstance(sp, SparseTensor):
            raise TypeError("Input must be a SparseTensor.")
        out.append(sp)
    return out


def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None,
                  expand_nonconcat_dims=None):
    """Concatenates a list of `SparseTensor`s along dimension `axis`.

    All inputs must have the same rank and, unless `expand_nonconcat_dim`, the same dense
    shape outside `axis` (with it, the largest size of each other dimension is used).

    Example:
      # sp_inputs[0]: shape [2, 3], [0, 2]: "a", [1, 0]: "b", [1, 1]: "c"
      # sp_inputs[1]: shape [2, 4], [0, 1]: "d", [0, 2]: "e"
      # sparse_concat(1, sp_inputs): shape [2, 7],
      #   [0, 2]: "a", [0, 4]: "d", [0, 5]: "e", [1, 0]: "b", [1, 1]: "c"

    Args:
      axis: the dimension to concatenate along (negative counts from the end).
      sp_inputs: a list of `SparseTensor`s.
      name: a name prefix for the returned tensors.
      expand_nonconcat_dim: whether to grow the other dimensions to their largest size.
      concat_dim: the deprecated name of `axis`.
      expand_nonconcat_dims: the newer name of `expand_nonconcat_dim`.

    Returns:
      The concatenated `SparseTensor`.

    Raises:
      TypeError: if `sp_inputs` is not a list of `SparseTensor`s.
    """
    from flowloom.ops.array import array_ops
    from flowloom.ops.math import reduction_ops

    if concat_dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'concat_dim'")
        axis = concat_dim
    if expand_nonconcat_dims is not None:
        expand_nonconcat_dim = expand_nonconcat_dims
    sp_inputs = _convert_to_sparse_tensors(sp_inputs)
    if len(sp_inputs) == 1:
        return sp_inputs[0]
    inds = [sp.indices for sp in sp_inputs]
    vals = [sp.values for sp in sp_inputs]
    shapes = [sp.dense_shape for sp in sp_inputs]
    if expand_nonconcat_dim:
        max_shape = reduction_ops.reduce_max(
            array_ops.concat([array_ops.reshape(s, [1, -1]) for s in shapes], 0), 0)
        shapes = [array_ops.concat([max_shape[:axis],
                                    s[-1:] if axis == -1 else s[axis:axis + 1],
                                    [] if axis == -1 else max_shape[axis + 1:]], 0)
                  for s in shapes]
    out_ind, out_val, out_shape = apply_op("SparseConcat", (inds, vals, shapes), name=name,
                                           concat_dim=axis).outputs
    shape_values = [constant_value(s) for s in shapes]
    if shape_values and all(s is not None for s in shape_values):
        static = np.array(shape_values[0], np.int64)
        static[axis] = sum(int(s[axis]) for s in shape_values)
        out_shape = convert_to_tensor(static)
    return SparseTensor(out_ind, out_val, out_shape)
