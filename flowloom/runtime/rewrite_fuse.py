"""Elementwise fusion, a stage of the `remapping` rewrite: a chain of elementwise ops whose
intermediate values nothing else sees becomes one `_FusedElementwise` op (ops/math/
fused_elementwise.py), one step of the plan that writes every op's result into one array.

A chain grows from an elementwise op (of a value that is not a scalar) through the consumer
of its value when that value is private (read by that one op, not fetched, not waited
for), both ops are on one device, and every input and output of the chain has one dtype (a float dtype unless every op keeps
integers as NumPy does). The fused op takes the name of the chain's last op (whose output
it computes), so fetches, partition graphs and errors name it; `FLOWLOOM_DEBUG=1` lists each
chain.
"""

from flowloom.runtime.rewrite_oplist import OpListPass, is_plain

MAX_CHAIN = 64


def _member_ok(op):
    from flowloom.ops.math import fused_elementwise as fe

    t = op._type
    if (t not in fe.BINARY and t not in fe.UNARY) or len(op._outputs) != 1:
        return False
    if len(op._inputs) != (2 if t in fe.BINARY else 1):
        return False
    out = op._outputs[0]
    dt = out._dtype
    if out._shape.ndims == 0:
        # A scalar chain has no buffer to share (NumPy scalars are never written in place):
        # its ufuncs alone cost less than one fused kernel (a per-example random scaling).
        return False
    if not is_plain(out) or dt.name == "bfloat16" or \
            any(i._dtype is not dt for i in op._inputs):
        return False
    return dt.is_floating or (dt.is_integer and t in fe.INTEGER_OK)


def fuse(order, fetch_tensors, target_ops, placement, fed, placed_as):
    """(new op list, placed_as, {fused op: the graph ops it runs})."""
    walk = OpListPass(order, fetch_tensors, target_ops, placement, fed, placed_as)
    chains = {}  # fused op -> (types, chain_at, args, members)

    def visit(op):
        if not _member_ok(op) or walk.waited_for(op):
            return op
        for j, t in enumerate(op._inputs):
            prev = walk.made_by(t)
            if prev is None or not walk.private(t) or walk.device(prev) is not walk.device(op):
                continue
            if prev in chains:
                types, at, args, members = chains[prev]
            elif _member_ok(prev) and not walk.waited_for(prev):
                types, at, args, members = [prev._type], [-1], list(prev._inputs), [prev]
            else:
                continue
            if len(types) >= MAX_CHAIN:
                continue
            others = [x for k, x in enumerate(op._inputs) if k != j]
            entry = (types + [op._type], at + [j], args + others, members + [op])
            fused = walk.make("_FusedElementwise", op._name, entry[2],
                              {"fused_ops": [n.encode() for n in entry[0]],
                               "chain_at": entry[1], "N": len(entry[2]),
                               "T": op._outputs[0]._dtype}, entry[3])
            walk.drop(prev)
            chains.pop(prev, None)
            chains[fused] = entry
            return fused
        return op

    new_order = walk.run(visit)
    kept = set(new_order)
    return new_order, walk.placed_as, {f: e[3] for f, e in chains.items() if f in kept}
