"""The partitioner: splits a placed plan into one step list per device, joined by Send/Recv.

As in TensorFlow, a tensor consumed on another device travels through one `_Send`/`_Recv`
pair per (tensor, destination device) and run, however many ops read it there; a control
edge that crosses devices travels as a dummy tensor (TF sends a `ctrl` Const that carries
the control input). Fetched tensors that live on a device other than the client's (CPU:0)
are sent to the client, as TF's fetches are.

Each device's list follows the plan's global topological order, with a Send right after
the producer and a Recv right before the first consumer. Running every list sequentially
on its own thread cannot deadlock: the blocked Recv earliest in the global order would
need a Send that is earlier still, on a device that is not blocked before it.
"""

from flowloom.runtime import blocking
from flowloom.runtime.executor import Step, plan_frees
from flowloom.runtime.rendezvous import make_key
from flowloom.runtime.rewrite_remap import stands_for


class SendStep:
    """Sends the value in slot `ins[0]` (dereferenced) to `dst`; `control` sends a dummy."""

    __slots__ = ("name", "key", "ins", "src", "dst", "tensor", "control_op", "frees", "op",
                 "tensor_name", "host_to_host")
    kind = "send"
    out = nout = 0
    derefs = ()

    def __init__(self, name, key, slot, src, dst, tensor, control_op, tensor_name):
        self.name = name
        self.key = key
        self.ins = () if slot is None else (slot,)
        self.src = src
        self.dst = dst
        self.tensor = tensor
        self.control_op = control_op
        self.tensor_name = tensor_name
        self.frees = ()
        self.op = tensor._op if tensor is not None else control_op
        self.host_to_host = src.is_host and dst.is_host

    @property
    def device(self):
        return self.src


class RecvStep:
    """Waits for `key` and writes the (transferred) value into slot `out`."""

    __slots__ = ("name", "key", "out", "src", "dst", "tensor", "control_op", "frees", "op",
                 "tensor_name")
    kind = "recv"
    ins = derefs = ()
    nout = 1

    def __init__(self, name, key, out, src, dst, tensor, control_op, tensor_name):
        self.name = name
        self.key = key
        self.out = out
        self.src = src
        self.dst = dst
        self.tensor = tensor
        self.control_op = control_op
        self.tensor_name = tensor_name
        self.frees = ()
        self.op = tensor._op if tensor is not None else control_op

    @property
    def device(self):
        return self.dst


class Partition:
    """The steps one device runs, in order, and whether they need the dataflow executor."""

    __slots__ = ("device", "steps", "has_control_flow", "lanes")

    def __init__(self, device, steps, has_control_flow):
        self.device = device
        self.steps = steps
        self.has_control_flow = has_control_flow
        # Whether its blocking ops each need a thread (runtime/parallel.py, _run_lanes).
        self.lanes = (not has_control_flow and all(s.kind == "op" for s in steps) and
                      blocking.independent_waits([s.op for s in steps]))

    def __repr__(self):
        where = self.device.name if self.device is not None else "all devices, in order"
        return f"<Partition {where}: {len(self.steps)} steps>"


class PartitionedPlan:
    """Partitions plus what a run needs around them (feeds in, fetches out).

    Attributes:
      partitions: one `Partition` per device; the client's (CPU:0) first.
      num_slots: size of the value list shared by all partitions (disjoint slots).
      feed_devices: the device each fed value is put on.
      fetch_slots, fetch_derefs: where the fetched values are on the client.
      pairs: the SendStep/RecvStep pairs, in creation order.
    """

    def __init__(self, partitions, num_slots, feed_devices, fetch_slots, fetch_derefs, pairs,
                 recv_of, feed_tensors=(), fetch_tensors=(), client=None):
        # All steps of all devices in the global order (valid on one thread: every Send
        # comes before its Recv), for small plans; None when a partition has control flow.
        self.sequential = None
        self.run_sequentially = False
        self.feed_tensors = list(feed_tensors)
        self.fetch_tensors = list(fetch_tensors)
        self.client = client
        self.partitions = partitions
        self.num_slots = num_slots
        self.feed_devices = feed_devices
        self.fetch_slots = fetch_slots
        self.fetch_derefs = fetch_derefs
        self.pairs = pairs
        self.recv_of = recv_of  # (tensor or ("^", op), device) -> RecvStep


def partition(steps, num_slots, placement, feed_tensors, fetch_tensors, slot_of, fetch_derefs,
              client, control_flow_types):
    """Splits `steps` (in global topological order) per device. See the module docstring."""
    steps = _senders_first(steps, fetch_tensors, client)
    tensor_device = {t: placement[t._op] for t in feed_tensors}
    position = {t: -1.0 for t in feed_tensors}
    for k, s in enumerate(steps):
        for t in s.op._outputs:
            tensor_device[t] = s.device
            position[t] = float(k)
    op_position = {s.op: k for k, s in enumerate(steps)}
    for k, s in enumerate(steps):  # a control edge names the graph op a rewrite replaced
        for g in stands_for(s.op):
            op_position.setdefault(g, k)
    entries = {}  # device -> [(position, seq, step)]
    seq = [0]
    names = [0]
    pairs = []
    recv_of = {}

    def add(device, pos, step):
        seq[0] += 1
        entries.setdefault(device, []).append((pos, seq[0], step))

    def node_name(base):
        name = f"{base}/_{names[0]}"
        names[0] += 1
        return name

    def pair_for(tensor, control_op, src, dst, consumer_pos):
        nonlocal num_slots
        key_obj = (tensor if tensor is not None else ("^", control_op), dst)
        recv = recv_of.get(key_obj)
        if recv is not None:
            return recv
        base = tensor._op._name if tensor is not None else control_op._name
        edge = f"edge_{len(pairs)}_{tensor.name if tensor is not None else base}"
        key = make_key(src.name, dst.name, edge)
        if tensor is not None:
            send = SendStep(node_name(base), key, slot_of[tensor], src, dst, tensor, None, edge)
            send_pos = position[tensor] + 0.5
        else:
            node_name(base + "/ctrl")  # TF names the dummy Const `<op>/ctrl/_<n>`
            send = SendStep(node_name(base), key, None, src, dst, None, control_op, edge)
            send_pos = op_position[control_op] + 0.5
        recv = RecvStep(node_name(base), key, num_slots, src, dst, tensor, control_op, edge)
        num_slots += 1
        add(src, send_pos, send)
        add(dst, consumer_pos - 0.5, recv)
        pairs.append((send, recv))
        recv_of[key_obj] = recv
        return recv

    for k, s in enumerate(steps):
        dev = s.device
        ins = list(s.ins)
        for i, t in enumerate(s.op._inputs):
            src = tensor_device[t]
            if src is not dev:
                ins[i] = pair_for(t, None, src, dev, k).out
        for c in s.op._control_inputs:
            src = placement[c]
            if src is not dev and c in op_position:
                pair_for(None, c, src, dev, k)
        # A new Step: the fast path's steps keep their own `frees`.
        add(dev, float(k), Step(s.op, s.fn, tuple(ins), s.derefs, s.out, s.nout, dev))

    fetch_slots = []
    end = float(len(steps) + 1)
    for t in fetch_tensors:
        src = tensor_device.get(t)
        if src is None or src is client:
            fetch_slots.append(slot_of[t])
        else:
            fetch_slots.append(pair_for(t, None, src, client, end).out)
    fetch_derefs = [d and fetch_slots[i] == slot_of[t]
                    for i, (d, t) in enumerate(zip(fetch_derefs, fetch_tensors))]

    keep = set(fetch_slots) | set(range(len(feed_tensors)))
    partitions = []
    order = sorted(entries, key=lambda d: (d is not client, d.device_type, d.index))
    for device in order:
        dev_steps = [step for _, _, step in sorted(entries[device], key=lambda e: (e[0], e[1]))]
        plan_frees(dev_steps, keep)
        cf = any(st.kind == "op" and st.op._type in control_flow_types for st in dev_steps)
        partitions.append(Partition(device, dev_steps, cf))
    feed_devices = [tensor_device[t] for t in feed_tensors]
    pplan = PartitionedPlan(partitions, num_slots, feed_devices, fetch_slots, fetch_derefs,
                            pairs, recv_of, feed_tensors, fetch_tensors, client)
    if len(partitions) > 1 and not any(p.has_control_flow for p in partitions):
        merged = sorted((e for device in entries for e in entries[device]),
                        key=lambda e: (e[0], e[1]))
        steps_in_order = [_copy_step(step) for _, _, step in merged]
        plan_frees(steps_in_order, keep)
        pplan.sequential = Partition(None, steps_in_order, False)
    return pplan


def _copy_step(step):
    # The merged list needs its own `frees`; Send/Recv steps carry none of their own state.
    if step.kind == "op":
        return Step(step.op, step.fn, step.ins, step.derefs, step.out, step.nout, step.device)
    copy = type(step).__new__(type(step))
    for name in type(step).__slots__:
        setattr(copy, name, getattr(step, name))
    return copy


def _senders_first(steps, fetch_tensors, client):
    """The same steps in another topological order: first everything another device waits
    for (the ancestors of every cross-device edge), then the rest. A device then sends what
    others need (a variable's read, a fed batch) before its own long computations, so the
    devices start together. Ancestor sets are closed upwards, so the order stays valid."""
    device_of = {s.op: s.device for s in steps}
    # The op of the plan that runs a graph op a rewrite replaced (control edges name those).
    step_op = {g: s.op for s in steps for g in stands_for(s.op)}
    # A tensor's producer in the plan: a rewrite may have made the op that computes it.
    producer = {t: s.op for s in steps for t in s.op._outputs}
    wanted = []
    for s in steps:
        for t in s.op._inputs:
            if device_of.get(producer.get(t, t._op), s.device) is not s.device:
                wanted.append(producer.get(t, t._op))
        for c in s.op._control_inputs:
            c = step_op.get(c, c)
            if device_of.get(c, s.device) is not s.device:
                wanted.append(c)
    for t in fetch_tensors:
        if device_of.get(producer.get(t, t._op), client) is not client:
            wanted.append(producer.get(t, t._op))
    closure = set()
    while wanted:
        op = wanted.pop()
        if op in closure or op not in device_of:
            continue
        closure.add(op)
        wanted.extend(producer.get(t, t._op) for t in op._inputs)
        wanted.extend(step_op.get(c, c) for c in op._control_inputs)
    if not closure:
        return steps
    return [s for s in steps if s.op in closure] + [s for s in steps if s.op not in closure]
