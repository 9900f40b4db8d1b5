"""Why each op of one Session.run ran or did not, where it ran, and what crossed devices.

`explain_plan` reads a compiled plan (what the session really runs); `explain_ops` does the
same from a set of op names (what a RunMetadata says ran). Both give a `RunExplanation`,
whose `str()` is the report `FLOWLOOM_EXPLAIN=1` prints and whose `to_dict()` is for tools.
"""

import os

_STATEFUL_HINT = ("it changes state, yet nothing fetched depends on it, so it does not run; "
                  "fetch it, or make a fetched op depend on it (e.g. y = tf.identity(x) inside "
                  "tf.control_dependencies([it]))")


def plan_ops(plan):
    """The Operations a compiled plan runs, and its Send/Recv pairs (possibly empty)."""
    pairs = []
    if plan.steps is not None:
        # Ops folded when the plan was compiled count as run: their values are used.
        ops = list(getattr(plan, "folded_ops", ()))
        for s in plan.steps:  # an op a rewrite made ran the graph ops it replaces
            ops.extend(getattr(s.op, "replaces", (s.op,)))
    elif plan.external is not None:
        ops = [n.op for n in plan.external.nodes]
    else:
        ops = []
        for part in plan.partitioned.partitions:
            for s in part.steps:
                if getattr(s, "kind", None) not in _COMM_KINDS:
                    ops.extend(getattr(s.op, "replaces", (s.op,)))
        pairs = list(plan.partitioned.pairs)
    return ops, pairs


def partitioned_pairs(plan):
    """The Send/Recv pairs of a plan, building its partitioned form when needed."""
    if plan.external is not None:
        return []
    partitioned = plan.get_partitioned()
    return list(partitioned.pairs) if partitioned is not None else []


class Transfer:
    """One `_Send`/`_Recv` pair: a tensor (or a control edge) copied between two devices."""

    def __init__(self, tensor_name, src, dst, consumers, control=False):
        self.tensor_name = tensor_name
        self.src = src
        self.dst = dst
        self.consumers = consumers
        self.control = control

    def to_dict(self):
        return {"tensor": self.tensor_name, "from": self.src, "to": self.dst,
                "consumers": list(self.consumers), "control": self.control}


class RunExplanation:
    """What one Session.run did, and why.

    Attributes:
      fetches, feeds, targets: names of the fetched tensors, fed tensors and target ops.
      ran: op name -> (op type, device, user location) for every op that ran.
      why: op name -> (consumer op name, "data" | "control" | "fetch" | "target", tensor name).
      pruned: op name -> reason, for ops of the graph that did not run (pruned_types: their
        op types; stateful_pruned: those that change state, which the user likely meant
        to run).
      cut_by_feed: fed tensor name -> names of the ops the feed made unnecessary.
      transfers: the `Transfer`s between devices.
      variable_uses: variable name -> [(op name, "read" | "updated", device)].
      seconds: the run's wall time, when measured.
    """

    def __init__(self):
        self.fetches = []
        self.feeds = []
        self.targets = []
        self.ran = {}
        self.why = {}
        self.pruned = {}
        self.pruned_types = {}
        self.stateful_pruned = []
        self.cut_by_feed = {}
        self.transfers = []
        self.variable_uses = {}
        self.seconds = None
        self.op_seconds = {}

    def to_dict(self):
        return {
            "fetches": self.fetches, "feeds": self.feeds, "targets": self.targets,
            "ran": {k: {"type": t, "device": d, "location": loc}
                    for k, (t, d, loc) in self.ran.items()},
            "why": {k: {"consumer": c, "edge": e, "tensor": t}
                    for k, (c, e, t) in self.why.items()},
            "pruned": dict(self.pruned), "stateful_pruned": list(self.stateful_pruned),
            "cut_by_feed": {k: list(v) for k, v in self.cut_by_feed.items()},
            "transfers": [t.to_dict() for t in self.transfers],
            "variable_uses": {k: [list(u) for u in v] for k, v in self.variable_uses.items()},
            "seconds": self.seconds,
        }

    def __str__(self):
        return format_explanation(self)


def _location(op):
    tb = op._traceback
    if not tb:
        return None
    return f"{_short_path(tb[0])}:{tb[1]}"


def _short_path(path):
    if path.startswith("<"):
        return path
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def _short_device(name):
    if not name:
        return ""
    return name.rsplit("/", 1)[-1].replace("device:", "")


def explain_ops(graph, ran_ops, fetch_tensors, feed_tensors=(), target_ops=(), placement=None,
                pairs=(), seconds=None):
    """Builds a `RunExplanation` from the ops that ran and the run's signature.

    Args:
      graph: the Graph the run used.
      ran_ops: the Operations that ran.
      fetch_tensors, feed_tensors, target_ops: the run's signature.
      placement: op -> device name (or an object with `.name`), when known.
      pairs: the plan's (SendStep, RecvStep) pairs, when the run crossed devices.
      seconds: the run's wall time.
    """
    ex = RunExplanation()
    ex.fetches = [t.name for t in fetch_tensors]
    ex.feeds = [t.name for t in feed_tensors]
    ex.targets = [op.name for op in target_ops]
    ex.seconds = seconds
    ran = set(ran_ops)
    fed = set(feed_tensors)

    def device_of(op):
        if placement is not None and op in placement:
            d = placement[op]
            return getattr(d, "name", d)
        return op._device or ""

    for op in ran_ops:
        ex.ran[op._name] = (op._type, device_of(op), _location(op))
    # Why: the first edge by which a breadth-first walk from the fetches reaches each op.
    frontier = []
    for t in fetch_tensors:
        if t not in fed and t._op._name not in ex.why:
            ex.why[t._op._name] = (None, "fetch", t.name)
            frontier.append(t._op)
    for op in target_ops:
        if op._name not in ex.why:
            ex.why[op._name] = (None, "target", None)
            frontier.append(op)
    needed_without_feeds = set(frontier)
    k = 0
    while k < len(frontier):
        op = frontier[k]
        k += 1
        for t in op._inputs:
            if t in fed:
                continue
            p = t._op
            if p._name not in ex.why and p in ran:
                ex.why[p._name] = (op._name, "data", t.name)
                frontier.append(p)
        for c in op._control_inputs:
            if c._name not in ex.why and c in ran:
                ex.why[c._name] = (op._name, "control", None)
                frontier.append(c)
    # Ops the fetches would need if nothing were fed: those not run were cut by a feed.
    stack = list(needed_without_feeds)
    while stack:
        op = stack.pop()
        for p in [t._op for t in op._inputs] + list(op._control_inputs):
            if p not in needed_without_feeds:
                needed_without_feeds.add(p)
                stack.append(p)
    for t in feed_tensors:
        cut = []
        stack = [t._op]
        seen = set()
        while stack:
            op = stack.pop()
            if op in seen or op in ran:
                continue
            seen.add(op)
            cut.append(op._name)
            stack.extend(x._op for x in op._inputs)
            stack.extend(op._control_inputs)
        ex.cut_by_feed[t.name] = cut
    fed_producers = {t._op._name for t in feed_tensors}
    cut_names = {n for names in ex.cut_by_feed.values() for n in names}
    initializers = _variable_initializers(graph)
    for op in graph.get_operations():
        if op in ran:
            continue
        ex.pruned_types[op._name] = op._type
        if op._name in fed_producers:
            ex.pruned[op._name] = "its output is fed"
        elif op._name in cut_names:
            ex.pruned[op._name] = "only needed for a tensor that is fed"
        elif op in needed_without_feeds:
            ex.pruned[op._name] = "not needed once the feeds are given"
        else:
            ex.pruned[op._name] = "no fetch or target depends on it"
            if op._opdef.stateful and op._type not in _QUIET_STATEFUL and \
                    op not in initializers:
                ex.stateful_pruned.append(op._name)
    for _, p in pairs:
        consumers = sorted({c._name for c in _consumers_on(p, ran, placement, device_of)})
        if p.tensor is not None:
            ex.transfers.append(Transfer(p.tensor.name, p.src.name, p.dst.name, consumers))
        else:
            ex.transfers.append(Transfer("^" + p.control_op._name, p.src.name, p.dst.name,
                                         consumers, control=True))
    for op in ran_ops:
        for i, t in enumerate(op._inputs):
            src = t._op
            if src._type not in _VARIABLE_TYPES:
                continue
            how = "updated" if i in op._opdef.ref_input_indices else "read"
            ex.variable_uses.setdefault(src._name, []).append(
                (op._name, how, device_of(op)))
    return ex


_COMM_KINDS = ("send", "recv")
_PLACEHOLDERS = frozenset(["Placeholder", "PlaceholderV2", "PlaceholderWithDefault"])
_VARIABLE_TYPES = frozenset(["VariableV2", "Variable", "VarHandleOp", "TemporaryVariable"])
# Stateful ops whose not running is normal: sources of values, not effects.
_QUIET_STATEFUL = frozenset(["VariableV2", "Variable", "VarHandleOp", "Placeholder",
                             "PlaceholderV2", "PlaceholderWithDefault", "RandomUniform",
                             "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt",
                             "RandomShuffle", "Multinomial", "TemporaryVariable"])


def _variable_initializers(graph):
    from flowloom.framework.graph import GraphKeys

    ops = set()
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES):
        for v in graph.get_collection(key):
            init = getattr(v, "initializer", None)
            if init is not None:
                ops.add(init)
    # A graph read from a file has no collections: `v/Assign` of a variable `v` is its
    # initializer by TF's naming.
    for op in graph.get_operations():
        if op._type == "Assign" and op._inputs and \
                op._name == op._inputs[0]._op._name + "/Assign":
            ops.add(op)
    return ops


def _consumers_on(recv, ran, placement, device_of):
    dst = recv.dst.name
    if recv.tensor is not None:
        cands = recv.tensor._consumers
    else:
        cands = recv.control_op._control_outputs
    return [c for c in cands if c in ran and device_of(c) == dst]


def explain_plan(session, plan, feed_tensors, fetch_tensors, target_ops, seconds=None):
    """A `RunExplanation` of a plan the session compiled."""
    ops, pairs = plan_ops(plan)
    if not pairs:
        try:
            pairs = partitioned_pairs(plan)
        except Exception:  # an explanation never breaks a run
            pairs = []
    placement = session._place()
    ex = explain_ops(session.graph, ops, fetch_tensors, feed_tensors, target_ops,
                     placement=placement, pairs=pairs, seconds=seconds)
    rewritten = getattr(plan, "rewrites", None)
    for op, twin in getattr(rewritten, "merged", {}).items():
        ex.pruned[op._name] = (f"the same computation as {twin._name}, which ran "
                               "(rewrite common_subgraph_elimination)")
    return ex


def format_explanation(ex, max_pruned=20):
    """The text report of a `RunExplanation`."""
    lines = []
    head = f"Session.run: fetches {ex.fetches or '[]'}"
    if ex.targets:
        head += f", targets {ex.targets}"
    if ex.feeds:
        head += f", feeds {ex.feeds}"
    lines.append(head)
    devices = sorted({d for _, d, _ in ex.ran.values() if d})
    cost = f" in {ex.seconds * 1e3:.3f} ms" if ex.seconds is not None else ""
    lines.append(f"  ran {len(ex.ran)} ops on {len(devices) or 1} device(s)"
                 f" ({', '.join(_short_device(d) for d in devices) or 'CPU:0'}){cost}; "
                 f"{len(ex.pruned)} op(s) of the graph did not run")
    lines.append("  why each op ran (consumer <- producer):")
    children = {}
    roots = []
    for name, (consumer, edge, tensor) in ex.why.items():
        if consumer is None:
            roots.append(name)
        else:
            children.setdefault(consumer, []).append((name, edge, tensor))

    def describe(name):
        typ, dev, loc = ex.ran.get(name, ("?", "", None))
        where = f" on {_short_device(dev)}" if len(devices) > 1 else ""
        at = f"  [{loc}]" if loc else ""
        return f"{name} ({typ}){where}{at}"

    for root in roots:
        _, edge, tensor = ex.why[root]
        label = f"fetch {tensor}" if edge == "fetch" else "target"
        lines.append(f"    {label}: {describe(root)}")
        stack = [(c, 3) for c in reversed(children.get(root, []))]
        while stack:
            (name, edge, tensor), depth = stack.pop()
            via = f"data {tensor}" if edge == "data" else "control edge"
            lines.append("  " * depth + f"<- {via}: {describe(name)}")
            stack.extend((c, depth + 1) for c in reversed(children.get(name, [])))
    for tname, cut in ex.cut_by_feed.items():
        cut = [n for n in cut if ex.pruned_types.get(n) not in _PLACEHOLDERS]
        if cut:
            lines.append(f"  feed {tname} cuts {len(cut)} op(s) upstream: {', '.join(cut[:8])}"
                         + (" ..." if len(cut) > 8 else ""))
    for name in ex.stateful_pruned:
        lines.append(f"  NOT RUN: {name} ({ex.pruned_types[name]}): {_STATEFUL_HINT}")
    if ex.transfers:
        lines.append(f"  copies between devices: {len(ex.transfers)} _Send/_Recv pair(s), "
                     "one per (tensor, destination device)")
        for tr in ex.transfers:
            what = "control edge " + tr.tensor_name if tr.control else tr.tensor_name
            verb = "waited for by" if tr.control else "read there by"
            readers = f", {verb} {', '.join(tr.consumers)}" if tr.consumers else \
                ", fetched by the client"
            lines.append(f"    {what}: {_short_device(tr.src)} -> {_short_device(tr.dst)}"
                         f"{readers}")
    for var, uses in ex.variable_uses.items():
        parts = [f"{how} by {op}" + (f" on {_short_device(dev)}" if len(devices) > 1 else "")
                 for op, how, dev in uses]
        lines.append(f"  variable {var}: {'; '.join(parts)}")
    others = [n for n in ex.pruned if n not in ex.stateful_pruned]
    if others:
        shown = ", ".join(f"{n} ({ex.pruned[n]})" for n in others[:max_pruned])
        more = f" and {len(others) - max_pruned} more" if len(others) > max_pruned else ""
        lines.append(f"  did not run: {shown}{more}")
    return "\n".join(lines)

