"""embedding_lookup: rows of (possibly sharded) embedding tables."""

from flowloom.framework import dtypes
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
    if hasattr(p, "_as_graph_element") and hasattr(p, "value") and not isinstance(p, Tensor):
        return p.value()
    return p


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None):
    """Looks up rows `ids` in `params` (one tensor, or a list of shards).

    Args:
      params: a tensor/Variable, or a list of shards split along dimension 0.
      ids: int32/int64 tensor of row ids.
      partition_strategy: "mod" (id % n shards) or "div" (contiguous blocks), as in TF.
      max_norm: clip each embedding to this L2 norm.

    Returns:
      A tensor of shape `ids.shape + params.shape[1:]`. Its gradient with respect to the
      table is an IndexedSlices (GatherV2's gradient).

    Raises:
      ValueError: for an empty `params` or an unknown partition strategy.
    """
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    if not isinstance(params, (list, tuple)):
        params = [params]
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"Unrecognized partition strategy: {partition_strategy}. Must be one "
                         "of either `mod` or `div`.")
    with name_scope(name, "embedding_lookup", list(params) + [ids]) as scope:
        n = len(params)
        ids = convert_to_tensor(ids, name="ids")
        if n == 1:
            with colocate_with(params[0]):
                result = _clip(array_ops.gather(_as_tensor(params[0]), ids, name=scope), ids,
                               max_norm)
            # The result is not colocated with the params (TF's final identity).
            return array_ops.identity(result)
        return _sharded_lookup([_as_tensor(p) for p in params], ids, partition_strategy,
                               max_norm)


def _sharded_lookup(params, ids, strategy, max_norm):
    """TF's partitioned lookup: route each id to its shard, gather, stitch back in order."""
    n = len(params)
    flat_ids = array_ops.reshape(ids, [-1])
    original_indices = math_ops.range_(0, array_ops.size(flat_ids))
    if strategy == "mod":
        p_assignments = flat_ids % n
        new_ids = flat_ids // n
    else:
        dims = [p._shape.as_list()[0] if p._shape.ndims else None for p in params]
        if any(d is None for d in dims):
            raise NotImplementedError("div-partitioned embedding_lookup with shards of unknown "
                                      "size")
        total = sum(dims)
        ids_per = total // n
        extras = total % n
        p_assignments = math_ops.maximum(flat_ids // (ids_per + 1),
                                         (flat_ids - extras) // ids_per)
        is_in_first_extras = math_ops.cast(math_ops.less(p_assignments, extras),
                                           flat_ids.dtype.base_dtype)
        new_ids = (is_in_first_extras * (flat_ids % (ids_per + 1)) +
                   (1 - is_in_first_extras) * ((flat_ids - extras) % ids_per))
    p_assignments = math_ops.cast(p_assignments, dtypes.int32)
    # Gather per shard with a boolean mask, then put rows back in the original order.
    pieces, positions = [], []
    for p in range(n):
        mask = math_ops.equal(p_assignments, p)
        ids_p = array_ops.boolean_mask(new_ids, mask)
        pieces.append(array_ops.gather(params[p], ids_p))
        positions.append(array_ops.boolean_mask(original_indices, mask))
    rows = array_ops.concat(pieces, 0)
    order = array_ops.concat(positions, 0)
    inverse = math_ops.unsorted_segment_sum(math_ops.range_(0, array_ops.size(order)), order,
                                            array_ops.size(order))
    stitched = array_ops.gather(rows, inverse)
    out_shape = array_ops.concat([array_ops.shape(ids), array_ops.shape(params[0])[1:]], 0)
    result = array_ops.reshape(stitched, out_shape)
    return _clip(result, ids, max_norm)
