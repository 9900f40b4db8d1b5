"""The placer: assigns every op of a graph to one of the session's devices.

As TensorFlow's placer does, it works on colocation groups: ops that must share a device
(a `_class` attr `loc:@x` from `colocate_with`; an op with a reference or resource input,
such as Assign, a ReadVariableOp or a TensorArray write, and the op that made that input) are
placed together. A group goes to the device its members ask for (`op.device`, merged),
otherwise to the default device (CPU:0); as in TF, the device of an op that joined a group
only through such an input is ignored when it conflicts with the group's (the op follows its
resource).
An op placed once keeps its device while the graph grows; stateful ops never move.
"""

import sys

from flowloom.framework import dtypes, errors
from flowloom.framework.device import DeviceSpec

_LOCAL = DeviceSpec(job="localhost", replica=0, task=0)


class Placer:
    """Places the ops of one graph on one session's devices, incrementally as it grows.

    Args:
      devices: the session's `Device` list (CPU:0 first).
      allow_soft_placement: when a requested device does not exist, use one that does.
      log_device_placement: print `name: (Type): device` for each op placed, as TF does.
    """

    def __init__(self, devices, allow_soft_placement=False, log_device_placement=False):
        self.devices = list(devices)
        self.allow_soft_placement = allow_soft_placement
        self.log_device_placement = log_device_placement
        self.placement = {}  # Operation -> Device
        self._placed_count = 0

    def place_graph(self, graph, only=None):
        """Places the ops added to `graph` since the last call (of them, those in `only` when
        given: TF's place_pruned_graph); returns {op: Device}.

        Raises:
          InvalidArgumentError: an op asks for a device that does not exist (and soft
            placement is off), or colocated ops ask for incompatible devices.
        """
        # Another thread may be adding ops: work on a snapshot of complete ops (the graph adds
        # and removes ops under its lock) and place whatever is not placed yet.
        with graph._lock:
            ops = list(graph._ops)
        if only is None and self._placed_count == len(ops) and (not ops or
                                                                ops[-1] in self.placement):
            return self.placement
        new_ops = [op for op in (ops if only is None else only) if op not in self.placement]
        if not new_ops:
            return self.placement
        groups = _colocation_groups(ops)
        self._followers = groups.followers
        chosen = {}
        for op in new_ops:
            root = groups.find(op)
            device = chosen.get(root)
            if device is None:
                device = self._place_group(groups.members(root))
                chosen[root] = device
            self.placement[op] = device
        if only is None:
            self._placed_count = len(ops)
        if self.log_device_placement:
            for op in new_ops:
                print(f"{op._name}: ({op._type}): {self.placement[op].name}", file=sys.stderr)
        return self.placement

    def _place_group(self, members):
        for op in members:
            # A group with an op placed earlier stays where it is (stateful ops never move).
            if op in self.placement:
                return self.placement[op]
        requested = None
        first = None
        followers = getattr(self, "_followers", ())
        # The ops that follow a resource come last: their devices yield to the others'.
        for op in sorted(members, key=lambda op: op in followers):
            if not op._device:
                continue
            spec = DeviceSpec.from_string(op._device)
            if requested is None:
                requested, first = spec, op
            elif _compatible(requested, spec):
                requested = requested.make_merged_spec(spec)
            elif op in followers:
                continue
            elif not self.allow_soft_placement:
                raise errors.InvalidArgumentError(
                    None, op, f"Cannot colocate nodes {{{{colocation_node {first._name}}}}} and "
                    f"{{{{colocation_node {op._name}}}}}: Cannot merge devices with incompatible "
                    f"types: '{first._device}' and '{op._device}'")
        if requested is None:
            return self.devices[0]
        match = self._matching(requested)
        if match is not None and not match.is_host:
            host_only = next((op for op in members if _host_only(op)), None)
            if host_only is not None:
                if self.allow_soft_placement:
                    return self.devices[0]
                raise errors.InvalidArgumentError(
                    None, host_only, f"Cannot assign a device for operation {host_only._name}: "
                    f"Could not satisfy explicit device specification '{requested}' because no "
                    f"supported kernel for {match.device_type} devices is available.")
        if match is not None:
            return match
        if self.allow_soft_placement and _is_local(requested):
            # Soft placement keeps the job/task and drops the device type and index.
            return self.devices[0]
        op = first
        available = ", ".join(d.name for d in self.devices)
        message = (f"Cannot assign a device for operation {op._name}: {{{{node {op._name}}}}} "
                   f"was explicitly assigned to {op._device} but available devices are "
                   f"[ {available} ]. Make sure the device specification refers to a valid "
                   "device.")
        if requested.device_type == "GPU" and not any(d.device_type == "GPU"
                                                      for d in self.devices):
            message += " The requested device appears to be a GPU, but CUDA is not enabled."
        raise errors.InvalidArgumentError(None, op, message)

    def _matching(self, spec):
        if not _is_local(spec):
            return None
        for d in self.devices:
            if spec.device_type is not None and spec.device_type.upper() != d.device_type:
                continue
            if spec.device_index is not None and spec.device_index != d.index:
                continue
            return d
        return None


def _host_only(op):
    """Ops that only run on the host: string tensors live in host memory (as in TF, which
    has no GPU kernels for them)."""
    return any(t._dtype.base_dtype is dtypes.string for t in op._outputs) or any(
        t._dtype.base_dtype is dtypes.string for t in op._inputs)


def _is_local(spec):
    return (spec.job in (None, "localhost") and spec.replica in (None, 0)
            and spec.task in (None, 0))


def _compatible(a, b):
    return all(getattr(a, f) is None or getattr(b, f) is None or getattr(a, f) == getattr(b, f)
               for f in DeviceSpec.__slots__)


# Ops that pass resource inputs on to ops placed on their own (TF exempts them too).
_FORWARDS_RESOURCES = frozenset({"PartitionedCall", "StatefulPartitionedCall"})


class _UnionFind:
    def __init__(self):
        self.parent = {}
        self.followers = set()  # ops in a group through a reference or resource input

    def find(self, x):
        parent = self.parent
        root = x
        while parent.get(root, root) is not root:
            root = parent[root]
        while x is not root:
            nxt = parent.get(x, x)
            parent[x] = root
            x = nxt
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            # The op created first stays the root, so groups are found in graph order.
            if ra._id > rb._id:
                ra, rb = rb, ra
            self.parent[rb] = ra

    def members(self, root):
        return self._members.get(root, [root])

    def index_members(self, ops):
        self._members = {}
        for op in ops:
            self._members.setdefault(self.find(op), []).append(op)


def _colocation_groups(ops):
    groups = _UnionFind()
    by_name = None
    for op in ops:
        cls = op._attrs.get("_class")
        if cls:
            if by_name is None:
                by_name = ops[0]._graph._ops_by_name
            for entry in cls:
                entry = entry.decode() if isinstance(entry, bytes) else entry
                if entry.startswith("loc:@"):
                    other = by_name.get(entry[5:])
                    if other is not None:
                        groups.union(op, other)
        for i in op._opdef.ref_input_indices:
            # A kernel that writes through a reference must run where the buffer lives.
            if i < len(op._inputs):
                groups.union(op, op._inputs[i]._op)
                groups.followers.add(op)
        if op._type not in _FORWARDS_RESOURCES:
            for t in op._inputs:
                # A kernel using a resource runs where the resource lives (TF's placer).
                if t._dtype == dtypes.resource:
                    groups.union(op, t._op)
                    groups.followers.add(op)
    groups.index_members(ops)
    return groups
