"""The `arithmetic_optimization` rewrite: Grappler's arithmetic stages that keep every value
bit for bit, as a pure pass over a plan's op list.

  add_ops          a left-deep chain of Add/AddV2 over operands of one fully known shape
                   (`((a + b) + c) + d`) becomes one AddN, which adds in the same order into
                   one buffer (Grappler's AddOpsRewrite).
  redundant_reshape  a Reshape to its input's own (fully known) shape is dropped; a Reshape
                   of a Reshape that nothing else reads reads the first one's input.
  redundant_cast   a Cast to its input's own dtype is dropped.
  redundant_transpose  a Transpose by the identity permutation, and a Transpose that undoes
                   the Transpose it reads, are dropped (Grappler's RemoveIdentityTranspose and
                   RemoveInverseTranspose).
  involution       Neg(Neg(x)), LogicalNot(LogicalNot(x)), Conj(Conj(x)) read `x`.
  negation         x + (-y) runs as x - y, (-x) + y as y - x, x - (-y) as x + y (Grappler's
                   RemoveNegation); IEEE defines subtraction as adding the negation, so
                   the values are the same.
  redundant_reduction  a reduction whose output has its input's fully known shape (it
                   reduces no axis, or only axes of size 1) is dropped (Grappler does this
                   one in its constant folder).

Stages that change rounding (hoisting common factors out of sums, reordering broadcasts,
sqrt-div to rsqrt-mul) are not done: a rewrite here never changes a value.
"""

import numpy as np

from flowloom.runtime.rewrite_oplist import OpListPass, is_plain, static_shape

STAGES = ("add_ops", "redundant_reshape", "redundant_cast", "redundant_transpose",
          "involution", "negation", "redundant_reduction")

_ADDS = frozenset(["Add", "AddV2"])
_REDUCTIONS = frozenset(["Sum", "Mean", "Prod", "Max", "Min", "Any", "All"])
_INVOLUTIONS = frozenset(["Neg", "LogicalNot", "Conj"])


def _numeric(t):
    dt = t._dtype
    return is_plain(t) and (dt.is_floating or dt.is_integer or dt.is_complex) and \
        dt.name != "bfloat16"


def _const_value(t):
    op = t._op
    if op._type != "Const" or op._outputs[0] is not t:
        return None
    value = op._attrs.get("value")
    return value if isinstance(value, np.ndarray) else None


class _Stages:
    def __init__(self, walk, stages):
        self.walk = walk
        self.stages = [getattr(self, s) for s in stages]
        self.counts = dict.fromkeys(stages, 0)
        self.addn = set()  # the AddNs this pass made (a chain may grow them)

    def visit(self, op):
        if self.walk.waited_for(op):
            return op
        # A fetched op may be replaced by one computing the same outputs, never dropped.
        may_drop = not self.walk.preserved(op)
        for stage in self.stages:
            result = stage(op)
            if result is not None and (may_drop or not isinstance(result, list)):
                self.counts[stage.__name__] += 1
                return result
        return op

    def _same_place(self, op, t):
        producer = self.walk.made_by(t)
        return producer is not None and self.walk.device(producer) is self.walk.device(op)

    # -- stages: each returns None (not applicable), a replacement op, or [tensors] ---------
    def add_ops(self, op):
        if op._type not in _ADDS:
            return None
        out = op._outputs[0]
        shape = static_shape(out)
        first, second = op._inputs
        if shape is None or not _numeric(out) or static_shape(first) != shape or \
                static_shape(second) != shape or first._dtype is not second._dtype:
            return None
        inner = self.walk.made_by(first)
        if inner is None or not (inner._type in _ADDS or inner in self.addn) or \
                not self.walk.private(first) or not self._same_place(op, first) or \
                any(static_shape(t) != shape or t._dtype is not out._dtype
                    for t in inner._inputs):
            return None
        replaces = list(getattr(inner, "replaces", (inner,))) if inner in self.addn else [inner]
        inputs = list(inner._inputs) + [second]
        fused = self.walk.make("AddN", op._name, inputs, {"N": len(inputs), "T": out._dtype},
                               replaces + [op])
        self.walk.drop(inner)
        self.addn.add(fused)
        return fused

    def redundant_reshape(self, op):
        if op._type != "Reshape":
            return None
        x = op._inputs[0]
        shape = static_shape(op._outputs[0])
        if shape is not None and static_shape(x) == shape and is_plain(x):
            return [x]
        inner = self.walk.made_by(x)
        if inner is not None and inner._type == "Reshape" and self.walk.private(x) and \
                self._same_place(op, x):
            self.walk.drop(inner)
            return self.walk.make("Reshape", op._name, [inner._inputs[0], op._inputs[1]],
                                  op._attrs, [inner, op])
        return None

    def redundant_cast(self, op):
        if op._type == "Cast" and is_plain(op._inputs[0]) and \
                op._inputs[0]._dtype is op._outputs[0]._dtype:
            return [op._inputs[0]]
        return None

    def redundant_transpose(self, op):
        if op._type != "Transpose" or not is_plain(op._inputs[0]):
            return None
        perm = _const_value(op._inputs[1])
        if perm is None:
            return None
        perm = [int(p) for p in np.reshape(perm, -1)]
        if perm == list(range(len(perm))):
            return [op._inputs[0]]
        inner = self.walk.made_by(op._inputs[0])
        if inner is not None and inner._type == "Transpose" and \
                self._same_place(op, op._inputs[0]):
            first = _const_value(inner._inputs[1])
            if first is not None:
                first = [int(p) for p in np.reshape(first, -1)]
                if len(first) == len(perm) and \
                        all(first[perm[i]] == i for i in range(len(perm))):
                    return [inner._inputs[0]]
        return None

    def involution(self, op):
        if op._type not in _INVOLUTIONS:
            return None
        inner = self.walk.made_by(op._inputs[0])
        if inner is not None and inner._type == op._type and is_plain(inner._inputs[0]) and \
                self._same_place(op, op._inputs[0]):
            return [inner._inputs[0]]
        return None

    def negation(self, op):
        if op._type not in _ADDS and op._type != "Sub":
            return None
        x, y = op._inputs
        if not (_numeric(x) and _numeric(y)) or x._dtype.is_unsigned:
            return None

        def negated(t):
            p = self.walk.made_by(t)
            return p._inputs[0] if p is not None and p._type == "Neg" and \
                self._same_place(op, t) else None
        ny = negated(y)
        if ny is not None:
            kind = "Sub" if op._type in _ADDS else "AddV2"
            return self.walk.make(kind, op._name, [x, ny], {"T": x._dtype}, [op])
        nx = negated(x) if op._type in _ADDS else None
        if nx is not None:
            return self.walk.make("Sub", op._name, [y, nx], {"T": x._dtype}, [op])
        return None

    def redundant_reduction(self, op):
        if op._type not in _REDUCTIONS:
            return None
        x = op._inputs[0]
        shape = static_shape(x)
        if shape is not None and shape == static_shape(op._outputs[0]) and is_plain(x) and \
                x._dtype is op._outputs[0]._dtype:
            return [x]
        return None


def optimize(order, fetch_tensors, target_ops, placement, fed, placed_as, stages=None):
    """(new op list, {dropped tensor: tensor}, placed_as, {stage: times it acted}).

    `stages` (default: all of `STAGES`) names the stages to run, in that order.
    """
    walk = OpListPass(order, fetch_tensors, target_ops, placement, fed, placed_as)
    run = _Stages(walk, STAGES if stages is None else stages)
    new_order = walk.run(run.visit)
    return new_order, walk.aliases, walk.placed_as, {k: v for k, v in run.counts.items() if v}
