"""SparseReshape and SparseFillEmptyRows (TF's op types), with `sparse_retain`.

What feature columns do to their sparse ids before an embedding lookup: flatten the batch
to 2-D (`SparseReshape`), drop invalid ids (`sparse_retain`) and give every empty row one
default entry (`SparseFillEmptyRows`).
"""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework import tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.sparse_tensor import SparseTensor

SparseReshape = defop("SparseReshape",
                      inputs=["input_indices: int64", "input_shape: int64", "new_shape: int64"],
                      outputs=["output_indices: int64", "output_shape: int64"])
SparseReshape.no_gradient()


@SparseReshape.shape
def _(op):
    rank = op._inputs[2]._shape.with_rank(1)[0]
    return [tensor_shape.TensorShape([op._inputs[0]._shape.with_rank(2)[0], rank]),
            tensor_shape.TensorShape([rank])]


@SparseReshape.kernel
def _(xp, indices, shape, new_shape):
    shape = np.asarray(shape, dtype=np.int64)
    new_shape = np.array(new_shape, dtype=np.int64)
    dense_size = int(np.prod(shape))
    unknown = np.flatnonzero(new_shape == -1)
    if len(unknown) > 1:
        raise errors.InvalidArgumentError(
            None, None, f"only one output dimension may be -1, not both {unknown[0]} and "
            f"{unknown[1]}")
    if np.any(new_shape < -1):
        bad = int(np.flatnonzero(new_shape < -1)[0])
        raise errors.InvalidArgumentError(
            None, None, f"size {bad} must be non-negative, not {new_shape[bad]}")
    known = int(np.prod(new_shape[new_shape != -1]))
    if len(unknown):
        if known == 0 or dense_size % known:
            raise errors.InvalidArgumentError(
                None, None, f"Input to reshape is a SparseTensor with {dense_size} dense "
                f"values, but the requested shape requires a multiple of {known}")
        new_shape[unknown[0]] = dense_size // known
    if int(np.prod(new_shape)) != dense_size:
        raise errors.InvalidArgumentError(
            None, None, f"Input to reshape is a tensor with {dense_size} dense values, but "
            f"the requested shape has {int(np.prod(new_shape))}")
    indices = np.asarray(indices, dtype=np.int64).reshape(-1, len(shape))
    if len(indices) == 0:
        return [np.zeros((0, len(new_shape)), np.int64), new_shape]
    flat = np.ravel_multi_index(indices.T, shape) if len(shape) else np.zeros(len(indices),
                                                                               np.int64)
    out = np.stack(np.unravel_index(flat, new_shape), axis=1) if len(new_shape) else \
        np.zeros((len(indices), 0), np.int64)
    return [out.astype(np.int64), new_shape]


def sparse_reshape(sp_input, shape, name=None):
    """Reshapes a `SparseTensor` to `shape` (one dim may be -1), keeping row-major order.

    Raises:
      ValueError: if the static shapes do not agree in size.
    """
    with name_scope(name, "SparseReshape", [sp_input]):
        shape = convert_to_tensor(shape, dtype=dtypes.int64)
        indices, dense_shape = apply_op("SparseReshape", (sp_input.indices,
                                                          sp_input.dense_shape, shape)).outputs
        from flowloom.framework.tensor_util import constant_value
        static = constant_value(shape)
        out = SparseTensor(indices, sp_input.values, dense_shape)
        if static is not None and -1 not in list(static):
            out._dense_shape_default = tensor_shape.TensorShape([int(d) for d in static])
        return out


SparseFillEmptyRows = defop(
    "SparseFillEmptyRows",
    inputs=["indices: int64", "values: T", "dense_shape: int64", "default_value: T"],
    outputs=["output_indices: int64", "output_values: T", "empty_row_indicator: bool",
             "reverse_index_map: int64"])


@SparseFillEmptyRows.shape
def _(op):
    rank = op._inputs[0]._shape.with_rank(2)[1]
    return [tensor_shape.TensorShape([None, rank]), tensor_shape.TensorShape([None]),
            tensor_shape.TensorShape([None]), op._inputs[1]._shape.with_rank(1)]


@SparseFillEmptyRows.kernel
def _(xp, indices, values, dense_shape, default_value):
    indices = np.asarray(indices, dtype=np.int64)
    values = np.asarray(values)
    rows = int(np.asarray(dense_shape).reshape(-1)[0]) if np.size(dense_shape) else 0
    rank = indices.shape[1] if indices.ndim == 2 else len(np.asarray(dense_shape))
    if rows == 0 and len(indices):
        raise errors.InvalidArgumentError(
            None, None, "Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] "
            f"= {len(indices)}")
    row_of = indices[:, 0] if len(indices) else np.zeros(0, np.int64)
    if len(row_of) and (row_of.min() < 0 or row_of.max() >= rows):
        bad = int(np.flatnonzero((row_of < 0) | (row_of >= rows))[0])
        raise errors.InvalidArgumentError(
            None, None, f"indices({bad}, 0) is invalid: {row_of[bad]} >= {rows}")
    counts = np.bincount(row_of, minlength=rows)
    empty = counts == 0
    total = len(indices) + int(empty.sum())
    out_rows = np.concatenate([row_of, np.flatnonzero(empty)])
    out_order = np.argsort(out_rows, kind="stable")
    all_indices = np.concatenate([indices.reshape(-1, rank), np.zeros((int(empty.sum()), rank),
                                                                       np.int64)])
    all_indices[len(indices):, 0] = np.flatnonzero(empty)
    all_values = np.concatenate([values.reshape(-1), np.full(int(empty.sum()),
                                                             np.asarray(default_value).item(),
                                                             dtype=values.dtype)])
    position = np.empty(total, np.int64)
    position[out_order] = np.arange(total)
    return [all_indices[out_order], all_values[out_order], empty,
            position[:len(indices)].astype(np.int64)]


@SparseFillEmptyRows.gradient
def _(op, _grad_indices, grad_values, _grad_empty, _grad_map):
    from flowloom.ops.array import array_ops
    from flowloom.ops.math import math_ops

    reverse_map = op.outputs[3]
    d_values = array_ops.gather(grad_values, reverse_map)
    d_default = math_ops.reduce_sum(grad_values) - math_ops.reduce_sum(d_values)
    return [None, d_values, None, d_default]


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """Gives every empty row of a 2-D (or higher) `SparseTensor` one `default_value` entry.

    Returns:
      (sp_ordered_output, empty_row_indicator): the filled `SparseTensor`, its rows in order,
      and a bool [rows] vector that is True for the rows that were empty.
    """
    with name_scope(name, "SparseFillEmptyRows", [sp_input]):
        default_value = convert_to_tensor(default_value, dtype=sp_input.dtype)
        out = apply_op("SparseFillEmptyRows", (sp_input.indices, sp_input.values,
                                               sp_input.dense_shape, default_value)).outputs
        filled = SparseTensor(out[0], out[1], sp_input.dense_shape)
        filled._dense_shape_default = sp_input._dense_shape_default
        return filled, out[2]


def sparse_retain(sp_input, to_retain):
    """The entries of `sp_input` where the bool vector `to_retain` is True (same shape).

    Raises:
      ValueError: if `to_retain` is not a vector of the number of entries.
    """
    from flowloom.ops.array import array_ops

    to_retain = convert_to_tensor(to_retain)
    to_retain.shape.with_rank(1)
    if to_retain.shape[0].value is not None and sp_input.values.shape[0].value is not None:
        to_retain.shape[0].assert_is_compatible_with(sp_input.values.shape[0])
    where_true = array_ops.reshape(array_ops.where(to_retain), [-1])
    out = SparseTensor(array_ops.gather(sp_input.indices, where_true),
                       array_ops.gather(sp_input.values, where_true),
                       array_ops.identity(sp_input.dense_shape))
    out._dense_shape_default = sp_input._dense_shape_default
    return out
