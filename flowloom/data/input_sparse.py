"""SparseTensors through the batching queues, as TF carries them: before the enqueue each
SparseTensor is stored in a SparseTensorsMap (AddSparseToTensorsMap, or
AddManySparseToTensorsMap with `enqueue_many`) and the queue carries its int64 handle; after
the dequeue TakeManySparseFromTensorsMap turns a batch of handles back into one SparseTensor
(ops/array/sparse_map_ops.py)."""

from flowloom.framework import dtypes
from flowloom.framework.sparse_tensor import SparseTensor


class SparseMetaData:
    """Whether a component is sparse, the op whose map holds it, and its static rank."""

    def __init__(self, sparse, map_op, rank):
        self._sparse = sparse
        self._map_op = map_op
        self._rank = rank

    def __eq__(self, other):
        if self.sparse != other.sparse:
            return False
        if not self.sparse:
            return True
        if (self.map_op is not None) != (other.map_op is not None):
            return False
        if self.map_op != other.map_op:
            return False
        return self.rank.is_compatible_with(other.rank)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = None

    def __str__(self):
        return "[SparseMetaData(%s, %s, %s)]" % (
            self.sparse, self.map_op.name if self.map_op is not None else None, self.rank)

    def merge_with(self, other):
        if self != other:
            raise ValueError(f"SparseMetaData objects are incompatible: {self} vs. {other}")
        if self.sparse:
            self.rank.merge_with(other.rank)
        return self

    @property
    def map_op(self):
        return self._map_op

    @property
    def sparse(self):
        return self._sparse

    @property
    def rank(self):
        return self._rank


def _ops():
    from flowloom.layers.base import smart_cond
    from flowloom.ops.array import array_ops, sparse_map_ops
    from flowloom.ops.array.sparse_reshape_ops import sparse_retain

    return array_ops, sparse_map_ops, sparse_retain, smart_cond


def store_sparse_tensors(tensor_list, enqueue_many, keep_input, shared_map_ops=None):
    """Replaces each SparseTensor of `tensor_list` by its map handles (a [1] int64 tensor per
    example, [n, 1] with `enqueue_many`), stored only where `keep_input` holds.

    With `shared_map_ops` (the map ops of an earlier call) the SparseTensors go into those
    maps (`batch_join`: several enqueuers feed one queue, one dequeue restores from one map).

    Returns:
      (stored_list, sparse_info_list): the tensors to enqueue and a SparseMetaData each.
    """
    array_ops, sparse_map_ops, sparse_retain, smart_cond = _ops()
    maybe_shared = shared_map_ops or [None] * len(tensor_list)

    def store(t, shared_map_op):
        if not isinstance(t, SparseTensor):
            return t, SparseMetaData(False, None, None)
        map_name = shared_map_op.name if shared_map_op is not None else None
        stores = []

        def add_one():
            out = sparse_map_ops.add_sparse_to_tensors_map(t, shared_name=map_name)
            stores.append(out.op)
            return out

        def add_many(sp):
            out = sparse_map_ops.add_many_sparse_to_tensors_map(sp, shared_name=map_name)
            stores.append(out.op)
            return out

        if keep_input.shape.ndims == 1:
            # A per-row keep_input keeps the values of the kept rows only.
            rows = t.indices[:, 0]
            stored = add_many(sparse_retain(t, array_ops.gather(keep_input, rows)))
        elif enqueue_many:
            stored = smart_cond(
                keep_input, lambda: add_many(t),
                lambda: -1 * array_ops.ones(array_ops.shape(t)[0:1], dtypes.int64))
            stored.set_shape([None])
        else:
            stored = smart_cond(keep_input, add_one,
                                lambda: array_ops.constant(-1, dtypes.int64))
        rank = t.dense_shape.shape.with_rank(1)[0]
        if enqueue_many:
            rank -= 1
        map_op = shared_map_op if shared_map_op is not None else stores[0]
        return stored, SparseMetaData(True, map_op, rank)

    pairs = [store(t, m) for t, m in zip(tensor_list, maybe_shared)]
    stored_list = [array_ops.expand_dims(s, -1) if info.sparse else s for s, info in pairs]
    return stored_list, [info for _, info in pairs]


def store_sparse_tensors_join(tensor_list_list, enqueue_many, keep_input):
    """`store_sparse_tensors` for each list; all of them share the first list's maps."""
    s0, infos = store_sparse_tensors(tensor_list_list[0], enqueue_many, keep_input)
    stored_list_list = [s0]
    for tensor_list in tensor_list_list[1:]:
        s, candidate = store_sparse_tensors(tensor_list, enqueue_many, keep_input,
                                            [info.map_op for info in infos])
        if infos != candidate:
            raise ValueError(f"Inconsistent SparseTensors list: {tensor_list_list[0]} vs. "
                             f"{tensor_list}")
        infos = [info.merge_with(c) for info, c in zip(infos, candidate)]
        stored_list_list.append(s)
    return stored_list_list, infos


def restore_sparse_tensors(stored_list, sparse_info_list):
    """The dequeued components with each sparse one's handles turned back into a SparseTensor
    (each output waits for all the restored values, so one run takes them all)."""
    from flowloom.ops.control_flow.control_flow_ops import with_dependencies

    array_ops, sparse_map_ops, _, _ = _ops()
    received_sequence = isinstance(stored_list, (list, tuple))
    if not received_sequence:
        stored_list = (stored_list,)
    tensors = [
        sparse_map_ops.take_many_sparse_from_tensors_map(
            sparse_map_op=info.map_op, sparse_handles=array_ops.squeeze(s, [1]),
            rank=(info.rank + 1).value)
        if info.sparse else s
        for s, info in zip(stored_list, sparse_info_list)]
    if not any(isinstance(x, SparseTensor) for x in tensors):
        return list(tensors) if received_sequence else tensors[0]
    t_values = [x.values if isinstance(x, SparseTensor) else x for x in tensors]

    def with_deps(x):
        return with_dependencies(t_values, x)

    restored = [SparseTensor(indices=with_deps(x.indices), values=with_deps(x.values),
                             dense_shape=with_deps(x.dense_shape))
                if isinstance(x, SparseTensor) else with_deps(x) for x in tensors]
    return restored if received_sequence else tensors[0]
