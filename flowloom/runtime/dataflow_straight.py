"""Dataflow plans without loops, run as a straight list of steps with dead values.

A plan whose control flow is only `cond`s (Switch and Merge, no Enter/Exit/NextIteration)
needs no frames, iterations or ready queue: run in one topological order, each node is dead
when a data input is dead or a control input's node was (ControlTrigger never is), and a
Merge forwards its live data input, dead only when all are. That is what runtime/dataflow.py
computes for such a plan, provided no Merge can see two live inputs (then which one it takes
depends on arrival order): `StraightPlan.build` proves, for every Merge, that its data inputs
are guarded by opposite outputs of Switches on one predicate, and refuses the plan otherwise.

The result is the same values, errors ("Retval[k] does not have value" for a dead fetch)
and stateful effects as the dataflow run, at the cost of a plain executor's loop: per step,
the reads of its inputs, a deadness check, and the kernel call.
"""

import collections

import numpy as np

from flowloom.framework import errors
from flowloom.runtime import kernel_specialize, rewrites
from flowloom.runtime.dataflow_plan import _MERGE, _NORMAL, DEAD

_SWITCH_TYPES = frozenset(["Switch", "RefSwitch"])


class StraightPlan:
    """A loop-free `DataflowPlan` compiled to steps; `run(feed_values)` as its `run`."""

    __slots__ = ("steps", "num_slots", "template", "fetch_slots", "fetch_from_feed",
                 "num_fetches", "compiled")

    @classmethod
    def build(cls, plan, config=None):
        """A `StraightPlan` for `plan`, or None when it has loops, device copies, or a
        Merge whose inputs are not provably exclusive. Nodes computed from constants alone
        (no control input, stateless, not a check) are computed now, as the plain
        executor's constant folding does (`config`: the session's ConfigProto)."""
        nodes = plan.nodes
        for n in nodes:
            if n.kind not in (_NORMAL, _MERGE) or n.in_xfer or n.compiled_loop is not None:
                return None
            if n.device is not None and not n.device.is_host:
                return None
            if any(x is not None for edges in n.edges for _, _, x in edges):
                return None
        order = _topological(nodes)
        if order is None or not _merges_exclusive(order, plan):
            return None
        self = cls.__new__(cls)
        num_feeds = len(plan.feed_targets)
        out_base = {}
        slot = num_feeds
        for n in order:
            out_base[n.idx] = slot
            slot += n.nout
        self.num_slots = slot
        # Each node's input slots: a producer's output slot or a feed's slot.
        sources = {n.idx: [None] * n.nin for n in nodes}
        for n in nodes:
            for k, edges in enumerate(n.edges):
                for dst, j, _ in edges:
                    sources[dst.idx][j] = out_base[n.idx] + k
        for k, targets in enumerate(plan.feed_targets):
            for dst, j in targets:
                sources[dst.idx][j] = k
        ctrl_in = collections.defaultdict(list)
        for n in nodes:
            for dst in n.ctrl_out:
                ctrl_in[dst.idx].append(n.idx)
        fetch_slots = [None] * plan.num_fetches
        for n in nodes:
            for port, ks in n.fetch or ():
                for k in ks:
                    fetch_slots[k] = out_base[n.idx] + port
        self.fetch_slots = fetch_slots
        self.fetch_from_feed = list(plan.fetch_from_feed)
        self.num_fetches = plan.num_fetches
        template = [DEAD] * self.num_slots
        fold = config is not None and rewrites.enabled(config, "constant_folding") or \
            config is None and rewrites.enabled(None, "constant_folding")
        folded_bytes = 0
        steps = []
        for n in order:
            ins = sources[n.idx]
            if any(i is None for i in ins):
                return None  # an input nothing in the plan writes
            if fold and not ctrl_in[n.idx] and _foldable(n) and \
                    all(i >= num_feeds and template[i] is not DEAD for i in ins):
                outs = _fold(n, [template[i] for i in ins])
                size = sum(o.nbytes for o in outs) if outs is not None else 0
                if outs is not None and folded_bytes + size <= \
                        rewrites.MAX_FOLDED_BYTES_PER_PLAN:
                    folded_bytes += size
                    template[out_base[n.idx]:out_base[n.idx] + n.nout] = outs
                    continue
            fn = n.fn
            if fold and fn is not None and n.kind == _NORMAL:
                fn = kernel_specialize.specialize(n.op, fn, [
                    template[i] if i >= num_feeds and template[i] is not DEAD else None
                    for i in ins])
            steps.append((fn, tuple(ins), tuple(ctrl_in[n.idx]), out_base[n.idx], n.nout,
                          n.kind == _MERGE, n.is_trigger, n.idx,
                          n.const if n.const is not None else (True if n.forward else None),
                          n.derefs, n.op))
        self.template = template
        self.steps = steps
        self.compiled = _compile(self, num_feeds)
        return self

    def run(self, feed_values):
        from flowloom.runtime.executor import deref, op_error

        compiled = self.compiled
        if compiled is not None:
            try:
                fetched = compiled.fn(feed_values)
            except Exception as e:  # noqa: BLE001 - a kernel failure becomes a TF error
                found = compiled.failed_step(e)
                if found is None:
                    raise
                op, args = found
                raise op_error(op, args, e) from (None if isinstance(e, errors.OpError) else e)
            for k, f in self.fetch_from_feed:
                fetched[k] = feed_values[f]
            for k, v in enumerate(fetched):
                if v is DEAD:
                    raise errors.InvalidArgumentError(None, None,
                                                      f"Retval[{k}] does not have value")
            return fetched

        vals = self.template.copy()
        vals[:len(feed_values)] = feed_values
        dead_node = {}
        for fn, ins, ctrls, out, nout, is_merge, trigger, idx, forward, derefs, op in \
                self.steps:
            args = [vals[i] for i in ins]
            if is_merge:
                dead = all(a is DEAD for a in args)
            elif trigger:
                dead = False
            else:
                dead = any(a is DEAD for a in args) or any(dead_node.get(c, False) for c in ctrls)
            dead_node[idx] = dead
            if dead:
                continue  # the template holds DEAD in its output slots
            if forward is True:
                outputs = args
            elif forward is not None:
                outputs = forward  # a Const
            else:
                for j in derefs:
                    args[j] = deref(args[j], op)
                try:
                    r = fn(*args)
                except Exception as e:  # noqa: BLE001 - kernel failures become TF errors
                    raise op_error(op, args, e) from (
                        None if isinstance(e, errors.OpError) else e)
                if nout == 1:
                    vals[out] = r
                elif nout:
                    vals[out:out + nout] = r
                continue
            if nout:
                vals[out:out + nout] = outputs
        fetched = [None] * self.num_fetches
        for k, s in enumerate(self.fetch_slots):
            if s is not None:
                fetched[k] = vals[s]
        for k, f in self.fetch_from_feed:
            fetched[k] = feed_values[f]
        for k, v in enumerate(fetched):
            if v is DEAD or (v is None and self.fetch_slots[k] is not None):
                raise errors.InvalidArgumentError(None, None,
                                                  f"Retval[{k}] does not have value")
        return fetched


class _Compiled:
    """The steps as one generated function of the feeds (like runtime/compiled_plan.py): a
    local per slot, deadness tests only where a value can be dead, a flag per node whose
    deadness a control edge carries. Only generated identifiers appear in the source."""

    __slots__ = ("fn", "code", "lines")

    def __init__(self, fn, lines):
        self.fn, self.code, self.lines = fn, fn.__code__, lines

    def failed_step(self, exc):
        """(op, its input values) of the step whose line raised `exc`, or None (a deref's
        own error, or not raised by a step)."""
        tb, found = exc.__traceback__, None
        while tb is not None:
            if tb.tb_frame.f_code is self.code:
                found = tb
            tb = tb.tb_next
        entry = self.lines.get(found.tb_lineno) if found is not None else None
        if entry is None:
            return None
        op, names = entry
        local = found.tb_frame.f_locals
        return op, [local.get(n) for n in names]


def _compile(plan, num_feeds):
    """`plan`'s steps compiled (`_Compiled`), or None when they are too many."""
    from flowloom.runtime.compiled_plan import MAX_COMPILED_STEPS
    from flowloom.runtime.executor import deref

    if len(plan.steps) > MAX_COMPILED_STEPS:
        return None
    cells = {"D": DEAD, "_deref": deref}
    template = plan.template
    names = {}
    for i in range(plan.num_slots):
        if i < num_feeds:
            names[i] = f"v{i}"
        elif template[i] is not DEAD:
            names[i] = f"k{i}"
            cells[f"k{i}"] = template[i]
    may_die = set()      # slots that can hold DEAD
    node_dies = {}       # node idx -> whether it can be dead
    ctrl_used = {c for st in plan.steps for c in st[2]}
    body = [("(" + "".join(f"v{i}, " for i in range(num_feeds)) + ") = feeds")
            if num_feeds else "pass"]
    lines = {}
    first = 4  # `def _make`, the cells' line, `def run(feeds):`, then the body
    for k, (fn, ins, ctrls, out, nout, is_merge, trigger, idx, forward, derefs, op) in \
            enumerate(plan.steps):
        args = [names[i] for i in ins]
        if is_merge:
            dies = all(i in may_die for i in ins)
            test = " and ".join(f"{a} is D" for a in args) if dies else ""
        elif trigger:
            dies, test = False, ""
        else:
            terms = [f"{names[i]} is D" for i in ins if i in may_die] + \
                [f"d{c}" for c in ctrls if node_dies.get(c, False)]  # folded: never dead
            dies, test = bool(terms), " or ".join(terms)
        node_dies[idx] = dies
        outs = [f"v{i}" for i in range(out, out + nout)]
        for i in range(out, out + nout):
            names[i] = f"v{i}"
            if dies or op._type in _SWITCH_TYPES:
                may_die.add(i)
        flag = f"d{idx}" if idx in ctrl_used and dies else None
        indent = "    " if test else ""
        if test:
            body.append(f"if {test}:")
            body.append("    " + (" = ".join(outs + ["D"]) if outs else "pass"))
            if flag:
                body.append(f"    {flag} = True")
            body.append("else:")
        if forward is True:
            call = args[0]
        elif forward is not None:
            cells[f"c{k}"] = forward[0] if nout == 1 else tuple(forward)
            call = f"c{k}"
        else:
            cells[f"f{k}"] = fn
            if derefs:
                cells[f"o{k}"] = op
                for j in derefs:
                    body.append(f"{indent}e{k}_{j} = _deref({args[j]}, o{k})")
                    args[j] = f"e{k}_{j}"
            call = f"f{k}({', '.join(args)})"
            lines[first + len(body)] = (op, list(args))
        if nout == 0:
            body.append(indent + (call if forward is None else "pass"))
        elif nout == 1:
            body.append(f"{indent}{outs[0]} = {call}")
        else:
            body.append(f"{indent}({', '.join(outs)},) = {call}")
        if flag:
            body.append(f"{indent}{flag} = False")
    fetched = ["D" if s is None else names[s] for s in plan.fetch_slots]
    body.append("return [" + ", ".join(fetched) + "]")
    order = sorted(cells)
    src = ["def _make(_cells):", "    (" + "".join(f"{n}, " for n in order) + ") = _cells",
           "    def run(feeds):"] + ["        " + line for line in body] + ["    return run"]
    namespace = {}
    exec(compile("\n".join(src), "<flowloom straight plan>", "exec"), namespace)  # noqa: S102
    return _Compiled(namespace["_make"]([cells[n] for n in order]), lines)


def _foldable(n):
    op = n.op
    opdef = op._opdef
    return (n.kind == _NORMAL and op._type not in _SWITCH_TYPES and not opdef.stateful
            and op._type not in rewrites._CHECKS and not n.derefs and not n.is_trigger
            and not opdef.kernel_wants_ctx and not op._type.startswith(("PyFunc", "EagerPy"))
            and not any(t._dtype.is_ref_dtype or t._dtype.base_dtype.name in
                        ("resource", "variant") for t in op._outputs))


def _fold(n, args):
    """The node's outputs computed from constant inputs, or None (a failing op fails when
    it runs, as in TF; outputs must be small arrays)."""
    if n.const is not None:
        outs = list(n.const)
    else:
        try:
            r = n.fn(*args)
        except Exception:  # noqa: BLE001 - it fails at run time instead
            return None
        outs = [r] if n.nout == 1 else list(r) if n.nout else []
    if len(outs) != n.nout or not all(isinstance(o, (np.ndarray, np.generic)) and
                                      o.nbytes <= rewrites.MAX_FOLDED_BYTES for o in outs):
        return None
    return outs


def _topological(nodes):
    """The nodes in an order where every node follows its data and control inputs (the
    ready order of a FIFO executor that waits for every input), or None on a cycle."""
    pending = {n.idx: 0 for n in nodes}
    users = collections.defaultdict(list)
    for n in nodes:
        for edges in n.edges:
            for dst, _, _ in edges:
                pending[dst.idx] += 1
                users[n.idx].append(dst)
        for dst in n.ctrl_out:
            pending[dst.idx] += 1
            users[n.idx].append(dst)
    ready = collections.deque(n for n in nodes if pending[n.idx] == 0)
    order = []
    while ready:
        n = ready.popleft()
        order.append(n)
        for dst in users[n.idx]:
            pending[dst.idx] -= 1
            if pending[dst.idx] == 0:
                ready.append(dst)
    return order if len(order) == len(nodes) else None


def _merges_exclusive(order, plan):
    """True when each Merge's data inputs are pairwise exclusive: one is guarded by output 1
    of a Switch on predicate p, the other by output 0 of a Switch on p. A node's guards are
    the Switch outputs whose deadness makes it dead: the union of its inputs' (a Merge: the
    intersection of its data inputs')."""
    producer = {}
    for n in order:
        for k, edges in enumerate(n.edges):
            for dst, j, _ in edges:
                producer[(dst.idx, j)] = (n.idx, k)
    for k, targets in enumerate(plan.feed_targets):
        for dst, j in targets:
            producer[(dst.idx, j)] = ("feed", k)
    guards = {}  # (node idx, port) -> frozenset of (predicate key, port)
    node_guard = {}  # node idx -> the guards of the node itself (what its control edges carry)
    ctrl_of = collections.defaultdict(list)
    for n in order:
        for dst in n.ctrl_out:
            ctrl_of[dst.idx].append(n)
    empty = frozenset()
    for n in order:
        data = []
        for j in range(n.nin):
            src = producer.get((n.idx, j))
            data.append(guards.get(src, empty) if src is not None else empty)
        if n.kind == _MERGE:
            for a in range(len(data)):
                for b in range(a + 1, len(data)):
                    if not any((key, 1 - p) in data[b] for key, p in data[a]):
                        return False
            g = frozenset.intersection(*data) if data else empty
        elif n.is_trigger:
            g = empty
        else:
            g = frozenset().union(*data, *(node_guard[c.idx] for c in ctrl_of[n.idx]))
        node_guard[n.idx] = g
        if n.op._type in _SWITCH_TYPES:
            key = producer.get((n.idx, 1))  # the predicate: a node's output or a feed
            if key is None:
                return False
            guards[(n.idx, 0)] = g | {(key, 0)}
            guards[(n.idx, 1)] = g | {(key, 1)}
        else:
            for k in range(n.nout):
                guards[(n.idx, k)] = g
    return True
