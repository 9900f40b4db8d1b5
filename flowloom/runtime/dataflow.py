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
import os
import sys
import threading
import time

from flowloom.framework import errors
from flowloom.runtime import blocking
from flowloom.runtime.dataflow_plan import (CONTROL_FLOW_TYPES, DEAD, DataflowPlan,
                                             _EDGE_MERGE, _EDGE_ONLY_ARRIVAL, _EDGE_ONLY_INPUT,
                                             _ENTER, _EXIT, _MERGE, compile_plan, reachable_ops)

__all__ = ["CONTROL_FLOW_TYPES", "DEAD", "DataflowPlan", "compile_plan", "reachable_ops",
           "run_plan"]

_DEBUG = int(os.environ.get("FLOWLOOM_DEBUG", "0") or 0)


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
        # Compiled loops (runtime/compiled_loop.py) run unless the run is traced, so traces
        # still record every node instance; their Enter values wait here per frame instance.
        self.use_loops = stats is None and not _DEBUG
        self.loop_inputs = {}

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
        elif kind == _ENTER and node.compiled_loop is not None and self.use_loops:
            self._enter_compiled_loop(node, outputs, dead, frame, it)
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

    def _enter_compiled_loop(self, node, outputs, dead, frame, it):
        """Holds an Enter's value; once the frame instance has all of them, runs the compiled
        loop and delivers its Exit values (all dead if an Enter was dead) in this frame."""
        from flowloom.runtime.executor import op_error

        loop = node.compiled_loop
        key = (id(loop), id(frame), it.num)
        pending = self.loop_inputs.get(key)
        if pending is None:
            pending = self.loop_inputs[key] = [[None] * len(loop.enters), len(loop.enters),
                                               False]
        pending[0][node.loop_pos] = None if dead else outputs[0]
        pending[2] = pending[2] or dead
        pending[1] -= 1
        if pending[1]:
            return
        del self.loop_inputs[key]
        dead = pending[2]
        values = None if dead else loop.run(pending[0], op_error)
        for k, x in enumerate(loop.exits):
            out = None if dead else (values[k],)
            if x.fetch is not None and not dead:
                for slot, ks in x.fetch:
                    for j in ks:
                        self.fetched[j] = out[slot]
                        self.got[j] = True
            self._activate(x, out, dead, frame, it)

    def _increment_iteration(self, frame):
        blocking.check_deadline()
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
