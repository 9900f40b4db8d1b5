"""SparseReorder (TF's op type) with `tf.sparse.reorder`, and `tf.sparse_merge` (what a
`SparseFeature` of `tf.parse_example` is built with)."""

import numbers

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import Tensor
from flowloom.framework.sparse_tensor import SparseTensor, SparseTensorValue

SparseReorder = defop(
    "SparseReorder", inputs=["input_indices: int64", "input_values: T", "input_shape: int64"],
    outputs=["output_indices: int64", "output_values: T"])


@SparseReorder.shape
def _(op):
    indices = op._inputs[0]._shape.with_rank(2)
    values = op._inputs[1]._shape.with_rank(1)
    op._inputs[2]._shape.with_rank(1)
    return [indices, values]


@SparseReorder.kernel
def _(xp, indices, values, shape):
    indices = np.asarray(indices, np.int64)
    shape = np.asarray(shape, np.int64)
    if indices.ndim != 2 or indices.shape[1] != len(shape) or len(values) != len(indices):
        raise errors.InvalidArgumentError(
            None, None, f"Input indices should be a matrix of [N, {len(shape)}] and values a "
            f"vector of N, got indices {list(indices.shape)}, values {list(np.shape(values))}")
    if len(indices) == 0:
        return [indices, np.asarray(values)]
    # Row-major order of the indices (the last column varies fastest), stable.
    order = np.lexsort(indices.T[::-1])
    return [indices[order], np.asarray(values)[order]]


@SparseReorder.gradient
def _(op, _grad_indices, grad_values):
    from flowloom.ops.array import array_ops
    from flowloom.ops.math import math_ops

    input_indices, _, input_shape = op._inputs
    entry_indices = math_ops.range_(array_ops.shape(input_indices)[0])
    sp_ordered = sparse_reorder(SparseTensor(input_indices, entry_indices, input_shape))
    inverted = array_ops.invert_permutation(sp_ordered.values)
    return [None, array_ops.gather(grad_values, inverted), None]


def _convert_to_sparse_tensor(sp_input):
    if isinstance(sp_input, SparseTensorValue):
        return SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp_input


def sparse_reorder(sp_input, name=None):
    """`sp_input` with its entries in the canonical row-major order (same dense value)."""
    from flowloom.ops.array import array_ops

    sp_input = _convert_to_sparse_tensor(sp_input)
    indices, values = apply_op("SparseReorder", (sp_input.indices, sp_input.values,
                                                 sp_input.dense_shape), name=name).outputs
    if sp_input.get_shape().is_fully_defined():
        dense_shape = sp_input.get_shape().as_list()
    else:
        dense_shape = array_ops.identity(sp_input.dense_shape)
    return SparseTensor(indices, values, dense_shape)


def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """A SparseTensor whose last dimension(s) are indexed by the values of `sp_ids` (one
    SparseTensor, or a list of them, of ids < `vocab_size`) and hold `sp_values`' values.

    Example:
      # ids [[0, 2], [1]] and values [[.5, .1], [.3]] with vocab_size 3 ->
      # indices [[0, 0], [0, 2], [1, 1]], values [.5, .1, .3], dense_shape [2, 3]

    Raises:
      TypeError: if `sp_ids` or `vocab_size` has the wrong type.
      ValueError: if `sp_ids` and `vocab_size` differ in length.
    """
    from flowloom.ops.array import array_ops
    from flowloom.ops.math import math_ops

    if isinstance(sp_ids, (SparseTensor, SparseTensorValue)):
        sp_ids = [sp_ids]
        if not isinstance(vocab_size, (Tensor, numbers.Integral)):
            raise TypeError(f"vocab_size has to be a Tensor or Python int. Found "
                            f"{type(vocab_size)}")
        vocab_size = [vocab_size]
    else:
        if not hasattr(sp_ids, "__iter__"):
            raise TypeError(f"sp_ids has to be a SparseTensor or list thereof. Found "
                            f"{type(sp_ids)}")
        if not hasattr(vocab_size, "__iter__"):
            raise TypeError("vocab_size has to be a list of Tensors or Python ints. Found "
                            f"{type(vocab_size)}")
        for dim in vocab_size:
            if not isinstance(dim, (Tensor, numbers.Integral)):
                raise TypeError("vocab_size has to be a list of Tensors or Python ints. Found "
                                f"{type(dim)}")
    sp_ids, vocab_size = list(sp_ids), list(vocab_size)
    if len(sp_ids) != len(vocab_size):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    with name_scope(name, "SparseMerge", [sp_ids, sp_values]):
        sp_ids = [_convert_to_sparse_tensor(s) for s in sp_ids]
        sp_values = _convert_to_sparse_tensor(sp_values)
        ids = []
        for sp_ids_dim in sp_ids:
            ids_dim = sp_ids_dim.values
            if sp_ids_dim.dtype != dtypes.int64:
                ids_dim = math_ops.cast(ids_dim, dtypes.int64)
            ids.append(array_ops.expand_dims(ids_dim, axis=1))
        vocab_size = [math_ops.cast(x, dtypes.int64) for x in vocab_size]
        new_indices = array_ops.concat([sp_ids[0].indices[:, :-1]] + ids, 1)
        new_shape = array_ops.concat([sp_ids[0].dense_shape[:-1], vocab_size], 0)
        result = SparseTensor(new_indices, sp_values.values, new_shape)
        if already_sorted:
            return result
        sorted_result = sparse_reorder(result)
        return SparseTensor(sorted_result.indices, sorted_result.values, new_shape)

