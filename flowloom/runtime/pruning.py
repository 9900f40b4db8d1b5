"""Pruning a graph to the ops a Session.run needs, in an order where each follows its inputs."""

from flowloom.framework import errors
from flowloom.runtime.blocking import BLOCKING_TYPES


def prune(fetch_ops, feed_tensors):
    """The ops needed to compute `fetch_ops`, in an order where every op follows its inputs.

    A loop's back edge (NextIteration -> Merge) is not followed in place: the NextIteration
    is visited afterwards as a root of its own, so while loops are pruned without a cycle
    (the dataflow executor orders their ops by readiness, not by this list).
    """
    fed = feed_tensors
    order = []
    state = {}  # op -> 1 visiting, 2 done
    roots = list(fetch_ops)
    k = 0
    while k < len(roots):
        root = roots[k]
        k += 1
        if root in state:
            continue
        stack = [(root, False)]
        path = []  # the ops being visited (state 1), outermost first
        while stack:
            op, expanded = stack.pop()
            if expanded:
                state[op] = 2
                order.append(op)
                path.pop()
                continue
            if op in state:
                if state[op] == 1:  # reached again while its own inputs are visited
                    raise _cycle_error(op, path)
                continue
            state[op] = 1
            path.append(op)
            stack.append((op, True))
            for c in reversed(op._control_inputs):
                if state.get(c) != 2 and not fed_placeholder(c, fed):
                    stack.append((c, False))
            for t in reversed(op._inputs):
                if t in fed:
                    continue
                p = t._op
                if _is_loop_back_edge(p):
                    roots.append(p)
                elif state.get(p) != 2:
                    stack.append((p, False))
    check_input_types(order)
    if BLOCKING_TYPES and any(op._type in BLOCKING_TYPES for op in order):
        order = _blocking_last(order)
    return order


def _blocking_last(order):
    """`order` with the ops that may block, and all that depend on them, after the rest.

    TF runs independent ops concurrently: while a dequeue waits, the other ops of its run go
    on (and one that fails ends the run). Run one after another, the ops that do not depend
    on a blocking op go first, so they have run when it waits. Still an order where every
    op follows its inputs: an op that does not depend on a blocking op reads none of them.
    """
    late = set()
    for op in order:
        if op._type in BLOCKING_TYPES or any(t._op in late for t in op._inputs) or \
                any(c in late for c in op._control_inputs):
            late.add(op)
    if len(late) == len(order):
        return order
    return [op for op in order if op not in late] + [op for op in order if op in late]


def check_input_types(order):
    """Raises TF's InvalidArgumentError when an op to run has an input of the wrong type (an
    edge `Operation._update_input` replaced: op_construction keeps them on the graph)."""
    if not order:
        return
    mistyped = order[0]._graph.__dict__.get("_mistyped_inputs")
    if mistyped:
        ops = set(order)
        for (op, _), (_, message) in mistyped.items():
            if op in ops:
                raise errors.InvalidArgumentError(None, op, message)


def _cycle_error(op, path):
    cycle = path[path.index(op):]
    return errors.InvalidArgumentError(
        None, op, f"Graph is invalid, contains a cycle with {len(cycle)} nodes, including: "
        f"{', '.join(o._name for o in cycle[:4])}")


def fed_placeholder(op, fed):
    """A fed Placeholder satisfies the control edges from it, as in TF (its feed replaces it)."""
    return op._type in ("Placeholder", "PlaceholderV2") and bool(op._outputs) and \
        all(t in fed for t in op._outputs)


def _is_loop_back_edge(op):
    return op._type in ("NextIteration", "RefNextIteration")
