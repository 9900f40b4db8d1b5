"""Barriers (the Barrier op family): a key -> tuple map whose complete tuples are taken in
batches.

A barrier is a session resource under (container, shared_name or op name). BarrierInsertMany
sets one component of the tuple of each key; a key whose components are all set is complete
and waits in the ready line, ordered by the index of the insert that first brought the key
(the n-th insert that brought new keys has index -2**63 + n), then by completion. Its
element shapes and types are checked when it completes. BarrierTakeMany waits until
`num_elements` tuples are ready and gives their indices, keys and components stacked.

Closing: new keys fail with CancelledError, keys already present may still be completed; a
take that the ready tuples cannot satisfy fails with OutOfRangeError (with
`allow_small_batch`, it takes the ready ones if there are any; with `wait_for_incomplete` it
waits while incomplete keys remain). `cancel_pending_enqueues` also drops the incomplete keys
and refuses to complete any. Waits end at the run's deadline (runtime/blocking.py).
"""

import heapq
import itertools
import threading

import numpy as np

from flowloom.framework import common_shapes
from flowloom.framework import dtypes as dtypes_lib
from flowloom.framework import errors
from flowloom.framework import tensor_shape
from flowloom.framework.op_def import defop
from flowloom.ops.data import queue_resource
from flowloom.runtime import blocking

_INDEX_BASE = -2**63


def _shape_str(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


class BarrierResource:
    """The state of one barrier."""

    def __init__(self, name, dtypes, shapes, capacity, container=""):
        self.name = name
        self.container = container
        self.dtypes = [dtypes_lib.as_dtype(d).base_dtype for d in dtypes]
        self.shapes = shapes  # per component: a tuple of dims (None unknown), or None
        self.capacity = capacity
        self._incomplete = {}  # key -> (index, [component values or None])
        self._ready = []  # heap of (index, completion number, key, values)
        self._completions = itertools.count()
        self._inserts_with_new_keys = 0
        self._closed = False
        self._cancelled = False
        self._session_closed = False
        self._cond = threading.Condition(threading.Lock())

    def fetched_handle(self):
        """What fetching the Ref(string) handle gives: [container, name], as TF."""
        return np.array([(self.container or "localhost").encode(), self.name.encode()],
                        dtype=object)

    def session_closed(self):
        with self._cond:
            self._session_closed = True
            self._cond.notify_all()

    def insert_many(self, keys, values, component_index):
        n = len(self.dtypes)
        if not 0 <= component_index < n:
            raise errors.InvalidArgumentError(
                None, None, f"The component ID is out of range {component_index} > num_components "
                f"(= {n})")
        if values.dtype != self.dtypes[component_index].as_numpy_dtype and not (
                values.dtype == object and self.dtypes[component_index] == dtypes_lib.string):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid data types for component {component_index}: expected "
                f"{self.dtypes[component_index].name}, got "
                f"{dtypes_lib.as_dtype(values.dtype).name}")
        keys = [k.decode() if isinstance(k, bytes) else str(k) for k in keys.reshape(-1)]
        if values.ndim == 0 or values.shape[0] != len(keys):
            raise errors.InvalidArgumentError(
                None, None, f"Keys and values do not have the same number of elements: "
                f"{len(keys)} vs. {values.shape[0] if values.ndim else 0}")
        with self._cond:
            if self._cancelled:
                raise errors.CancelledError(
                    None, None, f"Barrier '{self.name}' is closed, pending enqueues cancelled.")
            new = [k for k in dict.fromkeys(keys) if k not in self._incomplete]
            if self._closed and new:
                raise errors.CancelledError(
                    None, None, f"Barrier '{self.name}' is closed, but attempted to insert a "
                    f"brand new key: {new[0]}. Pending keys: {len(self._incomplete)}. Ready "
                    f"keys: {len(self._ready)}")
            for key in keys:
                present = self._incomplete.get(key)
                if present is not None and present[1][component_index] is not None:
                    raise errors.InvalidArgumentError(
                        None, None, f"Key {key} already has a value for component "
                        f"{component_index}")
            index = _INDEX_BASE + self._inserts_with_new_keys
            if new:
                self._inserts_with_new_keys += 1
            for key, value in zip(keys, values):
                entry = self._incomplete.setdefault(key, (index, [None] * len(self.dtypes)))
                entry[1][component_index] = np.array(value, copy=True)
                if all(v is not None for v in entry[1]):
                    del self._incomplete[key]
                    self._check_complete(key, entry[1])
                    heapq.heappush(self._ready, (entry[0], next(self._completions), key,
                                                 entry[1]))
            self._cond.notify_all()

    def _check_complete(self, key, values):
        for i, (value, shape) in enumerate(zip(values, self.shapes)):
            if shape is not None and (len(shape) != value.ndim or any(
                    d is not None and d != s for d, s in zip(shape, value.shape))):
                raise errors.InvalidArgumentError(
                    None, None, f"Shape mismatch in tuple component {i}. Expected "
                    f"{_shape_str(shape)}, got {_shape_str(value.shape)} (key {key})")

    def take_many(self, num_elements, allow_small_batch, wait_for_incomplete, timeout_ms):
        with self._cond:
            def ready():
                if self._session_closed:
                    raise errors.CancelledError(None, None, "TakeMany operation was cancelled")
                if len(self._ready) >= num_elements:
                    return True
                if not self._closed:
                    return False
                if wait_for_incomplete and self._incomplete and not self._cancelled:
                    return False
                if allow_small_batch and self._ready:
                    return True
                raise errors.OutOfRangeError(
                    None, None, f"Barrier '{self.name}' is closed and has insufficient elements "
                    f"(requested {num_elements}, total size {len(self._ready)})")

            blocking.wait_until(self._cond, ready, timeout_ms)
            taken = [heapq.heappop(self._ready)
                     for _ in range(min(num_elements, len(self._ready)))]
        indices = np.array([t[0] for t in taken], dtype=np.int64)
        keys = np.array([t[2].encode() for t in taken], dtype=object).reshape(-1)
        comps = []
        for i, dtype in enumerate(self.dtypes):
            np_dtype = object if dtype == dtypes_lib.string else dtype.as_numpy_dtype
            if taken:
                comps.append(np.stack([t[3][i] for t in taken]).astype(np_dtype, copy=False))
            else:
                comps.append(np.zeros((0,) + tuple(d or 0 for d in self.shapes[i] or ()),
                                      dtype=np_dtype))
        return [indices, keys] + comps

    def close(self, cancel_pending_enqueues):
        with self._cond:
            self._closed = True
            if cancel_pending_enqueues:
                self._cancelled = True
                self._incomplete.clear()
            self._cond.notify_all()

    def ready_size(self):
        with self._cond:
            return np.int32(len(self._ready))

    def incomplete_size(self):
        with self._cond:
            return np.int32(len(self._incomplete))


Barrier = defop("Barrier", outputs=["handle: Ref(string)"],
                attrs={"component_types": None, "shapes": [], "capacity": -1, "container": "",
                       "shared_name": ""}, stateful=True)
Barrier.shape(lambda op: [tensor_shape.TensorShape([2])])
Barrier.no_gradient()


@Barrier.kernel
def _(xp, *, component_types, shapes, capacity, container, shared_name, ctx):
    key = ("barrier", container, shared_name or ctx.op._name)
    barrier = ctx.resources.get(key)
    if barrier is None:
        dims = [None if s.dims is None else tuple(s.as_list())
                for s in (tensor_shape.as_shape(s) for s in shapes)] or \
            [None] * len(component_types)
        barrier = ctx.resources.setdefault(key, BarrierResource(
            queue_resource.resource_name(ctx.op._name, shared_name), component_types, dims,
            capacity, container))
    return barrier


def _op(type_name, inputs, outputs, attrs, shape_fn):
    od = defop(type_name, inputs=inputs, outputs=outputs, attrs=attrs, stateful=True)
    od.shape(shape_fn)
    od.no_gradient()
    return od


def _insert_shapes(op):
    keys, values = op._inputs[1]._shape, op._inputs[2]._shape
    if keys.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {keys.ndims}")
    keys = keys.with_rank(1)
    values = values.with_rank_at_least(1)
    common_shapes.merge(keys, values[:1])  # one row of values per key
    return []


BarrierInsertMany = _op("BarrierInsertMany",
                        ["handle: Ref(string)", "keys: string", "values: T"], [],
                        {"component_index": None}, _insert_shapes)


@BarrierInsertMany.kernel
def _(xp, handle, keys, values, *, component_index):
    handle.insert_many(np.asarray(keys), np.asarray(values), component_index)


def _take_shapes(op):
    n = len(op._attrs["component_types"])
    return [tensor_shape.TensorShape([None]), tensor_shape.TensorShape([None])] + \
        [tensor_shape.unknown_shape() for _ in range(n)]


BarrierTakeMany = _op("BarrierTakeMany", ["handle: Ref(string)", "num_elements: int32"],
                      ["indices: int64", "keys: string", "values: list(component_types)"],
                      {"component_types": None, "allow_small_batch": False,
                       "wait_for_incomplete": False, "timeout_ms": -1}, _take_shapes)


@BarrierTakeMany.kernel
def _(xp, handle, num_elements, *, component_types, allow_small_batch, wait_for_incomplete,
      timeout_ms):
    return handle.take_many(int(num_elements), allow_small_batch, wait_for_incomplete,
                            timeout_ms)


BarrierClose = _op("BarrierClose", ["handle: Ref(string)"], [],
                   {"cancel_pending_enqueues": False}, lambda op: [])


@BarrierClose.kernel
def _(xp, handle, *, cancel_pending_enqueues):
    handle.close(cancel_pending_enqueues)


BarrierReadySize = _op("BarrierReadySize", ["handle: Ref(string)"], ["size: int32"], {},
                       lambda op: [tensor_shape.TensorShape([])])
BarrierReadySize.kernel(lambda xp, handle: handle.ready_size())
BarrierIncompleteSize = _op("BarrierIncompleteSize", ["handle: Ref(string)"], ["size: int32"],
                            {}, lambda op: [tensor_shape.TensorShape([])])
BarrierIncompleteSize.kernel(lambda xp, handle: handle.incomplete_size())

blocking.BLOCKING_TYPES.add("BarrierTakeMany")
