"""A partition of a plan, written down for another task and rebuilt there.

The session that runs a step (the master) places and partitions the graph with the local
machinery (runtime/placer.py, runtime/partitioner.py); the partitions of another task are
sent to that task as plain data: for each step its kind, op or key, value slots and the
slots it frees. The task rebuilds the same `Step`/`SendStep`/`RecvStep` objects on its copy
of the graph (imported from the master's GraphDef), binds its own kernels and runs them
with `runtime/parallel.run_partition`, as a local device's partition runs.

An op that a rewrite made for the plan (a fused kernel, an AddN for a chain of adds, a copy
reading a twin's output: `runtime/rewrite_remap.RewrittenOp`) is not in the task's graph: its
step carries the op itself (type, name, input tensor names, attrs and the graph ops it stands
for), and the task makes the same RewrittenOp over its copy of the graph. Looking it up by
name would find the graph op it replaced, with another kernel and fewer inputs.
"""

import numpy as np

from flowloom.runtime import executor
from flowloom.runtime.partitioner import Partition, RecvStep, SendStep


def describe_partition(partition):
    """`partition` (a runtime Partition) as a tuple of plain values."""
    steps = []
    for s in partition.steps:
        if s.kind == "op":
            steps.append(("op", s.op._name, tuple(s.ins), tuple(s.derefs), s.out, s.nout,
                          tuple(s.frees), _describe_rewritten(s.op)))
        else:
            slot = s.ins[0] if s.kind == "send" and s.ins else (
                s.out if s.kind == "recv" else None)
            steps.append((s.kind, s.name, s.key, slot, tuple(s.frees), s.src.name, s.dst.name,
                          s.tensor.name if s.tensor is not None else None,
                          s.control_op._name if s.control_op is not None else None,
                          s.tensor_name))
    return (partition.device.name, bool(partition.has_control_flow), tuple(steps))


def _describe_rewritten(op):
    """None for a graph op; for an op a rewrite made, what `_rewritten_op` rebuilds it from."""
    if getattr(op, "replaces", None) is None:
        return None
    from flowloom.runtime.rewrite_remap import stands_for

    return (op._type, op._name, tuple(t.name for t in op._inputs), dict(op._attrs),
            tuple(g._name for g in stands_for(op)))


def _rewritten_op(graph, desc):
    from flowloom.runtime.rewrite_remap import RewrittenOp

    type_name, name, inputs, attrs, replaces = desc
    return RewrittenOp(type_name, name, [graph.get_tensor_by_name(n) for n in inputs], attrs,
                       [graph.get_operation_by_name(n) for n in replaces])


class _PeerDevice:
    """Another task's device, as a rebuilt Send/Recv step names it (host memory)."""

    __slots__ = ("name",)
    xp = np
    is_host = True
    cuda_id = None

    def __init__(self, name):
        self.name = name


class RemotePlan:
    """The partitions one task runs for one plan of a master session."""

    __slots__ = ("partitions", "num_slots")

    def __init__(self, partitions, num_slots):
        self.partitions = partitions
        self.num_slots = num_slots


def rebuild(descs, num_slots, graph, session_view, devices):
    """The `RemotePlan` of `descs` on this task's `graph` and `devices` ({name: Device})."""
    partitions = []
    peers = {}

    def device(name):
        d = devices.get(name)
        if d is None:
            d = peers.setdefault(name, _PeerDevice(name))
        return d

    for dev_name, has_cf, step_descs in descs:
        dev = devices[dev_name]
        steps = []
        for d in step_descs:
            if d[0] == "op":
                _, op_name, ins, derefs, out, nout, frees, rewritten = d
                op = graph.get_operation_by_name(op_name) if rewritten is None else \
                    _rewritten_op(graph, rewritten)
                step = executor.Step(op, executor._bind_kernel(session_view, op, dev.xp),
                                     ins, derefs, out, nout, dev)
            else:
                kind, name, key, slot, frees, src, dst, tensor, control, edge = d
                tensor = graph.get_tensor_by_name(tensor) if tensor else None
                control = graph.get_operation_by_name(control) if control else None
                cls = SendStep if kind == "send" else RecvStep
                step = cls(name, key, slot, device(src), device(dst), tensor, control, edge)
            step.frees = frees
            steps.append(step)
        partitions.append(Partition(dev, steps, has_cf))
    return RemotePlan(partitions, num_slots)
