"""The `common_subgraph_elimination` rewrite: stateless ops that compute the same thing run
once.

Two ops are the same computation when they have the same type, the same attrs, the same
inputs (after the inputs' own duplicates are merged), the same control inputs and the same
device. The later one is dropped from the plan and its outputs are read from the earlier
one's slots (`aliases`). Ops that change state, checks (Assert, CheckNumerics, ...),
Python functions, references, resources, ops whose kernels keep state per op and ops that
others wait for through control edges are never merged; a Const is merged only when its value is small (its bytes are compared).
"""

import numpy as np

# A Const's value is compared byte for byte up to this size.
MAX_CONST_BYTES = 256

_NEVER = frozenset(["Placeholder", "PlaceholderV2", "PlaceholderWithDefault"])


def _attr_key(value):
    if isinstance(value, np.ndarray):
        if value.dtype == object or value.nbytes > MAX_CONST_BYTES:
            return ("id", id(value))
        return ("nd", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_attr_key(v) for v in value)
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    if type(value).__name__ == "TensorShape":
        return ("shape", repr(value))
    return (type(value).__name__, value)


def _mergeable(op, checks):
    opdef = op._opdef
    if opdef is None or opdef.stateful or opdef.kernel_wants_ctx or op._type in checks or \
            op._type in _NEVER or op._type.startswith(("PyFunc", "EagerPyFunc")):
        return False
    for t in list(op._inputs) + list(op._outputs):
        dt = t._dtype
        if dt.is_ref_dtype or dt.base_dtype.name in ("resource", "variant"):
            return False
    return True


def eliminate(order, placement, checks, fed=()):
    """Drops repeated computations from the plan's op list.

    Returns:
      (the new op list, {dropped tensor: the tensor that replaces it}, {made op: graph op},
      {dropped op: the graph op whose computation it repeats}). A consumer of a dropped op's output is replaced in the
      list by a `RewrittenOp` copy of itself that reads the replacing tensor instead, so
      the rewritten plan reads as a graph (partition graphs show it).
    """
    from flowloom.runtime.rewrite_remap import RewrittenOp

    # An op that others wait for through control edges stays: the edge names it.
    control_users = {c for op in order for c in op._control_inputs}
    aliases = {}
    made = {}
    seen = {}
    out = []
    dropped = {}
    for op in order:
        if any(t in aliases for t in op._inputs):
            original = op
            op = RewrittenOp(op._type, op._name, [aliases.get(t, t) for t in op._inputs],
                             op._attrs, [original])
            made[op] = original
        if not _mergeable(op, checks) or any(t in fed for t in op._outputs) or \
                made.get(op, op) in control_users:
            out.append(op)
            continue
        try:
            key = (op._type, placement.get(made.get(op, op)),
                   tuple(id(t) for t in op._inputs),
                   tuple(sorted(id(c) for c in op._control_inputs)),
                   tuple(sorted((k, _attr_key(v)) for k, v in op._attrs.items())))
        except TypeError:  # attrs that cannot be ordered: the op stays
            out.append(op)
            continue
        first = seen.get(key)
        if first is None or len(first._outputs) != len(op._outputs):
            seen[key] = op
            out.append(op)
            continue
        for mine, theirs in zip(op._outputs, first._outputs):
            aliases[mine] = theirs
        dropped[made.pop(op, op)] = made.get(first, first)
    return out, aliases, made, dropped
