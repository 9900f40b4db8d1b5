"""The walk that the op-list rewrites share: a plan's ops in order, with what each pass asks.

A pass visits each op of the plan's op list (topological: producers first) after the op's
inputs have been redirected to the tensors that replace dropped ops' outputs (`aliases`);
the visit keeps the op, puts a `RewrittenOp` in its place, or drops it and names the tensors
that stand for its outputs. Ops a pass merges into a later op are dropped with `drop`. The
graph itself is never changed: the pass returns a new op list.
"""

from flowloom.runtime.rewrite_remap import RewrittenOp


def is_plain(t):
    """A tensor holding an array (not a reference, resource or variant)."""
    dt = t._dtype
    return not dt.is_ref_dtype and dt.base_dtype.name not in ("resource", "variant")


def static_shape(t):
    """The tensor's static shape as a tuple when fully known, else None."""
    s = t._shape
    return tuple(s.as_list()) if s.is_fully_defined() else None


class OpListPass:
    """One walk over a plan's op list.

    Args:
      order: the op list (graph ops and `RewrittenOp`s), topological.
      fetch_tensors, target_ops, fed: what the run fetches, runs and feeds (never dropped).
      placement: {op: device} of the graph ops; a made op runs where `placed_as` says.
      placed_as: {RewrittenOp: graph op} from the earlier passes.
    """

    def __init__(self, order, fetch_tensors, target_ops, placement, fed, placed_as):
        self.order = order
        self.placement = placement
        self.placed_as = dict(placed_as)
        self.fetched = set(fetch_tensors)
        self.targets = set(target_ops)
        self.fed = set(fed)
        self.uses = {}
        self.consumers = {}
        self.control_users = {}
        for op in order:
            for t in op._inputs:
                self.uses[t] = self.uses.get(t, 0) + 1
                self.consumers.setdefault(t, []).append(op)
            for c in op._control_inputs:
                self.control_users.setdefault(c, []).append(op)
        self.producer = {t: op for op in order for t in op._outputs}
        self.aliases = {}
        self._dropped = set()
        self._replaced = {}

    # -- what a visit asks ----------------------------------------------------------------
    def device(self, op):
        return self.placement.get(self.placed_as.get(op, op))

    def device_of(self, t):
        """The device of the op that computes `t` (or of its graph op when fed)."""
        return self.device(self.producer.get(t, t._op))

    def made_by(self, t):
        """The op of the (rewritten) list that computes `t`, or None when it is fed or absent."""
        return self.producer.get(t)

    def preserved(self, op):
        """An op that must stay as it is: fetched, run as a target, fed, or waited for."""
        return op in self.targets or any(t in self.fetched or t in self.fed
                                         for t in op._outputs) or \
            self.placed_as.get(op, op) in self.control_users or op in self.control_users

    def waited_for(self, op):
        """A target, or an op that others wait for through control edges."""
        return op in self.targets or self.placed_as.get(op, op) in self.control_users or \
            op in self.control_users

    def private(self, t):
        """`t` is read by exactly one op of the plan and seen by nothing else."""
        op = self.producer.get(t)
        return op is not None and self.uses.get(t, 0) == 1 and not self.preserved(op) and \
            len(op._outputs) == 1

    def drop(self, op):
        """Removes an earlier op whose work a later op now does."""
        self._dropped.add(op)

    def make(self, type_name, name, inputs, attrs, replaces):
        """A `RewrittenOp` standing for `replaces`, placed like the last of them."""
        op = RewrittenOp(type_name, name, inputs, attrs, replaces)
        last = replaces[-1]
        self.placed_as[op] = self.placed_as.get(last, last)
        for t in op._outputs:
            self.producer[t] = op
        return op

    # -- the walk -------------------------------------------------------------------------
    def _resolve(self, t):
        seen = 0
        while t in self.aliases and seen < 1000:
            t = self.aliases[t]
            seen += 1
        return t

    def run(self, visit):
        """Walks the list with `visit(op)`; returns the new op list.

        `visit` returns the op to keep (itself or a replacement) or a list of tensors that
        stand for the op's outputs (the op is dropped).
        """
        out = []
        for op in self.order:
            inputs = [self._resolve(t) for t in op._inputs]
            if any(a is not b for a, b in zip(inputs, op._inputs)):
                original = op
                op = RewrittenOp(op._type, op._name, inputs, op._attrs, [original])
                self.placed_as[op] = self.placed_as.get(original, original)
                for t in op._outputs:
                    self.producer[t] = op
            result = visit(op)
            if isinstance(result, list):
                for t in op._inputs:
                    self.uses[t] -= 1
                for mine, theirs in zip(op._outputs, result):
                    theirs = self._resolve(theirs)
                    self.aliases[mine] = theirs
                    # Whoever reads `mine` will read `theirs`.
                    self.uses[theirs] = self.uses.get(theirs, 0) + self.uses.pop(mine, 0)
                    self.consumers.setdefault(theirs, []).extend(self.consumers.pop(mine, ()))
                self._dropped.add(op)
                continue
            out.append(result)
        return [op for op in out if op not in self._dropped]


def compose(old_aliases, new_aliases):
    """Earlier passes' aliases followed through a later pass's (a new dict)."""
    merged = {t: new_aliases.get(u, u) for t, u in old_aliases.items()}
    merged.update(new_aliases)
    return merged


def drop_unread(order, fetch_tensors, target_ops, must_run):
    """The op list without the ops that a rewrite left unread.

    An op stays when it is a target, computes a fetched tensor, `must_run(op)` says so
    (state, checks), or a staying op reads it or waits for it; the rest computed values that
    an earlier pass redirected every reader away from.
    """
    producer = {t: op for op in order for t in op._outputs}
    in_list = set(order)
    by_graph_op = {}
    for op in order:
        for r in getattr(op, "replaces", ()):
            by_graph_op.setdefault(r, op)
    stay = set()
    todo = [producer[t] for t in fetch_tensors if t in producer]
    todo += [op for op in order if op in target_ops or must_run(op)]
    while todo:
        op = todo.pop()
        if op in stay:
            continue
        stay.add(op)
        todo.extend(producer[t] for t in op._inputs if t in producer)
        for c in op._control_inputs:
            todo.append(c if c in in_list else by_graph_op.get(c, c))
    if len(stay) >= len(order):
        return order
    return [op for op in order if op in stay]
