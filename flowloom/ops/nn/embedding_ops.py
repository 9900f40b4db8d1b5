"""embedding_lookup: rows of (possibly sharded or partitioned) embedding tables."""

from flowloom.framework import dtypes
from flowloom.framework import tensor_shape
from flowloom.framework.graph import colocate_with, name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.math import clip_ops
from flowloom.ops.math import math_ops


def _clip(params, ids, max_norm):
    """Clips each looked-up embedding to an L2 norm of at most `max_norm`."""
    if max_norm is None:
        return params
    ids_rank, params_rank = ids._shape.ndims, params._shape.ndims
    if ids_rank is None or params_rank is None:
        raise NotImplementedError("embedding_lookup max_norm with unknown ranks")
    return clip_ops.clip_by_norm(params, max_norm,
                                 axes=list(range(ids_rank, params_rank)))


def _as_tensor(p):
    from flowloom.resource_variable import ResourceVariable

    if isinstance(p, ResourceVariable):
        return p  # gathered through its handle (ResourceGather), not read whole
    if hasattr(p, "_as_graph_element") and hasattr(p, "value") and not isinstance(p, Tensor):
        return p.value()
    if isinstance(p, Tensor) or hasattr(p, "indices"):
        return p
    return convert_to_tensor(p, name="params")


def _shard_list(params):
    """`params` as a list of shards: a PartitionedVariable gives its parts."""
    from flowloom.partitioned_variables import PartitionedVariable

    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, PartitionedVariable):
        return list(params)
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("Length of params is currently 0. Need at least one param.")
        return list(params)
    return [params]


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None):
    """Looks up rows `ids` in `params` (one tensor, a list of shards or a
    PartitionedVariable).

    Args:
      params: a tensor/Variable, a list of shards split along dimension 0, or a
        PartitionedVariable.
      ids: int32/int64 tensor of row ids.
      partition_strategy: "mod" (id % n shards) or "div" (contiguous blocks), as in TF.
      max_norm: clip each embedding to this L2 norm.

    Returns:
      A tensor of shape `ids.shape + params.shape[1:]`. Its gradient with respect to the
      table is an IndexedSlices (GatherV2's gradient).

    Raises:
      ValueError: for an empty `params` or an unknown partition strategy.
    """
    return _embedding_lookup_and_transform(params, ids, partition_strategy, name, max_norm)


def _embedding_lookup_and_transform(params, ids, partition_strategy="mod", name=None,
                                    max_norm=None, transform_fn=None):
    """embedding_lookup, with `transform_fn` applied to the (clipped) rows of each shard."""
    params = _shard_list(params)
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"Unrecognized partition strategy: {partition_strategy}. Must be one "
                         "of either `mod` or `div`.")
    with name_scope(name, "embedding_lookup", params + [ids]) as scope:
        params = [_as_tensor(p) for p in params]
        ids = convert_to_tensor(ids, name="ids")
        if len(params) == 1 and (transform_fn is None or ids._shape.ndims == 1):
            with colocate_with(params[0]):
                result = _clip(array_ops.gather(params[0], ids, name=scope), ids, max_norm)
                if transform_fn is not None:
                    result = transform_fn(result)
            # The result is not colocated with the params (TF's final identity).
            return array_ops.identity(result)
        return _sharded_lookup(params, ids, partition_strategy, max_norm, transform_fn)


def _total_rows(params, dtype):
    """The number of rows of all shards: a constant when every shard's is known."""
    dims = [tensor_shape.dimension_value(p.get_shape()[0]) if p.get_shape().ndims else None
            for p in params]
    if all(d is not None for d in dims):
        return array_ops.constant(sum(dims), dtype)
    sizes = []
    for p, d in zip(params, dims):
        if d is not None:
            sizes.append(d)
        else:
            with colocate_with(p):
                sizes.append(array_ops.shape(p)[0])
    return math_ops.reduce_sum(math_ops.cast(array_ops.stack(sizes), dtype))


def _sharded_lookup(params, ids, strategy, max_norm, transform_fn):
    """TF's partitioned lookup: route each id to its shard, gather, stitch back in order."""
    n = len(params)
    flat_ids = array_ops.reshape(ids, [-1])
    original_indices = math_ops.range_(0, array_ops.size(flat_ids))
    if strategy == "mod":
        p_assignments = flat_ids % n
        new_ids = flat_ids // n
    else:
        total = _total_rows(params, flat_ids.dtype.base_dtype)
        ids_per = total // n
        extras = total % n
        p_assignments = math_ops.maximum(flat_ids // (ids_per + 1),
                                         (flat_ids - extras) // ids_per)
        new_ids = array_ops.where(math_ops.less(p_assignments, extras),
                                  flat_ids % (ids_per + 1), (flat_ids - extras) % ids_per)
    p_assignments = math_ops.cast(p_assignments, dtypes.int32)
    # Gather per shard with a boolean mask, then put rows back in the original order.
    pieces, positions = [], []
    for p in range(n):
        mask = math_ops.equal(p_assignments, p)
        ids_p = array_ops.boolean_mask(new_ids, mask)
        with colocate_with(params[p]):
            rows = array_ops.gather(params[p], ids_p)
            if transform_fn is not None:
                rows = transform_fn(_clip(rows, ids_p, max_norm))
        pieces.append(rows)
        positions.append(array_ops.boolean_mask(original_indices, mask))
    rows = array_ops.concat(pieces, 0)
    order = array_ops.concat(positions, 0)
    inverse = math_ops.unsorted_segment_sum(math_ops.range_(0, array_ops.size(order)), order,
                                            array_ops.size(order))
    stitched = array_ops.gather(rows, inverse)
    if transform_fn is None:
        element_shape = params[0].get_shape()[1:]
        for p in params[1:]:
            element_shape = element_shape.merge_with(p.get_shape()[1:])
    else:
        element_shape = stitched.get_shape()[1:]
    if element_shape.is_fully_defined():
        dynamic_shape = array_ops.constant(element_shape.as_list(), dtypes.int32)
    elif transform_fn is None:
        with colocate_with(params[0]):
            dynamic_shape = array_ops.shape(params[0])[1:]
    else:
        dynamic_shape = array_ops.shape(stitched)[1:]
    result = array_ops.reshape(stitched, array_ops.concat(
        [array_ops.shape(ids), dynamic_shape], 0))
    result.set_shape(ids.get_shape().concatenate(element_shape))
    return result if transform_fn is not None else _clip(result, ids, max_norm)


def embedding_lookup_v2(params, ids, max_norm=None, name=None):
    """TF 2's embedding_lookup: always the "div" partition strategy."""
    return embedding_lookup(params, ids, "div", name, max_norm=max_norm)


def embedding_lookup_sparse_v2(params, sp_ids, sp_weights, combiner=None, max_norm=None,
                               name=None):
    """TF 2's embedding_lookup_sparse: always the "div" partition strategy."""
    from flowloom.ops.nn.nn_extras import embedding_lookup_sparse

    return embedding_lookup_sparse(params, sp_ids, sp_weights, "div", name, combiner, max_norm)


def safe_embedding_lookup_sparse_v2(embedding_weights, sparse_ids, sparse_weights=None,
                                    combiner="mean", default_id=None, max_norm=None, name=None):
    """TF 2's safe_embedding_lookup_sparse: always the "div" partition strategy."""
    from flowloom.ops.nn.safe_embedding import safe_embedding_lookup_sparse

    return safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights,
                                        combiner=combiner, default_id=default_id, name=name,
                                        partition_strategy="div", max_norm=max_norm)
