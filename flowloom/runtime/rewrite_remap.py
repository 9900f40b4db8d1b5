"""The `remapping` rewrite: MatMul/Conv2D + BiasAdd (+ Relu, Relu6 or Elu) become one fused
op (`_FusedMatMul`, `_FusedConv2D`, as Grappler's remapper names them) whose kernel adds the
bias and applies the activation in the product's buffer (ops/nn/fused_ops.py).

A pure pass over a plan's op list: the graph is not changed. A chain is fused only where
nothing else can see its intermediate values: each intermediate tensor has one consumer in
the plan (the next op of the chain), is not fetched, and its op is no target; no op of the
chain has control consumers in the plan; every op of the chain is on one device. Gradients are
unaffected: they are ops of the graph, and a training plan fuses the forward chains whose
intermediates the backward ops do not read (ReluGrad and EluGrad read the activation's
output, which the fused op produces).
"""

_PRODUCERS = {"MatMul": "_FusedMatMul", "Conv2D": "_FusedConv2D"}
_ACTIVATIONS = frozenset(["Relu", "Relu6", "Elu"])
_FLOATS = frozenset(["float32", "float64", "float16"])


class RewrittenOp:
    """An op that a rewrite made for one plan (it is not in the graph).

    It has what the executor, the tracer and `flowloom explain` read from an Operation:
    name, type, OpDef, inputs, outputs, attrs, control inputs, device and creation site,
    plus `replaces`, the graph ops it stands for (their values are computed by it).
    """

    def __init__(self, type_name, name, inputs, attrs, replaces):
        from flowloom.framework import op_def

        last = replaces[-1]
        self._type = type_name
        self._name = name
        # A copy of a call of a library function has the function's OpDef (not registered).
        self._opdef = op_def.get(type_name) or \
            (last._opdef if last._type == type_name else None)
        self._inputs = list(inputs)
        self._outputs = list(last._outputs)
        self._attrs = dict(attrs)
        controls = []
        for op in replaces:
            controls.extend(c for c in op._control_inputs if c not in controls)
        self._control_inputs = controls
        self._control_outputs = list(last._control_outputs)
        self._device = last._device
        self._traceback = last._traceback
        self._graph = last._graph
        self.replaces = tuple(replaces)
        self.placed_as = last  # the op whose device it runs on

    @property
    def name(self):
        return self._name

    @property
    def type(self):
        return self._type

    def user_location(self):
        return self.placed_as.user_location()

    def __repr__(self):
        return f"<RewrittenOp {self._name} ({self._type}) for " \
               f"{', '.join(op._name for op in self.replaces)}>"


def stands_for(op):
    """The graph ops whose values `op` computes: itself, or what a `RewrittenOp` replaces."""
    replaces = getattr(op, "replaces", None)
    if replaces is None:
        return [op]
    return [g for r in replaces for g in stands_for(r)]


def _bias_of(op, t):
    """The bias that `op` adds to the product `t`, or None: a BiasAdd (NHWC), or an Add whose
    other operand is a vector as long as the product's last dimension (Grappler's
    bias-semantic Add; `t + b` and `b + t` are the same sums)."""
    if op is None:
        return None
    if op._type == "BiasAdd":
        ok = op._inputs[0] is t and op._attrs.get("data_format", "NHWC") in ("NHWC", b"NHWC")
        return op._inputs[1] if ok else None
    if op._type not in ("Add", "AddV2") or len(op._inputs) != 2:
        return None
    other = op._inputs[1] if op._inputs[0] is t else op._inputs[0]
    if other is t or other._dtype is not t._dtype:
        return None
    dims = t._shape.as_list() if t._shape.ndims else None
    out = op._outputs[0]._shape
    if not dims or dims[-1] is None or other._shape.ndims != 1 or \
            other._shape.as_list() != [dims[-1]] or out.ndims is None or out.as_list() != dims:
        return None
    return other


def remap(order, fetch_tensors, target_ops, placement):
    """The plan's op list with fusable chains replaced by fused ops (a new list)."""
    from flowloom.ops.nn import fused_ops  # noqa: F401 - registers the fused op types

    uses = {}
    control_users = set()
    for op in order:
        for t in op._inputs:
            uses[t] = uses.get(t, 0) + 1
        control_users.update(op._control_inputs)
    blocked = set(fetch_tensors)
    targets = set(target_ops)

    def private(t, op):
        # `t` (an output of `op`) is seen by its one consumer only.
        return uses.get(t, 0) == 1 and t not in blocked and op not in targets and \
            op not in control_users and len(op._outputs) == 1

    consumer = {}
    for op in order:
        for t in op._inputs:
            consumer[t] = op
    fused_at = {}  # the chain's last op -> the fused op
    dropped = set()
    for op in order:
        fused_type = _PRODUCERS.get(op._type)
        if fused_type is None or op in dropped:
            continue
        t = op._outputs[0]
        if t._dtype.name not in _FLOATS or not private(t, op):
            continue
        bias_add = consumer.get(t)
        bias = _bias_of(bias_add, t)
        if bias is None:
            continue
        if op._type == "Conv2D" and op._attrs.get("data_format", "NHWC") not in ("NHWC",
                                                                                 b"NHWC"):
            continue
        chain = [op, bias_add]
        u = bias_add._outputs[0]
        act = consumer.get(u)
        if act is not None and act._type in _ACTIVATIONS and act._inputs[0] is u and \
                private(u, bias_add):
            chain.append(act)
        if len({placement.get(c) for c in chain}) != 1 or chain[-1] in control_users or \
                any(c in fused_at or c in dropped for c in chain):
            continue
        attrs = {k: v for k, v in op._attrs.items() if k not in ("grad_a", "grad_b")}
        attrs["fused_ops"] = [b"BiasAdd"] + [c._type.encode() for c in chain[2:]]
        attrs["num_args"] = 1
        fused = RewrittenOp(fused_type, chain[-1]._name, list(op._inputs) + [bias], attrs,
                            chain)
        fused_at[chain[-1]] = fused
        dropped.update(chain[:-1])
    if not fused_at:
        return order, {}
    out = []
    for op in order:
        if op in dropped:
            continue
        out.append(fused_at.get(op, op))
    return out, {f: f.placed_as for f in fused_at.values()}
