"""Frame-aware dataflow execution: TF1 control flow (Switch/Merge/Enter/Exit/NextIteration).

Plans without control-flow ops run in `executor.run_plan` (a straight list of steps). A plan
with control flow is compiled here (`executor._compile_control_flow` calls `compile_plan`) and
runs here, the way TF's executor runs it:

- every node instance is identified by (frame, iteration, node); a node becomes ready when all
  its inputs (data and control) have arrived in that iteration;
- **dead tensors**: Switch outputs a value on one port and `DEAD` on the other. A node with a
  dead input (data or control) is dead: its kernel does not run and all its outputs are dead.
  Merge is the exception: it runs on its first live input, and is dead only when all the data
  inputs it can receive in this iteration are dead. ControlTrigger is never dead;
- **frames**: Enter moves a value into the child frame `frame_name` (one frame instance per
  parent frame and iteration); `is_constant` Enters are loop invariants, delivered to every
  iteration; NextIteration moves a value to the next iteration; Exit moves it back to the parent
  frame. A dead Exit is held back and forwarded (dead) only when its frame finishes, so that a
  loop that never ran (a loop inside an untaken cond branch) still ends in dead outputs;
- **parallel_iterations**: honoured as TF does. At most `parallel_iterations` iterations of a
  frame are outstanding; a NextIteration that would start one more is deferred until the oldest
  iteration finishes. With one worker (this executor runs nodes from one FIFO queue, on the
  calling thread) iterations may interleave up to that bound, so ops of different iterations
  with no dependency between them can run out of iteration order, exactly as in TF;
- **devices**: each op's kernel is bound to its placed device's array module, and values are
  copied on edges between device memories (host <-> GPU), so one run covers all devices.
"""

import collections
import functools
import os
import sys
import threading
import time

from flowloom.framework import errors


class _Dead:
    """The value of a dead tensor (the untaken output of a Switch, and all that follows)."""

    __slots__ = ()

    def __repr__(self):
        return "DEAD"

    def __reduce__(self):
        return "DEAD"


DEAD = _Dead()

CONTROL_FLOW_TYPES = frozenset([
    "Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
    "NextIteration", "RefNextIteration", "LoopCond", "ControlTrigger"])

_DEBUG = int(os.environ.get("FLOWLOOM_DEBUG", "0") or 0)
_NORMAL, _MERGE, _ENTER, _EXIT, _NEXT = range(5)
_FORWARDING = frozenset(["Identity", "Enter", "RefEnter", "Exit", "RefExit", "NextIteration",
                         "RefNextIteration", "LoopCond"])
_KIND = {"Merge": _MERGE, "RefMerge": _MERGE, "Enter": _ENTER, "RefEnter": _ENTER,
         "Exit": _EXIT, "RefExit": _EXIT, "NextIteration": _NEXT, "RefNextIteration": _NEXT}


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
            if c not in seen:
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
                 "fed", "forward", "const", "device", "in_xfer")


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

    def run(self, feed_values, stats=None):
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
    index = {op: i for i, op in enumerate(ops)}
    carries_ref = _ref_carrying_tensors(ops)
    placement = session._place() if hasattr(session, "_place") else {}
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
        n.parallel_iterations = int(op._attrs.get("parallel_iterations", 10) or 10)
        nodes.append(n)
    feed_pos = {t: k for k, t in enumerate(feed_tensors)}
    feed_targets = [[] for _ in feed_tensors]
    for n in nodes:
        op = n.op
        ctrl = [c for c in op._control_inputs if c in index]
        data_from_graph = 0
        backedges = 0
        for j, t in enumerate(op._inputs):
            if t in fed:
                feed_targets[feed_pos[t]].append((n, j))
                continue
            src = nodes[index[t._op]]
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
        fetch_sites.setdefault((index[t._op], t._value_index), []).append(k)
    for (i, slot), ks in fetch_sites.items():
        if nodes[i].fetch is None:
            nodes[i].fetch = []
        nodes[i].fetch.append((slot, tuple(ks)))
    enters = collections.Counter(n.frame_name for n in nodes if n.kind == _ENTER)
    sources = [n for n in nodes if n.pending0 == 0 and n.kind != _MERGE]
    fetch_from_feed = [(k, feed_pos[t]) for k, t in enumerate(fetch_tensors) if t in fed]
    fetch_derefs = [t in carries_ref for t in fetch_tensors]
    return DataflowPlan(nodes, sources, feed_targets, fetch_from_feed, len(fetch_tensors),
                        dict(enters), fetch_derefs, list(target_ops))


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


# -- run time --------------------------------------------------------------------------------
class _Iteration:
    __slots__ = ("num", "state", "outstanding_ops", "outstanding_frames")

    def __init__(self, num):
        self.num = num
        self.state = {}  # node idx -> [pending, dead, inputs] (Merge: [pending, dead_count,
        #                  inputs, live_taken])
        self.outstanding_ops = 0
        self.outstanding_frames = 0


class _Frame:
    __slots__ = ("name", "parent", "parent_iter", "iterations", "iteration_count",
                 "num_pending_inputs", "outstanding_iterations", "max_parallel", "loop_invs",
                 "next_iter_roots", "dead_exits", "children")

    def __init__(self, name, parent, parent_iter, num_enters, max_parallel):
        self.name = name
        self.parent = parent
        self.parent_iter = parent_iter
        self.iterations = {0: _Iteration(0)}
        self.iteration_count = 0
        self.num_pending_inputs = num_enters
        self.outstanding_iterations = 1
        self.max_parallel = max_parallel
        self.loop_invs = []
        self.next_iter_roots = []
        self.dead_exits = []
        self.children = {}


class _Run:
    """The state of one execution of a DataflowPlan."""

    def __init__(self, plan, feed_values, stats=None):
        self.plan = plan
        self.stats = stats
        self.ready = collections.deque()
        self.root = _Frame("", None, None, 0, 1)
        self.fetched = [None] * plan.num_fetches
        self.got = [False] * plan.num_fetches
        self.feed_values = feed_values
        self.fed_templates = {}  # node idx -> input template with this run's fed values

    def _activate(self, node, outputs, dead, frame, it):
        """Delivers `node`'s outputs (all DEAD if `dead`) to its consumers in `it`; queues
        the consumers that become ready."""
        append = self.ready.append
        state = it.state
        queued = 0
        for k, dst, slot, xfer, mode in node.out:
            if dead:
                v = DEAD
            elif k >= 0:
                v = outputs[k]
                if xfer is not None and v is not DEAD:
                    v = xfer(v)  # a copy between device memories
            else:
                v = None  # a live control edge
            if mode == _EDGE_ONLY_INPUT:  # the consumer's one data input: ready now
                queued += 1
                append((dst, frame, it, [v], v is DEAD and not dst.is_trigger))
            elif mode == _EDGE_ONLY_ARRIVAL:  # its one in-graph input (or a control edge)
                inputs = list(self.fed_templates[dst.idx] if dst.fed else dst.inputs0)
                if slot >= 0:
                    inputs[slot] = v
                queued += 1
                append((dst, frame, it, inputs, v is DEAD and not dst.is_trigger))
            elif mode == _EDGE_MERGE:
                self._deliver_merge(dst, slot, v, frame, it)
            else:
                st = state.get(dst.idx)
                if st is None:
                    st = state[dst.idx] = [dst.pending0, False, list(
                        self.fed_templates[dst.idx] if dst.fed else dst.inputs0)]
                if slot >= 0:
                    st[2][slot] = v
                if v is DEAD and not dst.is_trigger:
                    st[1] = True
                st[0] -= 1
                if st[0] == 0:
                    del state[dst.idx]  # its inputs are freed once it has run
                    queued += 1
                    append((dst, frame, it, st[2], st[1]))
        it.outstanding_ops += queued

    def _deliver_merge(self, dst, slot, value, frame, it):
        """Merge waits for its control inputs, then runs on its first live data input, or
        dead once all the data inputs this iteration can bring are dead."""
        st = it.state.get(dst.idx)
        if st is None:
            st = it.state[dst.idx] = [dst.pending0, 0, list(
                self.fed_templates[dst.idx] if dst.fed else dst.inputs0), False]
        dead_needed = dst.dead_needed0 if it.num == 0 else dst.dead_needed
        if slot < 0:  # a control edge
            st[0] -= 1
            if st[0] == 0 and (st[3] or st[1] >= dead_needed):
                self._enqueue(dst, frame, it, st[2], not st[3])
        elif value is DEAD:
            st[1] += 1
            if st[0] == 0 and not st[3] and st[1] == dead_needed:
                self._enqueue(dst, frame, it, st[2], True)
        elif not st[3]:
            st[3] = True
            st[2][slot] = value
            if st[0] == 0:
                self._enqueue(dst, frame, it, st[2], False)

    def _enqueue(self, node, frame, it, inputs, dead):
        it.outstanding_ops += 1
        self.ready.append((node, frame, it, inputs, dead))

    def run(self):
        from flowloom.runtime.executor import deref, op_error

        plan = self.plan
        root = self.root
        root_it = root.iterations[0]
        # Fed values complete the input templates of their consumers, for this run only.
        fed = self.fed_templates
        for k, targets in enumerate(plan.feed_targets):
            for node, slot in targets:
                tmpl = fed.get(node.idx)
                if tmpl is None:
                    tmpl = fed[node.idx] = list(node.inputs0)
                v = self.feed_values[k]
                if node.device is not None and not node.device.is_host:
                    v = node.device.put(v)
                tmpl[slot] = v
        for node in plan.sources:
            self._enqueue(node, root, root_it, list(fed.get(node.idx, node.inputs0)), False)
        ready = self.ready
        popleft = ready.popleft
        activate = self._activate
        fetched, got = self.fetched, self.got
        trace = self.stats is not None or _DEBUG
        while ready:
            node, frame, it, inputs, dead = popleft()
            if dead:
                outputs = None
            elif node.forward:  # Identity, Enter, Exit, NextIteration, LoopCond; Const
                outputs = inputs if node.const is None else node.const
                if trace:
                    self._record(node, outputs, time.time_ns(), frame, it)
            else:
                for j in node.derefs:
                    inputs[j] = deref(inputs[j], node.op)
                for j, xfer in node.in_xfer:
                    inputs[j] = xfer(inputs[j])
                if trace:
                    start = time.time_ns()
                try:
                    r = node.fn(*inputs)
                except Exception as e:  # noqa: BLE001 - kernel failures become TF errors
                    raise op_error(node.op, inputs, e) from (
                        None if isinstance(e, errors.OpError) else e)
                outputs = (r,) if node.nout == 1 else r
                if trace:
                    self._record(node, outputs, start, frame, it)
            if node.fetch is not None and not dead:
                for slot, ks in node.fetch:
                    v = outputs[slot]
                    if v is not DEAD:
                        for k in ks:
                            fetched[k] = v
                            got[k] = True
            if node.kind <= _MERGE:
                activate(node, outputs, dead, frame, it)
                it.outstanding_ops -= 1
                if not it.outstanding_ops and frame is not root:
                    self._cleanup(frame, it.num)
            else:
                self._propagate(node, outputs, dead, frame, it)
        for k, f in plan.fetch_from_feed:
            self.fetched[k] = self.feed_values[f]
            self.got[k] = True
        return self.fetched

    def _record(self, node, outputs, start, frame, it):
        from flowloom.runtime.parallel import NodeRecord

        end = time.time_ns()
        device = node.device.name if node.device is not None else \
            "/job:localhost/replica:0/task:0/device:CPU:0"
        if self.stats is not None:
            self.stats.setdefault(device, []).append(NodeRecord(
                node.op._name, node.op._type, start, end, list(outputs or ()), None,
                threading.get_ident() & 0xFFFFFFFF))
        if _DEBUG:
            shape = getattr(outputs[0], "shape", None) if outputs else None
            where = f"{frame.name}:{it.num}" if frame.name else ""
            print(f"[flowloom] {node.op._type:<16} {node.op._name:<40} {device} "
                  f"{(end - start) / 1e3:8.1f} us  {shape} {where}", file=sys.stderr)

    def _propagate(self, node, outputs, dead, frame, it):
        kind = node.kind
        if kind <= _MERGE:
            self._activate(node, outputs, dead, frame, it)
        elif kind == _ENTER:
            child = frame.children.get((node.frame_name, it.num))
            if child is None:
                child = _Frame(node.frame_name, frame, it,
                               self.plan.enters_per_frame[node.frame_name],
                               node.parallel_iterations)
                frame.children[(node.frame_name, it.num)] = child
                it.outstanding_frames += 1
            child.num_pending_inputs -= 1
            if node.is_constant:
                child.loop_invs.append((node, outputs, dead))
                for cit in list(child.iterations.values()):
                    self._activate(node, outputs, dead, child, cit)
            else:
                self._activate(node, outputs, dead, child, child.iterations[0])
            if child.num_pending_inputs == 0:
                self._cleanup(child, 0)
        elif kind == _EXIT:
            if dead:
                if it.num == frame.iteration_count:
                    frame.dead_exits.append(node)
            else:
                self._activate(node, outputs, False, frame.parent, frame.parent_iter)
        else:  # NextIteration
            if not dead:
                if it.num == frame.iteration_count and \
                        frame.outstanding_iterations >= frame.max_parallel:
                    frame.next_iter_roots.append((node, outputs))
                else:
                    if it.num == frame.iteration_count:
                        nxt = self._increment_iteration(frame)
                    else:
                        nxt = frame.iterations[it.num + 1]
                    self._activate(node, outputs, False, frame, nxt)
        it.outstanding_ops -= 1
        if it.outstanding_ops == 0 and frame is not self.root:
            self._cleanup(frame, it.num)

    def _increment_iteration(self, frame):
        frame.iteration_count += 1
        nxt = _Iteration(frame.iteration_count)
        frame.iterations[nxt.num] = nxt
        frame.outstanding_iterations += 1
        frame.dead_exits = []
        roots, frame.next_iter_roots = frame.next_iter_roots, []
        for node, outputs in roots:
            self._activate(node, outputs, False, frame, nxt)
        for node, outputs, dead in frame.loop_invs:
            self._activate(node, outputs, dead, frame, nxt)
        return nxt

    def _iteration_done(self, frame, num):
        it = frame.iterations.get(num)
        if it is None or it.outstanding_ops or it.outstanding_frames:
            return False
        if num == 0:
            return frame.num_pending_inputs == 0
        return (num - 1) not in frame.iterations

    def _cleanup(self, frame, num):
        while num <= frame.iteration_count and self._iteration_done(frame, num):
            del frame.iterations[num]
            frame.outstanding_iterations -= 1
            num += 1
            if frame.next_iter_roots:
                self._increment_iteration(frame)
        if frame.num_pending_inputs == 0 and frame.outstanding_iterations == 0:
            self._delete_frame(frame)

    def _delete_frame(self, frame):
        parent, parent_it = frame.parent, frame.parent_iter
        del parent.children[(frame.name, parent_it.num)]
        for node in frame.dead_exits:
            self._activate(node, None, True, parent, parent_it)
        parent_it.outstanding_frames -= 1
        if parent is not self.root:
            self._cleanup(parent, parent_it.num)


def run_plan(plan, feed_values, stats=None):
    """Runs a DataflowPlan once; returns the fetched values (references not yet read).

    `stats`, a dict, receives {device name: [NodeRecord]} of the nodes that ran (for
    RunMetadata.step_stats); FLOWLOOM_DEBUG=1 prints them with their frame and iteration.

    Raises:
      InvalidArgumentError: a fetched tensor is dead (on the untaken side of a Switch) or was
        never computed.
    """
    run = _Run(plan, feed_values, stats)
    values = run.run()
    for k, got in enumerate(run.got):
        if not got:
            raise errors.InvalidArgumentError(
                None, None, f"Retval[{k}] does not have value")
    return values
