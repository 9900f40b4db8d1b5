"""Running a dataset function on a chunk of elements at once, where that is exact.

A `map` function traced for one element (flowloom/data/functions.py) is run per element by
default. Many functions are *batch-safe*: every op in them computes, on inputs stacked along
a new leading axis, exactly the stack of what it computes per element (elementwise math,
casts, parsing an Example's fixed-length features). For those, `Vectorized` runs the
function's graph once per chunk of elements with the same kernels and unstacks the result:
the same values, far fewer calls.

Which ops are batch-safe, and how, is a table of rules by op type (`RULES`): a rule looks at
the op and at which of its inputs carry the leading batch axis, and says which outputs do,
or refuses (an op none of whose inputs depends on the element needs no rule: it runs once
for the chunk). A graph with any other op without a rule (stateful ops, random draws, asserts, ops
with control inputs, shapes not known statically) is not vectorised. A chunk whose batched
run fails for any reason is run element by element instead, so errors are exactly the ones
(and at the element) the per-element run gives.
"""

import threading

import numpy as np

UNARY = frozenset([
    "Identity", "StopGradient", "Cast", "Neg", "Abs", "Sqrt", "Rsqrt", "Exp", "Expm1", "Log",
    "Log1p", "Square", "Sign", "Floor", "Ceil", "Rint", "Round", "Tanh", "Sigmoid", "Relu",
    "Relu6", "Softplus", "LogicalNot", "Reciprocal", "Inv", "Sin", "Cos", "IsNan", "IsInf",
    "IsFinite", "Erf"])
BINARY = frozenset([
    "Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "DivNoNan", "FloorDiv", "FloorMod",
    "TruncateDiv", "TruncateMod", "Maximum", "Minimum", "Pow", "SquaredDifference", "Less",
    "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr"])


def _rank(tensor):
    return tensor.shape.ndims


def _elementwise(op, batched):
    """Elementwise ops (with broadcasting): batch-safe when the batch axis lines up, that is
    when every input not batched has no larger a static rank than the batched ones; batched
    inputs of a smaller rank than the largest get unit axes after their batch axis."""
    ranks = [_rank(t) for t in op.inputs]
    if None in ranks:
        return None
    top = max(r for r, b in zip(ranks, batched) if b)
    if any(r > top for r, b in zip(ranks, batched) if not b):
        return None
    short = [i for i, (r, b) in enumerate(zip(ranks, batched)) if b and r < top]
    if not short:
        return [True] * len(op.outputs), None

    def make(kernel):
        def run(*args):
            args = list(args)
            for i in short:
                x = args[i]
                args[i] = np.reshape(x, x.shape[:1] + (1,) * (top - ranks[i]) + x.shape[1:])
            return kernel(*args)
        return run
    return [True] * len(op.outputs), make


def _parse_example(op, batched):
    """ParseExample(V2) of one serialized Example: its fixed-length dense features stacked
    are the parse of the records as a vector. Sparse and variable-length features are not
    batch-safe (their outputs are not stacks)."""
    if not batched[0] or any(batched[1:]) or _rank(op.inputs[0]) != 0:
        return None
    sparse = op.get_attr("num_sparse" if op.type == "ParseExampleV2" else "Nsparse")
    if sparse or (op.type == "ParseExampleV2" and op.get_attr("ragged_value_types")):
        return None
    if not all(s.is_fully_defined() for s in _shapes(op.get_attr("dense_shapes"))):
        return None
    return [True] * len(op.outputs), None


def _shapes(values):
    from flowloom.framework import tensor_shape

    return [tensor_shape.as_shape(v) for v in values]


def _decode_raw(op, batched):
    """DecodeRaw of a scalar string: the stack of equal-length decodes is the decode of the
    vector (unequal lengths make the batched kernel fail, and the chunk runs per element)."""
    if not batched[0] or _rank(op.inputs[0]) != 0:
        return None
    return [True], None


def _reshape(op, batched):
    """Reshape of a batched tensor to a shape not computed per element: each element takes
    the shape the kernel gives its first element (which checks sizes and fills -1)."""
    if not batched[0] or batched[1]:
        return None

    def make(kernel):
        def run(x, shape):
            if x.shape[0] == 0:
                raise ValueError("empty chunk")
            one = kernel(x[0], shape)
            return np.reshape(x, (x.shape[0],) + tuple(np.shape(one)))
        return run
    return [True], make


def _transpose(op, batched):
    """Transpose of a batched tensor by a permutation not computed per element."""
    if not batched[0] or batched[1] or _rank(op.inputs[0]) is None:
        return None
    rank = _rank(op.inputs[0])

    def make(kernel):
        def run(x, perm):
            perm = [int(p) for p in np.asarray(perm).reshape(-1)]
            if len(perm) != rank or sorted(p % rank for p in perm) != list(range(rank)):
                raise ValueError("not a permutation of the element's axes")
            return np.transpose(x, [0] + [p % rank + 1 for p in perm])
        return run
    return [True], make


def _constant(op, batched):
    """An op none of whose inputs depends on the element: the same value for each."""
    return [False] * len(op.outputs), None


# op type -> rule(op, batched input flags) -> (batched output flags, kernel wrapper or None),
# or None when the op is not batch-safe with those inputs.
RULES = {"ParseExampleV2": _parse_example, "ParseExample": _parse_example,
         "DecodeRaw": _decode_raw, "Reshape": _reshape, "Transpose": _transpose}
RULES.update({t: _elementwise for t in UNARY | BINARY})


class Vectorized:
    """A traced function's graph run on stacked elements: `vectorized(chunk, captured)` gives
    the function's outputs for each element of `chunk` (a list of element tuples), or raises
    when the batched run fails (the caller then runs the chunk element by element)."""

    def __init__(self, steps, arg_tensors, captured_tensors, outputs):
        self._steps = steps
        self._args = arg_tensors
        self._captured = captured_tensors
        self._outputs = outputs  # (tensor, batched)

    def __call__(self, chunk, captured_values):
        n = len(chunk)
        values = {}
        for j, t in enumerate(self._args):
            values[t] = np.stack([e[j] for e in chunk])
        for t, v in zip(self._captured, captured_values):
            values[t] = v
        for op, fn in self._steps:
            out = fn(*[values[t] for t in op.inputs])
            if len(op.outputs) == 1:
                values[op.outputs[0]] = out
            else:
                for t, v in zip(op.outputs, out):
                    values[t] = v
        columns = []
        for t, batched in self._outputs:
            v = np.asarray(values[t])
            if batched and (v.ndim == 0 or v.shape[0] != n):
                raise ValueError("a batched output lost its batch axis")
            columns.append((v, batched))
        return [tuple(v[k, ...] if b else v for v, b in columns) for k in range(n)]


def vectorize(graph, arg_tensors, captured_tensors, outputs):
    """A `Vectorized` runner of `graph` (the function's inputs `arg_tensors` batched, its
    `captured_tensors` not), or None where the function is not batch-safe."""
    from flowloom.runtime.executor import _bind_kernel

    if any(t.dtype.base_dtype.name in ("variant", "resource")
           for t in list(arg_tensors) + list(outputs)):
        return None  # datasets and resources are not stacked
    batched = {t: True for t in arg_tensors}
    batched.update({t: False for t in captured_tensors})
    needed = _needed_ops(outputs, set(arg_tensors) | set(captured_tensors))
    if needed is None:
        return None
    steps = []
    for op in graph.get_operations():
        if op not in needed:
            continue
        if op.control_inputs or op._opdef.kernel_wants_ctx or op._opdef.stateful:
            return None
        flags = [batched[t] for t in op.inputs]
        rule = RULES.get(op.type) if any(flags) else _constant
        if rule is None:
            return None
        got = rule(op, flags)
        if got is None:
            return None
        flags, wrap = got
        kernel = _bind_kernel(None, op, np)
        steps.append((op, wrap(kernel) if wrap else kernel))
        for t, b in zip(op.outputs, flags):
            batched[t] = b
    if not any(batched.get(t) for t in outputs):
        return None  # nothing depends on the element: per element is as cheap
    return Vectorized(steps, list(arg_tensors), list(captured_tensors),
                      [(t, batched[t]) for t in outputs])


def _needed_ops(outputs, fed):
    """The ops the outputs depend on (fed tensors cut the walk), or None if one is a
    Placeholder that is not fed."""
    needed = set()
    stack = [t.op for t in outputs if t not in fed]
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        if op.type in ("Placeholder", "PlaceholderV2", "PlaceholderWithDefault"):
            return None
        needed.add(op)
        stack.extend(t.op for t in op.inputs if t not in fed)
        stack.extend(op.control_inputs)
    return needed


class LazyVectorized:
    """Builds a function's `Vectorized` runner on first use (once, thread-safe)."""

    def __init__(self, build):
        self._build = build
        self._lock = threading.Lock()
        self._done = False
        self._runner = None

    def get(self):
        if not self._done:
            with self._lock:
                if not self._done:
                    try:
                        self._runner = self._build()
                    except Exception:  # noqa: BLE001 - anything odd: run per element
                        self._runner = None
                    self._done = True
        return self._runner
