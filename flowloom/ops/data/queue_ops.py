"""Queue ops with TF's op types: the queue handles and the Queue* ops that use them.

The handle ops (`FIFOQueueV2`, ...) are stateful: the first run in a session creates the
queue as a session resource under (container, shared_name or op name); later runs, and other
handle ops with the same shared_name, find it (a shared queue must agree on its types and
capacity). The Queue* ops take the handle as their first input and block as the queue says
(ops/data/queue_resource.py).
"""

import numpy as np

from flowloom.framework import dtypes as dtypes_lib
from flowloom.framework import tensor_shape
from flowloom.framework.op_def import defop
from flowloom.ops.data import queue_resource as qr
from flowloom.runtime import blocking

_HANDLE_ATTRS = {"component_types": None, "shapes": [], "capacity": -1, "container": "",
                 "shared_name": ""}


def _dims(shape):
    shape = tensor_shape.as_shape(shape)
    if shape.dims is None:
        return None
    return tuple(shape.as_list())


def _find_or_create(ctx, kind, dtypes, shapes, capacity, container, shared_name, make,
                    **attrs):
    queue = ctx.state.get("queue")
    if queue is not None and ctx.resources.get(ctx.state["key"]) is queue:
        return queue
    key = ("queue", container, shared_name or ctx.op._name)
    queue = ctx.resources.get(key)
    dims = [_dims(s) for s in shapes]
    if queue is None:
        name = qr.resource_name(ctx.op._name, shared_name)
        queue = ctx.resources.setdefault(key, make(name, list(dtypes),
                                                   dims or [None] * len(dtypes), capacity))
    else:
        queue.check_compatible(kind, dtypes, dims, capacity, **attrs)
    ctx.state["queue"] = queue
    ctx.state["key"] = key
    return queue


def _handle_op(type_name, attrs):
    od = defop(type_name, outputs=["handle: resource"], attrs=attrs, stateful=True)
    od.shape(lambda op: [tensor_shape.TensorShape([])])
    od.no_gradient()
    return od


FIFOQueueV2 = _handle_op("FIFOQueueV2", _HANDLE_ATTRS)


@FIFOQueueV2.kernel
def _(xp, *, component_types, shapes, capacity, container, shared_name, ctx):
    return _find_or_create(ctx, "FIFOQueue", component_types, shapes, capacity, container,
                           shared_name, qr.Queue)


PaddingFIFOQueueV2 = _handle_op("PaddingFIFOQueueV2", _HANDLE_ATTRS)


@PaddingFIFOQueueV2.kernel
def _(xp, *, component_types, shapes, capacity, container, shared_name, ctx):
    return _find_or_create(ctx, "PaddingFIFOQueue", component_types, shapes, capacity,
                           container, shared_name, qr.PaddingFIFOQueue)


PriorityQueueV2 = _handle_op("PriorityQueueV2", dict(_HANDLE_ATTRS, component_types=[]))


@PriorityQueueV2.kernel
def _(xp, *, component_types, shapes, capacity, container, shared_name, ctx):
    # The int64 priority is component 0 (not listed in component_types, as in TF).
    types = [dtypes_lib.int64] + list(component_types)
    attr = [()] + [_dims(s) for s in shapes]
    dims = attr if shapes else [()] + [None] * len(component_types)
    return _find_or_create(
        ctx, "PriorityQueue", types, [tensor_shape.TensorShape(d) for d in attr], capacity,
        container, shared_name,
        lambda name, t, _s, cap: qr.PriorityQueue(name, t, dims, cap, shape_attr=attr))


RandomShuffleQueueV2 = _handle_op(
    "RandomShuffleQueueV2", dict(_HANDLE_ATTRS, min_after_dequeue=0, seed=0, seed2=0))


@RandomShuffleQueueV2.kernel
def _(xp, *, component_types, shapes, capacity, min_after_dequeue, seed, seed2, container,
      shared_name, ctx):
    def make(name, types, dims, cap):
        return qr.RandomShuffleQueue(name, types, dims, cap, min_after_dequeue, seed, seed2)

    return _find_or_create(ctx, "RandomShuffleQueue", component_types, shapes, capacity,
                           container, shared_name, make, min_after_dequeue=min_after_dequeue,
                           seed=seed, seed2=seed2)


def _unknown_outputs(op):
    return [tensor_shape.unknown_shape() for _ in op._outputs]


def _simple(type_name, inputs, outputs, attrs):
    od = defop(type_name, inputs=inputs, outputs=outputs, attrs=attrs, stateful=True)
    od.shape(_unknown_outputs)
    od.no_gradient()
    return od


QueueEnqueueV2 = _simple("QueueEnqueueV2", ["handle: resource", "components: list(Tcomponents)"],
                         [], {"timeout_ms": -1})


@QueueEnqueueV2.kernel
def _(xp, handle, *components, timeout_ms):
    handle.enqueue(components, timeout_ms)


QueueEnqueueManyV2 = _simple("QueueEnqueueManyV2",
                             ["handle: resource", "components: list(Tcomponents)"], [],
                             {"timeout_ms": -1})


@QueueEnqueueManyV2.kernel
def _(xp, handle, *components, timeout_ms):
    handle.enqueue(components, timeout_ms, many=True)


QueueDequeueV2 = _simple("QueueDequeueV2", ["handle: resource"],
                         ["components: list(component_types)"], {"timeout_ms": -1})


def _outputs(values):
    # A list output: the kernel returns the list, even of one array (the executor's rule).
    return list(values)


@QueueDequeueV2.kernel
def _(xp, handle, *, timeout_ms):
    return _outputs(handle.dequeue(None, timeout_ms))


QueueDequeueManyV2 = _simple("QueueDequeueManyV2", ["handle: resource", "n: int32"],
                             ["components: list(component_types)"], {"timeout_ms": -1})


@QueueDequeueManyV2.kernel
def _(xp, handle, n, *, timeout_ms):
    return _outputs(handle.dequeue(int(n), timeout_ms))


QueueDequeueUpToV2 = _simple("QueueDequeueUpToV2", ["handle: resource", "n: int32"],
                             ["components: list(component_types)"], {"timeout_ms": -1})


@QueueDequeueUpToV2.kernel
def _(xp, handle, n, *, timeout_ms):
    return _outputs(handle.dequeue(int(n), timeout_ms, allow_smaller=True))


QueueCloseV2 = _simple("QueueCloseV2", ["handle: resource"], [],
                       {"cancel_pending_enqueues": False})


@QueueCloseV2.kernel
def _(xp, handle, *, cancel_pending_enqueues):
    handle.close(cancel_pending_enqueues)


QueueSizeV2 = _simple("QueueSizeV2", ["handle: resource"], ["size: int32"], {})
QueueSizeV2.shape(lambda op: [tensor_shape.TensorShape([])])


@QueueSizeV2.kernel
def _(xp, handle):
    return np.int32(handle.size())


QueueIsClosedV2 = _simple("QueueIsClosedV2", ["handle: resource"], ["is_closed: bool"], {})
QueueIsClosedV2.shape(lambda op: [tensor_shape.TensorShape([])])


@QueueIsClosedV2.kernel
def _(xp, handle):
    return np.bool_(handle.is_closed())


# The queue ops that wait (close waits behind pending enqueues) run after the rest of their run.
blocking.BLOCKING_TYPES.update(("QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2",
                                "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueCloseV2"))
