"""SparseTensorsMap ops (TF's op types): AddSparseToTensorsMap, AddManySparseToTensorsMap,
TakeManySparseFromTensorsMap.

A SparseTensorsMap is a session resource under (container, shared_name or the adding op's
name) that holds SparseTensors by int64 handle. The Add ops store one SparseTensor (or each
minibatch row of one, `AddMany`) and return the handles; `TakeMany` removes the SparseTensors
of a vector of handles from the map and returns them as one SparseTensor with a new leading
dimension. This is how `tf.train.batch` and friends carry SparseTensors through a queue: the
queue holds the handles.
"""

import threading

import numpy as np

from flowloom.framework import errors
from flowloom.framework import tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import Operation, colocate_with
from flowloom.framework.op_def import defop
from flowloom.framework.sparse_tensor import SparseTensor

_MAP_ATTRS = {"container": "", "shared_name": ""}


class SparseTensorsMap:
    """The handles' SparseTensors (indices, values, dense shape), numbered from 0."""

    def __init__(self, name):
        self.name = name
        self._lock = threading.Lock()
        self._counter = 0
        self._tensors = {}

    def add(self, indices, values, shape):
        with self._lock:
            handle = self._counter
            self._counter += 1
            self._tensors[handle] = (indices, values, shape)
        return handle

    def take(self, handles):
        with self._lock:
            for h in handles:
                if int(h) not in self._tensors:
                    raise errors.InvalidArgumentError(
                        None, None, f"Unable to find SparseTensor: {int(h)} in map: {self.name}")
            return [self._tensors.pop(int(h)) for h in handles]


def _map_of(ctx, container, shared_name):
    key = ("sparse_tensors_map", container, shared_name or ctx.op._name)
    found = ctx.resources.get(key)
    if found is None:
        found = ctx.resources.setdefault(key, SparseTensorsMap(shared_name or ctx.op._name))
    return found


def _check_input(indices, values, shape):
    if indices.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"Input indices should be a matrix but received shape "
            f"{list(indices.shape)}")
    if values.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"Input values should be a vector but received shape "
            f"{list(values.shape)}")
    if shape.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"Input shape should be a vector but received shape {list(shape.shape)}")
    if len(indices) != len(values) or indices.shape[1] != len(shape):
        raise errors.InvalidArgumentError(
            None, None, f"Inconsistent SparseTensor: indices {list(indices.shape)}, values "
            f"{list(values.shape)}, shape {list(shape.shape)}")


def _index_str(index):
    return "[" + ",".join(str(int(i)) for i in index) + "]"


def _check_indices_valid(indices, shape):
    """TF's SparseTensor::IndicesValid: in bounds, in row-major order, not repeated."""
    for n in range(len(indices)):
        row = indices[n]
        if np.any(row < 0) or np.any(row >= shape):
            raise errors.InvalidArgumentError(
                None, None, f"indices[{n}] = {_index_str(row)} is out of bounds: need 0 <= "
                f"index < {_index_str(shape)}")
        if n:
            prev = tuple(int(i) for i in indices[n - 1])
            cur = tuple(int(i) for i in row)
            if cur == prev:
                raise errors.InvalidArgumentError(
                    None, None, f"indices[{n}] = {_index_str(row)} is repeated")
            if cur < prev:
                raise errors.InvalidArgumentError(
                    None, None, f"indices[{n}] = {_index_str(row)} is out of order")


def _sparse_input_shapes(op):
    op._inputs[0]._shape.with_rank(2)
    op._inputs[1]._shape.with_rank(1)
    op._inputs[2]._shape.with_rank(1)


AddSparseToTensorsMap = defop(
    "AddSparseToTensorsMap",
    inputs=["sparse_indices: int64", "sparse_values: T", "sparse_shape: int64"],
    outputs=["sparse_handle: int64"], attrs=_MAP_ATTRS, stateful=True)
AddSparseToTensorsMap.no_gradient()


@AddSparseToTensorsMap.shape
def _(op):
    _sparse_input_shapes(op)
    return [tensor_shape.TensorShape([])]


@AddSparseToTensorsMap.kernel
def _(xp, indices, values, shape, *, container, shared_name, ctx):
    indices = np.asarray(indices, np.int64)
    values = np.asarray(values)
    shape = np.asarray(shape, np.int64)
    _check_input(indices, values, shape)
    handle = _map_of(ctx, container, shared_name).add(indices.copy(), values.copy(),
                                                      shape.copy())
    return np.array(handle, np.int64)


AddManySparseToTensorsMap = defop(
    "AddManySparseToTensorsMap",
    inputs=["sparse_indices: int64", "sparse_values: T", "sparse_shape: int64"],
    outputs=["sparse_handles: int64"], attrs=_MAP_ATTRS, stateful=True)
AddManySparseToTensorsMap.no_gradient()


@AddManySparseToTensorsMap.shape
def _(op):
    _sparse_input_shapes(op)
    return [tensor_shape.TensorShape([None])]


@AddManySparseToTensorsMap.kernel
def _(xp, indices, values, shape, *, container, shared_name, ctx):
    indices = np.asarray(indices, np.int64)
    values = np.asarray(values)
    shape = np.asarray(shape, np.int64)
    _check_input(indices, values, shape)
    rank = len(shape)
    if rank <= 1:
        raise errors.InvalidArgumentError(
            None, None, f"Rank of input SparseTensor should be > 1, but saw rank: {rank}")
    _check_indices_valid(indices, shape)
    n = int(shape[0])
    the_map = _map_of(ctx, container, shared_name)
    handles = np.empty(n, np.int64)
    visited = np.zeros(n, bool)
    rows = indices[:, 0]
    # One SparseTensor per minibatch row present (in order), then the empty rows.
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]]) if len(rows) else []
    bounds = list(starts) + [len(rows)]
    for s, e in zip(bounds[:-1], bounds[1:]):
        b = int(rows[s])
        visited[b] = True
        handles[b] = the_map.add(indices[s:e, 1:].copy(), values[s:e].copy(), shape[1:].copy())
    for b in np.flatnonzero(~visited):
        handles[b] = the_map.add(np.zeros((0, rank - 1), np.int64), values[:0].copy(),
                                 shape[1:].copy())
    return handles


TakeManySparseFromTensorsMap = defop(
    "TakeManySparseFromTensorsMap", inputs=["sparse_handles: int64"],
    outputs=["sparse_indices: int64", "sparse_values: dtype", "sparse_shape: int64"],
    attrs=dict(_MAP_ATTRS, dtype=None), stateful=True)
TakeManySparseFromTensorsMap.no_gradient()


@TakeManySparseFromTensorsMap.shape
def _(op):
    op._inputs[0]._shape.with_rank(1)
    return [tensor_shape.TensorShape([None, None]), tensor_shape.TensorShape([None]),
            tensor_shape.TensorShape([None])]


@TakeManySparseFromTensorsMap.kernel
def _(xp, handles, *, dtype, container, shared_name, ctx):
    handles = np.asarray(handles)
    if handles.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"sparse_handles should be a vector but received shape "
            f"{list(handles.shape)}")
    taken = _map_of(ctx, container, shared_name).take(handles)
    np_dtype = dtype.as_numpy_dtype if dtype.as_numpy_dtype is not None else object
    if not taken:
        return [np.zeros((0, 1), np.int64), np.zeros(0, np_dtype), np.array([0], np.int64)]
    rank = len(taken[0][2])
    for i, (_, _, shape) in enumerate(taken):
        if len(shape) != rank:
            raise errors.InvalidArgumentError(
                None, None, f"Inconsistent rank across SparseTensors: rank prior to "
                f"SparseTensor[{i}] was: {rank} but rank of SparseTensor[{i}] is: {len(shape)}")
    out_shape = np.concatenate([[len(taken)], np.max([t[2] for t in taken], axis=0)
                                if rank else np.zeros(0, np.int64)]).astype(np.int64)
    out_indices = np.concatenate(
        [np.concatenate([np.full((len(ix), 1), i, np.int64), ix.reshape(len(ix), rank)], axis=1)
         for i, (ix, _, _) in enumerate(taken)])
    out_values = np.concatenate([np.asarray(v, np_dtype).reshape(-1) for _, v, _ in taken])
    return [out_indices, out_values, out_shape]


def add_sparse_to_tensors_map(sp_input, container=None, shared_name=None, name=None):
    """Stores `sp_input` in a SparseTensorsMap; returns its int64 scalar handle."""
    return apply_op("AddSparseToTensorsMap",
                    (sp_input.indices, sp_input.values, sp_input.dense_shape), name=name,
                    container=container or "", shared_name=shared_name or "").outputs[0]


def add_many_sparse_to_tensors_map(sp_input, container=None, shared_name=None, name=None):
    """Stores each row (along the first dimension) of the rank > 1 `sp_input` in a
    SparseTensorsMap; returns the int64 vector of their handles."""
    return apply_op("AddManySparseToTensorsMap",
                    (sp_input.indices, sp_input.values, sp_input.dense_shape), name=name,
                    container=container or "", shared_name=shared_name or "").outputs[0]


def take_many_sparse_from_tensors_map(sparse_map_op, sparse_handles, rank=None, name=None):
    """The SparseTensors of `sparse_handles`, taken out of the map that `sparse_map_op` (an
    Add*SparseToTensorsMap op) stores into, stacked along a new first dimension.

    Args:
      sparse_map_op: the `Operation` that created the map's entries.
      sparse_handles: int64 vector of handles.
      rank: the rank of the result, when known (sets its static shape).

    Raises:
      TypeError: if `sparse_map_op` is not an Add*SparseToTensorsMap Operation.
    """
    if not isinstance(sparse_map_op, Operation):
        raise TypeError("sparse_map_op be an Operation")
    if sparse_map_op.type not in ("AddSparseToTensorsMap", "AddManySparseToTensorsMap"):
        raise TypeError("sparse_map_op must be either AddSparseToTensorsMap or "
                        f"AddManySparseToTensorsMap. Instead, found `{sparse_map_op.type}`.")
    with colocate_with(sparse_map_op):
        shared_name = sparse_map_op._attrs["shared_name"] or sparse_map_op.name
        indices, values, shape = apply_op(
            "TakeManySparseFromTensorsMap", (sparse_handles,), name=name,
            dtype=sparse_map_op.get_attr("T"), container=sparse_map_op._attrs["container"],
            shared_name=shared_name).outputs
    indices.set_shape([None, rank])
    shape.set_shape([rank])
    return SparseTensor(indices, values, shape)
