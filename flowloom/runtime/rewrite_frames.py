"""Graph rewrites for plans with TF1 control flow (runtime/dataflow_plan.py), inside while-loop
bodies and cond branches as well as around them.

The dataflow executor runs node instances per (frame, iteration), and a node with a dead
input (data or control) is dead. A rewrite is safe here when every node it leaves computes
the value *and the deadness* the graph's nodes did, in the frame they ran in. The passes
below keep both exactly:

  common_subgraph_elimination  two stateless ops with the same type, attrs, inputs and
                            control inputs run in one frame and iteration and are dead
                            together; control-flow ops (Enter, Merge, Switch, Exit,
                            NextIteration, LoopCond) are never merged.
  arithmetic_optimization   the stages that drop no input: Add chains as AddN, Cast to its
                            own dtype, Neg(Neg(x)), x + (-y) as x - y. (Stages that drop an
                            input, such as a Reshape's shape, could make a value live where
                            that input was dead: a shape Const inside a loop waits for the
                            loop's pivot, so it is dead after the last iteration. They run
                            only on loop-free plans.)
  dependency_optimization   an Identity with one plain input, no control inputs and no op
                            waiting for it is dead exactly when its input is; a NoOp is
                            dropped and the ops that waited for it wait for its control
                            inputs instead (`control_of`), so they become ready, and dead,
                            exactly when they did. Pure ops feeding only control edges are
                            kept: inside a frame such an edge carries deadness.
  remapping                 MatMul/Conv2D + BiasAdd (+ activation), MaxPoolGrad + ReluGrad
                            and elementwise chains run as one op: the chain's intermediate
                            values are private, so the fused op sees the chain's inputs and
                            control inputs, and is dead when any member would have been.

Constant folding and buffer reuse stay with the straight-line executors (and
runtime/dataflow_straight.py folds loop-free plans' constants). FLOWLOOM_DEBUG=1 names what
each pass did, with "(control flow)".
"""

from flowloom.runtime import rewrites

CONTROL_FLOW_TYPES = frozenset([
    "Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
    "NextIteration", "RefNextIteration", "LoopCond", "ControlTrigger"])
EXACT_ARITHMETIC = ("add_ops", "redundant_cast", "involution", "negation")


class FrameRewritten(rewrites.Rewritten):
    """`rewrites.Rewritten` plus `control_of`: {dropped NoOp: the ops it waited for}."""

    def __init__(self, order):
        super().__init__(order)
        self.control_of = {}

    def note(self, rewrite, what):
        super().note(rewrite, what + " (control flow)")

    def control_inputs(self, op, in_plan, stands_in):
        """`op`'s control inputs as ops of the rewritten plan: a dropped NoOp's own control
        inputs in its place, a graph op replaced by a rewritten op as that op."""
        out = []
        todo = list(op._control_inputs)
        seen = set()
        while todo:
            c = todo.pop(0)
            if c in seen:
                continue
            seen.add(c)
            if c in self.control_of:
                todo.extend(self.control_of[c])
                continue
            c = c if c in in_plan else stands_in.get(c)
            if c is not None and c not in out:
                out.append(c)
        return out


def apply(config, order, fetch_tensors, target_ops, placement, fed):
    """The plan's op list after the frame-safe rewrites (`order` itself is unchanged)."""
    from flowloom.runtime import rewrite_cse, rewrite_oplist

    fed = set(fed)
    result = FrameRewritten(order)
    if rewrites.ALL_OFF:
        return result
    if rewrites.enabled(config, "common_subgraph_elimination"):
        result.order, result.aliases, result.placed_as, dropped = rewrite_cse.eliminate(
            result.order, placement, rewrites._CHECKS | CONTROL_FLOW_TYPES, fed)
        result.merged = dropped
        if dropped:
            result.note("common_subgraph_elimination", f"{len(dropped)} op(s) that repeat an "
                        "earlier op's computation are not run")
    aliased = len(result.aliases)
    if rewrites.enabled(config, "arithmetic_optimization"):
        rewrites._arithmetic(result, fetch_tensors, target_ops, placement, fed,
                             stages=EXACT_ARITHMETIC)
    if rewrites.enabled(config, "dependency_optimization"):
        _identities(result, fetch_tensors, target_ops, placement, fed)
        _noops(result, target_ops, placement)
    if len(result.aliases) > aliased:
        fetches = [result.aliases.get(t, t) for t in fetch_tensors]
        result.order = rewrite_oplist.drop_unread(result.order, fetches, set(target_ops),
                                                  rewrites._must_run)
    if rewrites.enabled(config, "remapping"):
        rewrites.remap(result, fetch_tensors, target_ops, placement, fed)
    return result


def _identities(result, fetch_tensors, target_ops, placement, fed):
    from flowloom.runtime import rewrite_identity, rewrite_oplist

    fetches = [result.aliases.get(t, t) for t in fetch_tensors]
    result.order, aliases, result.placed_as, identities, _ = rewrite_identity.remove(
        result.order, fetches, target_ops, placement, fed, result.placed_as, noops=False)
    result.aliases = rewrite_oplist.compose(result.aliases, aliases)
    if identities:
        result.note("dependency_optimization", f"{identities} Identity op(s) removed (no "
                    "device copy or control edge depends on them)")


def _noops(result, target_ops, placement):
    """Drops NoOps whose control inputs and waiters share their device; the waiters wait for
    the NoOp's control inputs instead (`result.control_of`)."""
    targets = set(target_ops)
    place = result.placement(placement)
    waiters = {}
    for op in result.order:
        for c in op._control_inputs:
            waiters.setdefault(c, []).append(op)
    kept = []
    for op in result.order:
        dev = place.get(op)
        if op._type == "NoOp" and not op._inputs and op not in targets and \
                getattr(op, "replaces", None) is None and \
                all(place.get(c, dev) is dev for c in op._control_inputs) and \
                all(place.get(w, dev) is dev for w in waiters.get(op, ())):
            result.control_of[op] = list(op._control_inputs)
            continue
        kept.append(op)
    if result.control_of:
        result.order = kept
        result.note("dependency_optimization", f"{len(result.control_of)} NoOp(s) removed "
                    "(their waiters wait for what they waited for)")
