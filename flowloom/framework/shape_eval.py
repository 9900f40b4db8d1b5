"""Constant evaluation for shape functions: the value of an op's input when a small subgraph of
constants computes it, as TF's C++ shape inference finds it (its EvaluateConstantTensor).

`tensor_util.constant_value` is TF's Python rule set (Const, Shape of a known shape, Pack, ...)
and stays that. A shape function that in TF asks for an input's value (`c->input_tensor(i)`)
calls `input_value` instead, which also runs the kernels of a constant subgraph feeding the
input: every op on the way is stateless, not a placeholder or a control-flow frame op, has a
kernel that needs no session, and every value stays small (`MAX_ELEMENTS`). So
`tf.slice(z, [0, 0, 0], [tf.constant(1) + 0, 2, -1])` has a static shape, as in TF.
Anything else is "not known" (None), never an error: a failing kernel fails at run time.
"""

import numpy as np

from flowloom.framework import tensor_util
from flowloom.framework.ops import Tensor

# Bounds on one evaluation: the ops walked, and the elements of any value computed.
MAX_OPS = 64
MAX_ELEMENTS = tensor_util.MAX_FOLDED_ELEMENTS
# Op types never evaluated (values fed or produced at run time; control-flow frames).
_NEVER = frozenset(["Placeholder", "PlaceholderV2", "PlaceholderWithDefault", "Merge",
                    "RefMerge", "Enter", "RefEnter", "Exit", "RefExit", "NextIteration",
                    "RefNextIteration", "Switch", "RefSwitch", "LoopCond", "VariableV2",
                    "Variable", "VarHandleOp"])


def input_value(tensor):
    """The value of `tensor` if a small constant subgraph computes it, else None."""
    if not isinstance(tensor, Tensor):
        return tensor_util.constant_value(tensor)
    value = tensor_util.constant_value(tensor)
    if value is not None:
        return value
    return _evaluate(tensor)


def input_value_as_shape(tensor):
    """A TensorShape from a 1-D shape tensor (TF's MakeShapeFromShapeTensor): its partly known
    structure first, then a constant evaluation of the whole."""
    from flowloom.framework import tensor_shape

    if isinstance(tensor, Tensor) and tensor._shape.ndims not in (None, 1):
        return tensor_shape.unknown_shape()  # the op's own shape function checks the rank
    shape = tensor_util.constant_value_as_shape(tensor, _see_captures=False)
    if shape.is_fully_defined() or shape.ndims is None and tensor._shape.ndims != 1:
        return shape
    value = _evaluate(tensor) if isinstance(tensor, Tensor) else None
    if value is not None and np.ndim(value) == 1:
        return tensor_shape.TensorShape([None if d == -1 else int(d) for d in value])
    return shape


def _subgraph(tensor):
    """The ops computing `tensor` from values already known, in run order, with those values;
    None when any op on the way cannot be evaluated now."""
    known = {}
    order = []
    seen = set()
    stack = [(tensor._op, False)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            order.append(op)
            continue
        if op in seen:
            continue
        seen.add(op)
        if len(seen) > MAX_OPS or not _evaluable(op):
            return None
        stack.append((op, True))
        for t in op._inputs:
            if t in known or t._op in seen:
                continue
            v = None if t._op._control_inputs else tensor_util.constant_value(t)
            if v is not None:
                if np.size(v) > MAX_ELEMENTS:
                    return None
                v = np.asarray(v).view()
                v.flags.writeable = False  # a kernel never writes into a Const's value
                known[t] = v
            else:
                stack.append((t._op, False))
    return order, known


def _evaluable(op):
    opdef = op._opdef
    if op._type in _NEVER or opdef is None or opdef.stateful or opdef.kernel_fn is None \
            or opdef.kernel_wants_ctx or op._control_inputs or op._type.startswith("PyFunc"):
        return False
    for t in list(op._inputs) + list(op._outputs):
        d = t._dtype
        if d.is_ref_dtype or d.base_dtype.name in ("resource", "variant"):
            return False
    for t in op._outputs:
        s = t._shape
        if s.is_fully_defined() and s.num_elements() > MAX_ELEMENTS:
            return False
    return True


def _run(op, args):
    opdef = op._opdef
    kwargs = {a: op._attrs[a] for a in opdef.kernel_attrs if a in op._attrs}
    out = opdef.kernel_fn(np, *args, **kwargs)
    outs = list(out) if opdef.returns_sequence else [out]
    if len(outs) != len(op._outputs):
        return None
    arrays = []
    for o, t in zip(outs, op._outputs):
        a = np.asarray(o)
        if a.size > MAX_ELEMENTS or a.dtype != t._dtype.base_dtype.as_numpy_dtype and \
                a.dtype != object:
            return None
        arrays.append(a)
    return arrays


def _evaluate(tensor):
    cache = tensor._op._graph.__dict__.setdefault("_shape_eval_values", {})
    if tensor in cache:
        return cache[tensor]
    found = _subgraph(tensor)
    if found is None:
        return None
    order, values = found
    try:
        with np.errstate(all="ignore"):
            for op in order:
                outs = _run(op, [values[t] for t in op._inputs])
                if outs is None:
                    return None
                for t, v in zip(op._outputs, outs):
                    values[t] = v
    except Exception:  # noqa: BLE001 - not known statically; the kernel fails at run time
        return None
    value = values[tensor]
    if value.nbytes <= 1024:  # TF also keeps only small evaluated values
        cache[tensor] = value
    return value
