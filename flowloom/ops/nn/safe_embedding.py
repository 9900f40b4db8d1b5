"""`tf.nn.safe_embedding_lookup_sparse`: an embedding lookup that tolerates empty rows and
invalid (negative) ids, as feature columns and linear models use it."""

from flowloom.framework import dtypes
from flowloom.framework.graph import name_scope
from flowloom.framework.sparse_tensor import SparseTensor
from flowloom.framework.tensor_shape import dimension_value


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None,
                                 combiner="mean", default_id=None, name=None,
                                 partition_strategy="div", max_norm=None):
    """Looks up and combines the embeddings of each row's ids; empty rows give zeros.

    Ids < 0 (and, for 'mean'/'sqrtn', entries of weight <= 0) are dropped first. The ids may
    have any rank >= 2: the result has shape `sparse_ids.dense_shape[:-1] + [dim]`.

    Args:
      embedding_weights: a variable [vocab, dim] (or a list of its shards).
      sparse_ids: an int64 `SparseTensor` of ids.
      sparse_weights: a float `SparseTensor` with the ids' indices, or None (weight 1).
      combiner: 'sum', 'mean' or 'sqrtn'.
      default_id: the id whose embedding empty rows get (zeros when None).
      name: a name scope.
      partition_strategy: how sharded weights are split ('div' or 'mod').
      max_norm: clip each embedding to this L2 norm.

    Returns:
      The dense combined embeddings.

    Raises:
      ValueError: if embedding_weights is empty or the combiner is unknown.
    """
    from flowloom.ops.array import array_ops
    from flowloom.ops.array.sparse_reshape_ops import (sparse_fill_empty_rows, sparse_reshape,
                                                       sparse_retain)
    from flowloom.ops.math import math_ops
    from flowloom.ops.nn.nn_extras import embedding_lookup_sparse

    from flowloom.framework.ops import convert_to_tensor
    from flowloom.partitioned_variables import PartitionedVariable
    from flowloom.resource_variable import ResourceVariable

    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if isinstance(embedding_weights, PartitionedVariable):
        embedding_weights = list(embedding_weights)
    if not isinstance(embedding_weights, (list, tuple)):
        embedding_weights = [embedding_weights]
    if not embedding_weights:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    embedding_weights = [
        w if isinstance(w, ResourceVariable) and dtype in (None, w.dtype)
        else convert_to_tensor(w, dtype=dtype) for w in embedding_weights]
    if combiner not in ("sum", "mean", "sqrtn"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    with name_scope(name, "embedding_lookup", list(embedding_weights) + [sparse_ids]) as scope:
        original_shape = sparse_ids.dense_shape
        rank_dim = dimension_value(original_shape.get_shape()[0])
        original_rank = array_ops.size(original_shape) if rank_dim is None else rank_dim
        flat_shape = [math_ops.reduce_prod(array_ops.slice(original_shape, [0],
                                                           [original_rank - 1])),
                      array_ops.gather(original_shape, original_rank - 1)]
        sparse_ids = sparse_reshape(sparse_ids, array_ops.stack(flat_shape))
        if sparse_weights is not None:
            sparse_weights = SparseTensor(sparse_ids.indices, sparse_weights.values,
                                          sparse_ids.dense_shape)
        keep = math_ops.greater_equal(sparse_ids.values, 0)
        sparse_ids = sparse_retain(sparse_ids, keep)
        if sparse_weights is not None:
            sparse_weights = sparse_retain(sparse_weights, keep)
            if combiner != "sum":
                positive = math_ops.greater(sparse_weights.values, 0)
                sparse_ids = sparse_retain(sparse_ids, positive)
                sparse_weights = sparse_retain(sparse_weights, positive)
        sparse_ids, is_row_empty = sparse_fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(list(embedding_weights), sparse_ids, sparse_weights,
                                         combiner=combiner, partition_strategy=partition_strategy,
                                         name=None if default_id is None else scope,
                                         max_norm=max_norm)
        if default_id is None:
            is_row_empty = array_ops.tile(array_ops.reshape(is_row_empty, [-1, 1]),
                                          array_ops.stack([1, array_ops.shape(result)[1]]))
            result = array_ops.where(is_row_empty, array_ops.zeros_like(result), result)
        outer = array_ops.slice(math_ops.cast(original_shape, dtypes.int32), [0],
                                [original_rank - 1])
        final = array_ops.reshape(result, array_ops.concat(
            [outer, array_ops.slice(array_ops.shape(result), [1], [-1])], 0))
        dim = dimension_value(embedding_weights[0].get_shape()[-1]) \
            if embedding_weights[0].get_shape().ndims else None
        if rank_dim is not None and dim is not None:
            final.set_shape([None] * (rank_dim - 1) + [dim])
        return final
