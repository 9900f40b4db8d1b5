"""Ops that call functions of the graph's library by a `func` attr: If, While, For, Case,
PartitionedCall, StatefulPartitionedCall, RemoteCall and SymbolicGradient, with TF 1.15's
wrappers (`functional_ops.If`, `While`, `For`, `Gradient`, `partitioned_call`,
`remote_call`, `symbolic_gradient`).
"""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework import op_def as op_registry
from flowloom.framework.apply_op import apply_op
from flowloom.framework.ops import convert_to_tensor
from flowloom.graph_function import defun
from flowloom.graph_function.runtime import run_function

_FUNC_ATTRS = ("then_branch", "else_branch", "cond", "body", "f", "branches")
_TYPE_LIST_ATTRS = ("Tout", "Tin", "T")


def _convert_attrs(attrs):
    for k in _FUNC_ATTRS:
        v = attrs.get(k)
        if v is None:
            continue
        attrs[k] = [defun._func_attr(b) for b in v] if isinstance(v, (list, tuple)) \
            else defun._func_attr(v)
    for k in _TYPE_LIST_ATTRS:
        if isinstance(attrs.get(k), (list, tuple)):
            attrs[k] = [dtypes.as_dtype(t).base_dtype for t in attrs[k]]


def _defop(name, inputs, outputs, attrs, stateful=True):
    opdef = op_registry.defop(name, inputs=inputs, outputs=outputs, attrs=attrs,
                              stateful=stateful)
    opdef.attr_hook = _convert_attrs
    return opdef


def _to_bool(value, what):
    v = np.asarray(value)
    if v.ndim == 0:
        if v.dtype == object or v.dtype.kind in "SU":
            return len(v.item()) > 0
        return bool(v)
    return v.size > 0


def _check_count(got, want, what):
    if len(got) != want:
        raise errors.InvalidArgumentError(None, None, f"{what} returned {len(got)} arguments. "
                                          f"Expected: {want}")


# -- If ------------------------------------------------------------------------------------
_If_OP = _defop("If", ["cond: Tcond", "input: list(Tin)"], ["output: list(Tout)"],
            {"then_branch": None, "else_branch": None, "output_shapes": []})


@_If_OP.kernel
def _(xp, cond, *args, ctx, then_branch, else_branch):
    branch = then_branch if _to_bool(cond, "cond") else else_branch
    return run_function(ctx, branch.name, args)


# -- Case ----------------------------------------------------------------------------------
_Case_OP = _defop("Case", ["branch_index: int32", "input: list(Tin)"], ["output: list(Tout)"],
              {"branches": None, "output_shapes": []})


@_Case_OP.kernel
def _(xp, branch_index, *args, ctx, branches):
    i = int(branch_index)
    if i < 0 or i >= len(branches):
        i = len(branches) - 1  # TF: an index out of range runs the last branch
    return run_function(ctx, branches[i].name, args)


# -- While ---------------------------------------------------------------------------------
_While_OP = _defop("While", ["input: list(T)"], ["output: list(T)"],
               {"cond": None, "body": None, "output_shapes": [], "parallel_iterations": 10})


@_While_OP.shape
def _(op):
    return [t.shape for t in op.inputs]


@_While_OP.kernel
def _(xp, *args, ctx, cond, body):
    from flowloom.runtime import blocking

    vals = list(args)
    while True:
        c = run_function(ctx, cond.name, vals)
        if len(c) != 1:
            raise errors.InvalidArgumentError(
                None, None, "Expected a single scalar return value from WhileOp cond, got "
                f"{len(c)} tensors.")
        if not _to_bool(c[0], "cond"):
            return vals
        new = run_function(ctx, body.name, vals)
        _check_count(new, len(vals), "While loop body")
        vals = list(new)
        blocking.check_deadline(ctx.op)


# -- For -----------------------------------------------------------------------------------
_For_OP = _defop("For", ["start: int32", "limit: int32", "delta: int32", "input: list(T)"],
             ["output: list(T)"], {"body": None})


@_For_OP.kernel
def _(xp, start, limit, delta, *args, ctx, body):
    for name, v in (("start", start), ("limit", limit), ("delta", delta)):
        if np.ndim(v) != 0:
            raise errors.InvalidArgumentError(None, None, f"{name} must be a scalar: "
                                              f"{np.shape(v)}")
    start, limit, delta = int(start), int(limit), int(delta)
    if not ((start <= limit and delta > 0) or (start >= limit and delta < 0)):
        raise errors.InvalidArgumentError(None, None, f"Invalid start/limit/delta: {start} "
                                          f"{limit} {delta}")
    vals = list(args)
    i = start
    while (delta > 0 and i < limit) or (delta < 0 and i > limit):
        new = run_function(ctx, body.name, [np.int32(i)] + vals)
        _check_count(new, len(vals), "For loop body")
        vals = list(new)
        i += delta
    return vals


# -- PartitionedCall / StatefulPartitionedCall / RemoteCall ---------------------------------
def _partitioned_kernel(xp, *args, ctx, f, executor_type):
    if executor_type:
        executor_type = executor_type.decode() if isinstance(executor_type, bytes) \
            else executor_type
        raise errors.NotFoundError(None, None, f"No executor factory registered for the given "
                                   f"executor type: {executor_type}")
    return run_function(ctx, f.name, args)


for _name in ("PartitionedCall", "StatefulPartitionedCall"):
    _defop(_name, ["args: list(Tin)"], ["output: list(Tout)"],
           {"f": None, "config": "", "config_proto": "", "executor_type": ""},
           stateful=_name.startswith("Stateful")).kernel(_partitioned_kernel)

_RemoteCall_OP = _defop("RemoteCall", ["target: string", "args: list(Tin)"],
                    ["output: list(Tout)"], {"f": None})


@_RemoteCall_OP.kernel
def _(xp, target, *args, ctx, f):
    return run_function(ctx, f.name, args)


# -- SymbolicGradient ----------------------------------------------------------------------
_SymbolicGradient_OP = _defop("SymbolicGradient", ["input: list(Tin)"], ["output: list(Tout)"],
                          {"f": None}, stateful=False)


@_SymbolicGradient_OP.shape
def _(op):
    # (x..., dy...) -> dx...: each dx has the shape of its x.
    return [op.inputs[i].shape for i in range(len(op.outputs))]


@_SymbolicGradient_OP.kernel
def _(xp, *args, ctx, f):
    out = run_function(ctx, f.name, args, gradient=True)
    if len(out) != len(ctx.op._outputs):
        raise errors.InvalidArgumentError(
            None, None, f"SymGrad expects to return {len(ctx.op._outputs)} tensor(s), but get "
            f"{len(out)} tensor(s) instead.")
    return out


# -- wrappers ------------------------------------------------------------------------------
def _outputs(op):
    return list(op.outputs) if op.outputs else op


def symbolic_gradient(input, Tout, f, name=None):  # noqa: A002,N803 - TF's argument names
    """The gradient of function `f` at `input` = (x..., dy...): one dx per x."""
    return _outputs(apply_op("SymbolicGradient", [list(input)], name=name, Tout=list(Tout),
                             f=f))


def Gradient(inputs, f, name=None):  # noqa: N802 - TF's name
    """The gradient function of `f` applied to `inputs` = (x..., dy...)."""
    tlist = [dtypes.as_dtype(a.type) for a in f.definition.signature.input_arg]
    return symbolic_gradient(inputs, tlist, f, name=name)


def If(cond, inputs, then_branch, else_branch, name=None):  # noqa: N802 - TF's name
    """then_branch(inputs) if cond else else_branch(inputs), as one If op."""
    tout = [dtypes.as_dtype(a.type) for a in then_branch.definition.signature.output_arg]
    return _outputs(apply_op("If", [cond, list(inputs)], name=name, Tout=tout,
                             then_branch=then_branch, else_branch=else_branch))


def _capture_wrapper(func):
    """`func` returning, after its results, the arguments that stand for the tensors it
    captures: those become loop-carried values of the loop that calls it."""
    @defun.Defun(*func.declared_input_types, func_name=f"{func.name}_Wrapper")
    def wrapper(*args):
        result = func(*args)
        extra = tuple(defun.get_extra_args())
        if hasattr(result, "_control_inputs"):
            return extra
        if not isinstance(result, tuple):
            return (result,) + extra
        return result + extra
    return wrapper


def While(input_, cond, body, name=None, hostmem=None):  # noqa: N802 - TF's name
    """output = input; While (cond(output)) { output = body(output) }, as one While op.

    Raises:
      ValueError: `cond` captures tensors, or `cond` and `body` have different signatures.
    """
    if cond.captured_inputs:
        raise ValueError("While op 'cond' argument must be a function without implicitly "
                         "captured inputs.")
    if cond.declared_input_types != body.declared_input_types:
        raise ValueError("While op 'cond' and 'body' signatures do not match. "
                         f"{cond.declared_input_types!r} vs {body.declared_input_types!r}")
    extra = body.captured_inputs
    inputs = [convert_to_tensor(x) for x in input_]
    if extra:
        types = list(body.declared_input_types) + [t.dtype.base_dtype for t in extra]
        k = len(body.declared_input_types)

        @defun.Defun(*types, func_name=f"{cond.name}_Wrapper")
        def cond_wrapper(*args):
            return cond(*args[:k])
        body_fn = _capture_wrapper(body)
        op = apply_op("While", [inputs + list(extra)], name=name, cond=cond_wrapper,
                      body=body_fn)
        ret = list(op.outputs)[:-len(extra)]
    else:
        ret = list(apply_op("While", [inputs], name=name, cond=cond, body=body).outputs)
    if hostmem:
        ret[0].op._set_attr("_input_hostmem", list(hostmem))
        ret[0].op._set_attr("_output_hostmem", list(hostmem))
    return ret


def _for_using_while(start, limit, delta, inputs, forbody, name=None, hostmem=None):
    from flowloom.ops.math import math_ops

    d = math_ops.abs(delta)
    n = math_ops.cast(math_ops.cast(math_ops.abs(limit - start) + d - 1, dtypes.float32) /
                      math_ops.cast(d, dtypes.float32), dtypes.int32)
    sig = [dtypes.int32] * 4 + list(forbody.declared_input_types)[1:]

    @defun.Defun(*sig, func_name=f"{forbody.name}_Cond")
    def cond(i, n, *args):
        return i < n

    @defun.Defun(*sig, func_name=f"{forbody.name}_Body")
    def body(i, n, start, delta, *args):
        result = forbody(start + i * delta, *args)
        if hasattr(result, "_control_inputs"):
            result = ()
        elif not isinstance(result, tuple):
            result = (result,)
        return (i + 1, n, start, delta) + tuple(result)
    hostmem = [0, 1, 2, 3] + [4 + h for h in (hostmem or [])]
    results = While([0, n, start, delta] + list(inputs), cond, body, name=name,
                    hostmem=hostmem)
    return list(results[4:])


def For(start, limit, delta, inputs, body, name=None, hostmem=None,  # noqa: N802
        rewrite_with_while=None):
    """out = inputs; for i in range(start, limit, delta): out = body(i, *out)."""
    if rewrite_with_while:
        return _for_using_while(start, limit, delta, inputs, body, name, hostmem)
    extra = body.captured_inputs
    inputs = [convert_to_tensor(x) for x in inputs]
    if extra:
        op = apply_op("For", [start, limit, delta, inputs + list(extra)], name=name,
                      body=_capture_wrapper(body))
        ret = list(op.outputs)[:-len(extra)]
    else:
        op = apply_op("For", [start, limit, delta, inputs], name=name, body=body)
        ret = list(op.outputs)
    if hostmem:
        op._set_attr("_input_hostmem", [3 + h for h in hostmem])
        op._set_attr("_output_hostmem", list(hostmem))
    return ret


def partitioned_call(args, f, tout=None, executing_eagerly=None, config=None,
                     executor_type=None):
    """Calls function `f` on `args` (captured inputs included) as a (Stateful)PartitionedCall
    op; returns its outputs, or the op when it has none."""
    if tout is None:
        tout = [dtypes.as_dtype(a.type) for a in f.definition.signature.output_arg]
    op_type = "StatefulPartitionedCall" if f.stateful_ops else "PartitionedCall"
    op = apply_op(op_type, [list(args)], name="PartitionedFunctionCall", Tout=list(tout), f=f,
                  config_proto=config or "", executor_type=executor_type or "")
    return _outputs(op)


def remote_call(target, args, Tout, f, name=None):  # noqa: N803 - TF's argument names
    """Calls function `f` on `args` on device `target` (run in this process)."""
    return _outputs(apply_op("RemoteCall", [target, list(args)], name=name, Tout=list(Tout),
                             f=f))
