"""Compiling a dataflow plan: the nodes a run needs, their edges, pending counts and frames
(the run-time semantics are described in runtime/dataflow.py, which runs these plans).

Compile time checks what TF's executor checks when it starts: the only cycles pass through
NextIteration ops, and no op has inputs from different frames.
"""


import collections
import functools
import os

from flowloom.framework import errors
from flowloom.runtime import compiled_loop


class _Dead:
    """The value of a dead tensor (the untaken output of a Switch, and all that follows)."""

    __slots__ = ()

    def __repr__(self):
        return "DEAD"

    def __reduce__(self):
        return "DEAD"


DEAD = _Dead()

# FLOWLOOM_DATAFLOW_STRAIGHT=0 runs every control-flow plan on the dataflow executor (and so
# does FLOWLOOM_DEBUG, which prints each node it runs).
STRAIGHT = os.environ.get("FLOWLOOM_DATAFLOW_STRAIGHT", "1") != "0" and \
    not int(os.environ.get("FLOWLOOM_DEBUG", "0") or 0)

CONTROL_FLOW_TYPES = frozenset([
    "Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
    "NextIteration", "RefNextIteration", "LoopCond", "ControlTrigger"])

_NORMAL, _MERGE, _ENTER, _EXIT, _NEXT = range(5)
_FORWARDING = frozenset(["Identity", "Enter", "RefEnter", "Exit", "RefExit", "NextIteration",
                         "RefNextIteration", "LoopCond"])
_KIND = {"Merge": _MERGE, "RefMerge": _MERGE, "Enter": _ENTER, "RefEnter": _ENTER,
         "Exit": _EXIT, "RefExit": _EXIT, "NextIteration": _NEXT, "RefNextIteration": _NEXT}


def _fed_placeholder(op, fed):
    from flowloom.runtime.executor import fed_placeholder

    return fed_placeholder(op, fed)


def reachable_ops(roots, fed):
    """The ops needed for `roots` (data and control edges), stopping at fed tensors."""
    seen = set()
    order = []
    stack = list(roots)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        order.append(op)
        for c in op._control_inputs:
            if c not in seen and not _fed_placeholder(c, fed):
                stack.append(c)
        for t in op._inputs:
            if t not in fed and t._op not in seen:
                stack.append(t._op)
    return order


def _check_graph(ops, fed):
    """Checks that the graph's only cycles pass through NextIteration ops and that no op has
    inputs from different frames (what TF's executor checks when it starts).

    Raises:
      InvalidArgumentError: either check fails.
    """
    in_set = set(ops)
    indegree = {op: 0 for op in ops}
    users = collections.defaultdict(list)
    for op in ops:
        srcs = [t._op for t in op._inputs if t not in fed] + list(op._control_inputs)
        for p in srcs:
            if p in in_set and p._type not in ("NextIteration", "RefNextIteration"):
                indegree[op] += 1
                users[p].append(op)
    queue = [op for op in ops if indegree[op] == 0]
    order = []
    while queue:
        op = queue.pop()
        order.append(op)
        for u in users[op]:
            indegree[u] -= 1
            if indegree[u] == 0:
                queue.append(u)
    if len(order) != len(ops):
        stuck = next(op for op in ops if indegree[op] > 0)
        raise errors.InvalidArgumentError(
            None, stuck, f"Graph has a cycle through '{stuck._name}' that does not pass "
            "through a NextIteration op")
    # Frames: an Enter's output is in its child frame, an Exit's in the parent frame.
    out_frame = {}
    parent_of = {}
    for op in order:
        frame = None
        first = None
        srcs = [(t._op, t.name) for t in op._inputs if t not in fed] + \
            [(c, "^" + c._name) for c in op._control_inputs]
        for p, label in srcs:
            if p not in in_set or p not in out_frame:
                continue  # a back edge (checked below) or an op outside the plan
            f = out_frame[p]
            if frame is None:
                frame, first = f, label
            elif f != frame:
                raise errors.InvalidArgumentError(
                    None, op, f"{op._name} has inputs from different frames. The input "
                    f"'{first}' is in frame '{frame}'. The input '{label}' is in frame '{f}'.")
        frame = frame or ""
        if op._type in ("Enter", "RefEnter"):
            child = op._attrs.get("frame_name")
            child = child.decode() if isinstance(child, bytes) else child
            parent_of.setdefault(child, frame)
            out_frame[op] = child
        elif op._type in ("Exit", "RefExit"):
            out_frame[op] = parent_of.get(frame, "")
        else:
            out_frame[op] = frame
    for op in ops:
        if op._type in ("Merge", "RefMerge"):
            for t in op._inputs:
                if t._op in out_frame and out_frame[t._op] != out_frame[op]:
                    raise errors.InvalidArgumentError(
                        None, op, f"{op._name} has inputs from different frames. The input "
                        f"'{t.name}' is in frame '{out_frame[t._op]}'. The input "
                        f"'{op._inputs[0].name}' is in frame '{out_frame[op]}'.")


class _Node:
    __slots__ = ("idx", "op", "fn", "kind", "is_trigger", "nin", "nout", "pending0",
                 "inputs0", "dead_needed0", "dead_needed", "edges", "ctrl_out", "derefs",
                 "frame_name", "is_constant", "parallel_iterations", "fetch", "out", "simple",
                 "fed", "forward", "const", "device", "in_xfer", "compiled_loop", "loop_pos")


class DataflowPlan:
    """A compiled plan whose graph contains control-flow ops."""

    def __init__(self, nodes, sources, feed_targets, fetch_from_feed, num_fetches,
                 enters_per_frame, fetch_derefs, fetch_ops):
        self.nodes = nodes
        self.sources = sources
        self.feed_targets = feed_targets        # feed index -> [(node, input slot)]
        self.fetch_from_feed = fetch_from_feed  # [(fetch index, feed index)]
        self.num_fetches = num_fetches
        self.enters_per_frame = enters_per_frame
        self.fetch_derefs = fetch_derefs
        self.fetch_ops = fetch_ops
        # Loop-free plans run as straight steps (runtime/dataflow_straight.py); False when
        # this one cannot.
        self.straight = None
        self.config = None  # the session's ConfigProto (which rewrites are on)
        self.rewrites = None  # what the frame-safe rewrites did (runtime/rewrite_frames.py)

    def run(self, feed_values, stats=None):
        from flowloom.runtime.dataflow import run_plan

        if stats is None:
            straight = self.straight
            if straight is None:
                from flowloom.runtime.dataflow_straight import StraightPlan

                straight = self.straight = (STRAIGHT and StraightPlan.build(
                    self, self.config)) or False
            if straight:
                return straight.run(feed_values)
        return run_plan(self, feed_values, stats)


def compile_plan(session, feed_tensors, fetch_tensors, target_ops):
    """Compiles a `DataflowPlan` for `fetch_tensors` and `target_ops` given the feeds.

    Returns None when the ops these fetches need contain no control-flow op (the plain
    executor runs those).
    """
    from flowloom.runtime import executor

    fed = set(feed_tensors)
    roots = [t._op for t in fetch_tensors if t not in fed] + list(target_ops)
    ops = reachable_ops(roots, fed)
    if not any(op._type in CONTROL_FLOW_TYPES for op in ops):
        return None
    _check_graph(ops, fed)
    ops.sort(key=lambda op: op._id)
    for op in ops:
        if op._opdef.kernel_fn is None:
            raise errors.UnimplementedError(
                None, op, f"No kernel for op '{op._name}' of type {op._type}: flowloom does not "
                f"implement {op._type} yet.\n  {op.user_location()}")
    for op in ops:
        if op._type in ("Merge", "RefMerge"):
            _check_merge_inputs(op)
    carries_ref = _ref_carrying_tensors(ops)
    placement = session._place() if hasattr(session, "_place") else {}
    # The frame-safe rewrites (runtime/rewrite_frames.py): graph ops, or rewritten ops that
    # stand for some; `resolve` names the tensor that holds a dropped op's output.
    from flowloom.runtime import rewrite_frames

    rewritten = rewrite_frames.apply(getattr(session, "_config", None), ops, fetch_tensors,
                                     target_ops, placement, fed)
    ops = rewritten.order
    placement = rewritten.placement(placement)
    index = {op: i for i, op in enumerate(ops)}
    producer = {t: op for op in ops for t in op._outputs}
    stands_in = {g: op for op in ops for g in getattr(op, "replaces", ())}
    aliases = rewritten.aliases

    def resolve(t):
        seen = 0
        while t in aliases and seen < 1000:
            t, seen = aliases[t], seen + 1
        return t
    nodes = []
    for i, op in enumerate(ops):
        n = _Node()
        n.idx, n.op = i, op
        n.kind = _KIND.get(op._type, _NORMAL)
        n.is_trigger = op._type == "ControlTrigger"
        n.device = placement.get(op)
        n.fn = executor._bind_kernel(session, op, n.device.xp if n.device else _xp())
        n.in_xfer = ()
        n.nin = len(op._inputs)
        n.nout = len(op._outputs)
        n.edges = [[] for _ in range(n.nout)]
        n.ctrl_out = []
        n.fetch = None
        opdef = op._opdef
        ref_inputs = _flat_ref_inputs(op)
        n.derefs = tuple(
            j for j, t in enumerate(op._inputs)
            if t in carries_ref and j not in ref_inputs and not opdef.forwards_ref)
        n.frame_name = op._attrs.get("frame_name") if n.kind == _ENTER else None
        if isinstance(n.frame_name, bytes):
            n.frame_name = n.frame_name.decode()
        n.is_constant = bool(op._attrs.get("is_constant", False))
        n.compiled_loop = n.loop_pos = None
        n.parallel_iterations = int(op._attrs.get("parallel_iterations", 10) or 10)
        nodes.append(n)
    feed_pos = {t: k for k, t in enumerate(feed_tensors)}
    feed_targets = [[] for _ in feed_tensors]
    for n in nodes:
        op = n.op
        ctrl = rewritten.control_inputs(op, index, stands_in)
        data_from_graph = 0
        backedges = 0
        for j, t in enumerate(op._inputs):
            t = resolve(t)
            if t in fed:
                feed_targets[feed_pos[t]].append((n, j))
                continue
            src = nodes[index[producer[t]]]
            xfer = _transfer(src.device, n.device)
            if xfer is not None and t in carries_ref:
                # A variable's buffer is read on its consumer's side, then copied.
                n.in_xfer += ((j, xfer),)
                xfer = None
            src.edges[t._value_index].append((n, j, xfer))
            data_from_graph += 1
            if src.kind == _NEXT:
                backedges += 1
        for c in ctrl:
            nodes[index[c]].ctrl_out.append(n)
        n.inputs0 = [DEAD] * n.nin
        if n.kind == _MERGE:
            # Merge waits for its control inputs and for one live data input (or for all the
            # data inputs that can arrive in this iteration to be dead).
            n.pending0 = len(ctrl)
            n.dead_needed0 = data_from_graph - backedges if backedges else data_from_graph
            n.dead_needed = backedges if backedges else data_from_graph
        else:
            n.pending0 = data_from_graph + len(ctrl)
    for n in nodes:
        n.simple = n.kind != _MERGE and n.pending0 == 1
        n.fed = any(n is d for targets in feed_targets for d, _ in targets)
    for n in nodes:
        n.out = tuple([(k, dst, slot, xfer, _edge_mode(dst)) for k, edges in enumerate(n.edges)
                       for dst, slot, xfer in edges] +
                      [(-1, dst, -1, None, _edge_mode(dst)) for dst in n.ctrl_out])
        # Pure forwarding ops skip their kernel call (the executor's hot loop).
        n.forward = n.op._type in _FORWARDING and n.nin == 1 and not n.derefs \
            and not n.in_xfer
        n.const = None
        if n.op._type == "Const" and n.nin == 0:
            n.forward = True
            n.const = (n.fn(),)
    fetch_sites = {}
    for k, t in enumerate(fetch_tensors):
        if t in fed:
            continue
        t = resolve(t)
        fetch_sites.setdefault((index[producer[t]], t._value_index), []).append(k)
    for (i, slot), ks in fetch_sites.items():
        if nodes[i].fetch is None:
            nodes[i].fetch = []
        nodes[i].fetch.append((slot, tuple(ks)))
    compiled_loop.attach(nodes)  # frames without control flow of their own
    enters = collections.Counter(n.frame_name for n in nodes if n.kind == _ENTER)
    sources = [n for n in nodes if n.pending0 == 0 and n.kind != _MERGE]
    fetch_from_feed = [(k, feed_pos[t]) for k, t in enumerate(fetch_tensors) if t in fed]
    fetch_derefs = [t in carries_ref for t in fetch_tensors]
    plan = DataflowPlan(nodes, sources, feed_targets, fetch_from_feed, len(fetch_tensors),
                        dict(enters), fetch_derefs, list(target_ops))
    plan.config = getattr(session, "_config", None)
    plan.rewrites = rewritten
    return plan


_EDGE_ONLY_INPUT, _EDGE_ONLY_ARRIVAL, _EDGE_MERGE, _EDGE_GENERAL = range(4)


def _edge_mode(dst):
    """How an arrival at `dst` is handled (the executor's hot path picks by this)."""
    if dst.kind == _MERGE:
        return _EDGE_MERGE
    if dst.simple:
        return _EDGE_ONLY_INPUT if dst.nin == 1 and not dst.fed and \
            not dst.op._control_inputs else _EDGE_ONLY_ARRIVAL
    return _EDGE_GENERAL


def _transfer(src, dst):
    """The copy an edge from device `src` to device `dst` needs (None within one memory)."""
    if src is None or dst is None or src is dst:
        return None
    if src.xp is dst.xp and (src.is_host or src.cuda_id == dst.cuda_id):
        return None
    from flowloom.runtime import devices

    return functools.partial(devices.transfer, src=src, dst=dst)


_TF_TYPE_NAMES = {"float32": "float", "float64": "double"}


def _check_merge_inputs(op):
    want = op._inputs[0].dtype.base_dtype
    for j, t in enumerate(op._inputs[1:], 1):
        if t.dtype.base_dtype != want:
            got = t.dtype.base_dtype
            raise errors.InvalidArgumentError(
                None, op, f"Input {j} of node {op._name} was passed "
                f"{_TF_TYPE_NAMES.get(got.name, got.name)} from {t.name} incompatible with "
                f"expected {_TF_TYPE_NAMES.get(want.name, want.name)}.")


def _flat_ref_inputs(op):
    """The flat input indices of `op` that are reference arguments (list arguments such as
    RefMerge's `inputs: N * Ref(T)` expanded)."""
    opdef = op._opdef
    if not opdef.ref_input_indices:
        return ()
    out = []
    k = 0
    for arg in opdef.input_args:
        if arg.number_attr is not None:
            count = op._attrs.get(arg.number_attr, 0)
        elif arg.type_list_attr is not None:
            count = len(op._attrs.get(arg.type_list_attr, ()))
        else:
            count = 1
        if arg.is_ref:
            out.extend(range(k, k + count))
        k += count
    return frozenset(out)


def _xp():
    import numpy

    return numpy


def _ref_carrying_tensors(ops):
    """Tensors whose run-time value is a variable's `Ref` holder (read when consumed)."""
    carries = set()
    changed = True
    while changed:  # forwarding ops may precede their sources in id order only via loops
        changed = False
        for op in ops:
            for t in op._outputs:
                if t._dtype.is_ref_dtype and t not in carries:
                    carries.add(t)
                    changed = True
            if op._opdef.forwards_ref and op._inputs and op._inputs[0] in carries \
                    and op._outputs[0] not in carries:
                carries.add(op._outputs[0])
                changed = True
    return carries
