"""While loops compiled to one Python function: the frame machinery only where it is needed.

A TF1 `while_loop` is a frame of dataflow nodes: Enter -> Merge -> (cond) -> LoopCond ->
Switch -> (body) -> NextIteration -> Merge, and Switch -> Exit. The dataflow executor
(runtime/dataflow.py) runs every node instance through its ready queue, with per-iteration
state and dead-tensor propagation. A frame with no control flow of its own (no cond, no
nested loop), on host devices, whose ops are stateless or TensorArray/stack ops, needs none
of that: each iteration runs the cond ops, tests the predicate, then runs the body ops. It is
compiled here, once per plan, into a function of the Enter values:

    def loop(enters):
        (e0, e1, ) = enters
        m0 = e0                      # the Merge: the loop variable's first value
        while True:
            v12_0 = f12(m0, e1)       # cond ops (they also run in the last iteration)
            if not _pred(v12_0):
                return [m0]          # Switch's false side: the Exits
            v15_0 = f15(m0, k14)     # body ops (after Switch's true side)
            m0 = v15_0               # NextIteration -> Merge

The dataflow executor calls it when all of a frame instance's Enters have arrived, and
delivers its Exit values to the parent frame (all dead when an Enter is dead, as the
frame would end). Results equal the dataflow run: iterations run in order, which is a
schedule TF may pick for any `parallel_iterations`, and the ops allowed here (stateless ops,
TensorArray and stack ops ordered by their flow and handle edges) give the same values under
every schedule. Tracing runs (`RunMetadata`, FLOWLOOM_DEBUG) take the dataflow path, so
every node instance is still recorded there. As in runtime/compiled_plan.py, only generated
identifiers reach the source, and a failing kernel is reported by its line and the frame's
locals exactly as the dataflow executor reports it.
"""

import os
import sys

from flowloom.framework import errors
from flowloom.runtime import blocking
from flowloom.runtime.compiled_plan import CompiledRunner

_DEBUG = int(os.environ.get("FLOWLOOM_DEBUG", "0") or 0)

# The node kinds of runtime/dataflow_plan.py.
_NORMAL, _MERGE, _ENTER, _EXIT, _NEXT = range(5)

_LOOP_TYPES = frozenset(["Switch", "RefSwitch", "LoopCond"])
_OTHER_CONTROL_FLOW = frozenset(["Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
                                 "NextIteration", "RefNextIteration"])
# Ops that compute nothing: inside a compiled loop only their ordering mattered, and the
# straight-line order keeps it.
_NO_EFFECT = frozenset(["NoOp", "ControlTrigger"])
# Stateful op families whose effects are ordered by their data edges (a TensorArray's flow,
# a stack's handle and pushes in iteration order), so running iterations in order is exact.
_ORDERED_STATEFUL = ("TensorArray", "Stack")


class CompiledLoop:
    """One compiled frame: `run(enter_values)` -> the Exit values, by `exits` order."""

    def __init__(self, frame_name, enters, exits, runner, runner_with_deadline):
        self.frame_name = frame_name
        self.enters = enters  # the frame's Enter nodes, in the order `run` takes their values
        self.exits = exits    # the Exit nodes, in the order `run` returns their values
        self.runner = runner
        self.runner_with_deadline = runner_with_deadline

    def run(self, enter_values, op_error):
        runner = self.runner if blocking.current_deadline() is None else \
            self.runner_with_deadline
        try:
            return runner.fn(enter_values)
        except Exception as e:  # noqa: BLE001 - every kernel failure becomes a TF error
            found = runner.failed_step(e)
            if found is None or found[2]:
                raise
            node, args, _ = found
            raise op_error(node.op, args, e) from (None if isinstance(e, errors.OpError) else e)


def _pred(value):
    # The check Switch's kernel makes of its predicate.
    if getattr(value, "ndim", 0) != 0:
        raise errors.InvalidArgumentError(
            None, None, "The second input must be a scalar, but it has shape "
            f"[{','.join(str(d) for d in value.shape)}]")
    return bool(value)


def attach(nodes):
    """Compiles each compilable while-loop frame of a dataflow plan's `nodes`.

    Sets `compiled_loop` (a `CompiledLoop`) and `loop_pos` (its index in the loop's
    inputs) on the Enter nodes of each compiled frame; other nodes keep None.
    """
    inputs_of = {n.idx: [None] * n.nin for n in nodes}
    ctrl_in = {n.idx: [] for n in nodes}
    for n in nodes:
        for k, edges in enumerate(n.edges):
            for dst, slot, _ in edges:
                inputs_of[dst.idx][slot] = (n, k)
        for dst in n.ctrl_out:
            ctrl_in[dst.idx].append(n)
    frames = {}
    for n in nodes:
        if n.kind == _ENTER:
            frames.setdefault(n.frame_name, []).append(n)
    for frame_name, enters in frames.items():
        try:
            loop = _compile_frame(frame_name, enters, inputs_of, ctrl_in)
        except _NotCompilable as why:
            if _DEBUG:
                print(f"[flowloom] loop {frame_name}: dataflow executor ({why})",
                      file=sys.stderr, flush=True)
            continue
        if _DEBUG:
            print(f"[flowloom] loop {frame_name}: compiled ({len(loop.enters)} enters, "
                  f"{len(loop.exits)} exits); traced runs use the dataflow executor",
                  file=sys.stderr, flush=True)
        for pos, e in enumerate(loop.enters):
            e.compiled_loop = loop
            e.loop_pos = pos


def _members(enters):
    """The frame's nodes reachable from its Enters (Exits apart), or None when another
    frame's Enter is among them (a nested loop)."""
    seen = set()
    members, exits = [], []
    stack = [dst for e in enters for edges in e.edges for dst, _, _ in edges]
    stack += [dst for e in enters for dst in e.ctrl_out]
    while stack:
        n = stack.pop()
        if n.idx in seen:
            continue
        seen.add(n.idx)
        if n.kind == _ENTER:
            return None, None
        if n.kind == _EXIT:
            exits.append(n)
            continue
        members.append(n)
        stack.extend(dst for edges in n.edges for dst, _, _ in edges)
        stack.extend(n.ctrl_out)
    return members, exits


class _NotCompilable(Exception):
    """Why a frame runs in the dataflow executor (FLOWLOOM_DEBUG=1 prints it)."""


def _check_node(n):
    op = n.op
    if n.fetch is not None:
        raise _NotCompilable(f"{op._name} is fetched")
    if n.kind == _ENTER:  # its input comes from the parent frame (or a feed)
        if n.in_xfer or (n.device is not None and not n.device.is_host):
            raise _NotCompilable(f"{op._name} is not on the host device")
        return
    if n.fed:
        raise _NotCompilable(f"{op._name} is fed")
    if n.in_xfer or any(xfer is not None for edges in n.edges for _, _, xfer in edges) or \
            (n.device is not None and not n.device.is_host):
        raise _NotCompilable(f"{op._name} is not on the host device")
    if op._opdef.stateful and not op._type.startswith(_ORDERED_STATEFUL):
        raise _NotCompilable(f"{op._name} ({op._type}) is stateful")
    if op._type in _OTHER_CONTROL_FLOW and n.kind not in (_MERGE, _NEXT):
        raise _NotCompilable(f"{op._name} ({op._type}) is control flow inside the loop")


def _compile_frame(frame_name, enters, inputs_of, ctrl_in):
    members, exits = _members(enters)
    if members is None:
        raise _NotCompilable("a nested loop")
    for n in members + enters:
        _check_node(n)
    in_frame = {n.idx for n in members} | {e.idx for e in enters}
    merges = [n for n in members if n.kind == _MERGE]
    conds = [n for n in members if n.op._type == "LoopCond"]
    switches = [n for n in members if n.op._type in ("Switch", "RefSwitch")]
    if len(conds) != 1 or not merges:
        raise _NotCompilable("not one LoopCond with loop variables")
    for n in members:
        srcs = [s for s in inputs_of[n.idx] if s is not None]
        if len(srcs) != n.nin or any(s.idx not in in_frame for s, _ in srcs) or \
                any(c.idx not in in_frame for c in ctrl_in[n.idx]):
            raise _NotCompilable(f"{n.op._name} has inputs from outside the frame")
        if n.kind == _NEXT and any(dst.kind != _MERGE for dst, _, _ in n.edges[0]):
            raise _NotCompilable(f"{n.op._name} feeds more than its Merge")
    # Each Merge: a loop variable with one Enter, one NextIteration and one Switch.
    switch_of = {}
    for m in merges:
        srcs = inputs_of[m.idx]
        if sorted(s.kind for s, _ in srcs) != [_ENTER, _NEXT] or ctrl_in[m.idx] or m.edges[1]:
            raise _NotCompilable(f"{m.op._name} is not a loop variable's Merge")
        sw = [dst for dst, slot, _ in m.edges[0] if dst.op._type in ("Switch", "RefSwitch")]
        if len(sw) != 1 or inputs_of[sw[0].idx][0][0] is not m:
            raise _NotCompilable(f"{m.op._name} does not feed one Switch")
        switch_of[sw[0].idx] = m
    cond = conds[0]
    if len(switch_of) != len(switches) or cond.ctrl_out or \
            any(dst.op._type not in ("Switch", "RefSwitch") for dst, _, _ in cond.edges[0]):
        raise _NotCompilable("the LoopCond does not drive only the loop variables' Switches")
    for sw in switches:
        # A control edge from a Switch to an op that also reads its true side (a gradient
        # loop's tf.tuple waits for the Switch) orders and kills nothing the data edge does not.
        implied = all(any(s is sw and k == 1 for s, k in inputs_of[d.idx]) for d in sw.ctrl_out)
        if inputs_of[sw.idx][1][0] is not cond or not implied or ctrl_in[sw.idx] or \
                any(dst.kind != _EXIT for dst, _, _ in sw.edges[0]):
            raise _NotCompilable(f"{sw.op._name}'s false side reaches more than an Exit")
    for x in exits:
        src = inputs_of[x.idx][0]
        if ctrl_in[x.idx] or src[0].idx not in switch_of or src[1] != 0:
            raise _NotCompilable(f"{x.op._name} does not read a Switch's false side alone")
    for e in enters:
        if not e.is_constant and any(dst.kind != _MERGE for dst, _, _ in e.edges[0]):
            raise _NotCompilable(f"{e.op._name} feeds more than its Merge")
    return _generate(frame_name, enters, exits, members, merges, switch_of, cond,
                     inputs_of, ctrl_in)


def _topological(nodes, inputs_of, ctrl_in):
    """`nodes` ordered so that each follows its in-frame producers (Merge back edges cut)."""
    ids = {n.idx for n in nodes}
    pending = {n.idx: sum(1 for s in inputs_of[n.idx] if s[0].idx in ids) +
               sum(1 for c in ctrl_in[n.idx] if c.idx in ids) for n in nodes}
    ready = [n for n in nodes if pending[n.idx] == 0]
    order = []
    while ready:
        n = ready.pop()
        order.append(n)
        for dst in [d for edges in n.edges for d, _, _ in edges] + n.ctrl_out:
            if dst.idx in pending:
                pending[dst.idx] -= 1
                if pending[dst.idx] == 0:
                    ready.append(dst)
    return order if len(order) == len(nodes) else None


def _generate(frame_name, enters, exits, members, merges, switch_of, cond, inputs_of, ctrl_in):
    from flowloom.runtime.executor import deref

    normal = [n for n in members if n.kind == _NORMAL and n.op._type not in _LOOP_TYPES]
    order = _topological(normal, inputs_of, ctrl_in)
    if order is None:
        raise _NotCompilable("a cycle inside the frame")
    # Body ops: those that depend on a Switch's true side; the rest run in every iteration.
    post = set()
    for n in order:
        srcs = [s for s, k in inputs_of[n.idx]] + ctrl_in[n.idx]
        if any(s.idx in switch_of or s.idx in post for s in srcs):
            post.add(n.idx)
    for n in order:
        # A ControlTrigger runs even where its inputs are dead; inside the loop that only
        # matters for consumers that are not dead anyway in the last iteration.
        if n.is_trigger and any(
                not any(s.idx in post or s.idx in switch_of for s, _ in inputs_of[c.idx])
                for c in n.ctrl_out):
            raise _NotCompilable(f"{n.op._name} (ControlTrigger) guards a live op")
    name = {}
    for j, e in enumerate(enters):
        name[(e.idx, 0)] = f"e{j}"
    for i, m in enumerate(merges):
        name[(m.idx, 0)] = f"m{i}"
    for sw_idx, m in switch_of.items():
        name[(sw_idx, 1)] = name[(m.idx, 0)]
    cells = {"_pred": _pred, "_deref": deref, "_check_deadline": blocking.check_deadline}
    line_steps = {}
    pre_lines, post_lines = [], []
    first = 5  # `def _make`, cells, `def loop`, enters' unpacking, then the Merge lines
    prologue = [f"m{i} = " + name[(inputs_of[m.idx][[s.kind for s, _ in
                                                      inputs_of[m.idx]].index(_ENTER)][0].idx, 0)]
                for i, m in enumerate(merges)]
    body_start = first + len(prologue)  # the line of `while True:`
    # Lines are numbered once all are known: record (list, index) pairs first.
    pending_lines = []
    for n in order:
        lines = post_lines if n.idx in post else pre_lines
        args = [name[(s.idx, k)] for s, k in inputs_of[n.idx]]
        if n.const is not None:
            name[(n.idx, 0)] = f"k{n.idx}"
            cells[f"k{n.idx}"] = n.const[0]
            continue
        if n.forward and n.nin == 1 and not n.derefs:
            name[(n.idx, 0)] = args[0]
            continue
        if n.op._type in _NO_EFFECT:
            continue
        for j in n.derefs:
            cells[f"o{n.idx}"] = n.op
            temp = f"d{n.idx}_{j}"
            pending_lines.append((lines, len(lines), (n, True, list(args))))
            lines.append(f"{temp} = _deref({args[j]}, o{n.idx})")
            args[j] = temp
        cells[f"f{n.idx}"] = n.fn
        call = f"f{n.idx}({', '.join(args)})"
        pending_lines.append((lines, len(lines), (n, False, list(args))))
        if n.nout == 0:
            lines.append(call)
        elif n.nout == 1:
            lines.append(f"v{n.idx}_0 = {call}")
        else:
            lines.append("(" + "".join(f"v{n.idx}_{k}, " for k in range(n.nout)) + f") = {call}")
        for k in range(n.nout):
            name[(n.idx, k)] = f"v{n.idx}_{k}"
    nexts = []
    for m in merges:
        nxt = next(s for s, _ in inputs_of[m.idx] if s.kind == _NEXT)
        src = inputs_of[nxt.idx][0]
        if src[0].idx not in post and src[0].idx not in switch_of:
            raise _NotCompilable(f"{nxt.op._name}'s value does not pass the Switch")
        nexts.append(name[(src[0].idx, src[1])])
    cond_src = inputs_of[cond.idx][0][0]
    if cond_src.idx in post or cond_src.idx in switch_of:
        raise _NotCompilable("the predicate depends on the body")
    pred = name[(cond_src.idx, inputs_of[cond.idx][0][1])]
    first_switch = next(iter(switch_of))
    some_switch = next(n for n in members if n.idx == first_switch)
    exit_values = [name[(switch_of[inputs_of[x.idx][0][0].idx].idx, 0)] for x in exits]
    pred_line = body_start + 1 + len(pre_lines)
    line_steps[pred_line] = (some_switch, False, [name[(switch_of[first_switch].idx, 0)], pred])
    for lines, k, entry in pending_lines:
        base = body_start + 1 if lines is pre_lines else pred_line + 2
        line_steps[base + k] = entry
    names = sorted(cells)
    src = ["def _make(_cells):",
           "    (" + "".join(f"{n}, " for n in names) + ") = _cells",
           "    def loop(enters):",
           "        (" + "".join(f"e{j}, " for j in range(len(enters))) + ") = enters"]
    src += ["        " + line for line in prologue]
    src.append("        while True:")
    src += ["            " + line for line in pre_lines]
    src.append(f"            if not _pred({pred}):")
    src.append("                return [" + ", ".join(exit_values) + "]")
    src += ["            " + line for line in post_lines]
    src.append("            (" + "".join(f"m{i}, " for i in range(len(merges))) + ") = (" +
               "".join(f"{v}, " for v in nexts) + ")")
    runners = []
    # Two variants, the second for runs with a deadline (RunOptions.timeout_in_ms): it checks
    # the deadline once per iteration, on a last line, so both share their line numbers.
    for extra in ([], ["            _check_deadline()"]):
        namespace = {}
        exec(compile("\n".join(src + extra + ["    return loop"]),
                     f"<flowloom compiled loop {len(members)} nodes>", "exec"),
             namespace)  # noqa: S102 - source built from generated identifiers only
        fn = namespace["_make"]([cells[n] for n in names])
        runners.append(CompiledRunner(fn, line_steps))
    return CompiledLoop(frame_name, list(enters), list(exits), *runners)
