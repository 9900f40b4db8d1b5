"""Pruning a graph to the ops a Session.run needs, in an order where each follows its inputs."""

from flowloom.framework import errors


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
        while stack:
            op, expanded = stack.pop()
            if expanded:
                state[op] = 2
                order.append(op)
                continue
            if op in state:
                continue
            state[op] = 1
            stack.append((op, True))
            for c in reversed(op._control_inputs):
                if c not in state and not fed_placeholder(c, fed):
                    stack.append((c, False))
            for t in reversed(op._inputs):
                if t in fed:
                    continue
                p = t._op
                if _is_loop_back_edge(p):
                    roots.append(p)
                elif p not in state:
                    stack.append((p, False))
                elif state[p] == 1:
                    raise errors.InvalidArgumentError(
                        None, op, f"Graph has a cycle through '{op._name}'")
    return order


def fed_placeholder(op, fed):
    """A fed Placeholder satisfies the control edges from it, as in TF (its feed replaces it)."""
    return op._type in ("Placeholder", "PlaceholderV2") and bool(op._outputs) and \
        all(t in fed for t in op._outputs)


def _is_loop_back_edge(op):
    return op._type in ("NextIteration", "RefNextIteration")
