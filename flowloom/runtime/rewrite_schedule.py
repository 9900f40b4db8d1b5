"""Part of the `memory_optimization` rewrite: steps that allocate nothing run as soon as they
can, so that what they read dies sooner.

A plan runs its steps in one topological order, and in a training step that order puts the
variable updates (`ApplyGradientDescent`, `Assign`, ...) and the `tf.tuple` Identities of the
gradients after the whole backward pass: every weight gradient stays alive until the end. TF's
executor runs an op as soon as its inputs are ready; this pass does the same for the steps
that make no new buffer (Identity, variable updates): each runs right after the last step it
must follow, and the plan's other steps keep their order.

A moved step must follow:
- the producers of its inputs and its control inputs (through ops the plan does not run);
- the last earlier step that touches a variable it touches: a variable is touched through
  its reference or handle, and through any value that may share its buffer (the outputs of
  every op not known to return arrays of its own, starting from the variable's `read`), so
  no read of a variable moves across a write of it, nor a write across a read;
- for a variable update, the last earlier stateful step that is not itself a variable update
  (queues, prints, random ops, savers keep their order relative to the updates).

Every step computes from the same inputs as before, in an order the graph allows, so the
values are the same.
"""

import numpy as np

_UPDATE_TYPES = frozenset(["Assign", "AssignAdd", "AssignSub", "AssignVariableOp",
                           "AssignAddVariableOp", "AssignSubVariableOp"])
# Kernels whose outputs never share an input's buffer (they return arrays of their own).
_OWN_OUTPUT_TYPES = frozenset([
    "MatMul", "_FusedMatMul", "_FusedConv2D", "_FusedElementwise", "Conv2D", "MaxPool",
    "MaxPoolGrad", "_FusedMaxPoolGrad", "ReluGrad", "Relu", "Conv2DBackpropInput", "Conv2DBackpropFilter",
    "BiasAddGrad", "SparseSoftmaxCrossEntropyWithLogits", "_MaxPoolCodes", "_FusedPoolConvGrad"])


def _is_update(op):
    t = op._type
    return op._opdef.stateful and (t in _UPDATE_TYPES or t.startswith("Apply") or
                                   t.startswith("ResourceApply"))


def _movable(step):
    op = step.op
    return (op._type == "Identity" and step.nout == 1) or _is_update(op)


def _owns_outputs(step):
    return (isinstance(step.fn, np.ufunc) and not step.derefs) or \
        step.op._type in _OWN_OUTPUT_TYPES


def _variable_like(t):
    return t._dtype.is_ref_dtype or t._dtype.name == "resource"


def hoist(steps):
    """`steps` (a fast-path plan's, in a valid order) with the movable steps run as early as
    they may; the same Step objects. Their `frees` must be planned again afterwards."""
    if not any(_movable(s) for s in steps):
        return steps
    step_of = {s.op: s for s in steps}
    index = {id(s): k for k, s in enumerate(steps)}
    producer = {}
    roots = {}  # slot -> the variables (slots of their references/handles) it may share
    last_touch = {}  # variable -> index of the last step so far that touches it
    last_stateful = -1  # index of the last stateful step so far that is not an update
    control_memo = {}
    deps = {}  # index of a movable step -> indices of the steps it must follow
    for k, s in enumerate(steps):
        op = s.op
        touched = set()
        for j, slot in enumerate(s.ins):
            touched |= roots.get(slot, frozenset())
            if _variable_like(op._inputs[j]) and slot not in roots:
                touched.add(slot)  # a reference or handle fed or made outside the steps
        if _movable(s):
            need = {index[id(producer[i])] for i in s.ins if i in producer}
            for c in op._control_inputs:
                need |= _control_steps(c, step_of, index, control_memo)
            need.update(last_touch[v] for v in touched if v in last_touch)
            if _is_update(op) and last_stateful >= 0:
                need.add(last_stateful)
            need.discard(k)
            if need and max(need) < k:  # (else it stays where it is)
                deps[k] = need
        elif op._opdef.stateful and not _is_update(op):
            last_stateful = k
        for v in touched:
            last_touch[v] = k
        shared = frozenset() if _owns_outputs(s) else frozenset(touched)
        for n in range(s.nout):
            slot = s.out + n
            producer[slot] = s
            if _variable_like(op._outputs[n]):
                roots[slot] = shared or frozenset([slot])
            elif shared:
                roots[slot] = shared
    if not deps:
        return steps
    waiting = {}
    dependents = {}
    for k, need in deps.items():
        waiting[k] = len(need)
        for d in need:
            dependents.setdefault(d, []).append(k)
    out = []
    done = set()

    def emit(k):
        stack = [k]
        while stack:
            k = stack.pop()
            done.add(k)
            out.append(steps[k])
            ready = []
            for m in dependents.get(k, ()):
                waiting[m] -= 1
                if waiting[m] == 0:
                    ready.append(m)
            stack.extend(sorted(ready, reverse=True))  # the earliest first

    for k in range(len(steps)):
        if k in deps or k in done:
            continue
        emit(k)
    if len(out) != len(steps) or all(a is b for a, b in zip(out, steps)):
        return steps  # (a different length cannot happen for a valid order)
    return out


def _control_steps(op, step_of, index, memo):
    """Indices of the steps that a control input `op` stands for: itself when the plan runs
    it, else (an op a rewrite dropped) the steps its own inputs stand for."""
    got = memo.get(op)
    if got is not None:
        return got
    s = step_of.get(op)
    if s is not None:
        got = {index[id(s)]}
    else:
        got = set()
        memo[op] = got  # (a cycle cannot happen in a graph; this bounds the walk anyway)
        for t in op._inputs:
            got |= _control_steps(t._op, step_of, index, memo)
        for c in op._control_inputs:
            got |= _control_steps(c, step_of, index, memo)
    memo[op] = got
    return got
