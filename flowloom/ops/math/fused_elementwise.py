"""`_FusedElementwise`: a chain of elementwise ops run as one kernel that writes in place.

The `remapping` rewrite (runtime/rewrite_fuse.py) puts it in a plan for a chain such as
`tanh(x * w + b)` whose intermediate values nothing else reads. `fused_ops` lists the ops'
types in order; `chain_at[k]` says which input of op k is the previous op's value (-1 for
the first op, which reads its inputs from `args`); each binary op after the first takes its
other operand from the next of `args`. The first op makes a new array and every later op
writes into it (NumPy's `out=`), so the chain makes one array instead of one per op; the
values are those of the separate ops: the same NumPy functions in the same order.
"""

import numpy as np

from flowloom.framework import errors
from flowloom.framework.op_def import defop, get


def _relu(x, out=None):
    return np.maximum(x, 0, out=out)


def _sigmoid(x, out=None):
    # The Sigmoid kernel's `1 / (1 + exp(-x))`, step by step.
    y = np.negative(x, out=out)
    np.exp(y, out=y)
    np.add(1, y, out=y)
    return np.true_divide(1, y, out=y)


BINARY = {"Add": np.add, "AddV2": np.add, "Sub": np.subtract, "Mul": np.multiply,
          "RealDiv": np.true_divide, "Maximum": np.maximum, "Minimum": np.minimum}
UNARY = {"Neg": np.negative, "Abs": np.abs, "Square": np.square, "Sign": np.sign,
         "Sqrt": np.sqrt, "Exp": np.exp, "Expm1": np.expm1, "Log": np.log, "Log1p": np.log1p,
         "Sin": np.sin, "Cos": np.cos, "Tanh": np.tanh, "Floor": np.floor, "Ceil": np.ceil,
         "Rint": np.rint, "Relu": _relu, "Sigmoid": _sigmoid}
# The ops whose kernels keep integer dtypes as NumPy does (the others compute in floats).
INTEGER_OK = frozenset(["Add", "AddV2", "Sub", "Mul", "Maximum", "Minimum", "Neg", "Abs",
                        "Square", "Sign", "Relu"])

_FusedElementwise = defop("_FusedElementwise", inputs=["args: N * T"], outputs=["y: T"],
                          attrs={"fused_ops": [], "chain_at": []})
_FusedElementwise.shape(lambda op: [op._outputs[0]._shape])


def _names(fused_ops):
    return [f.decode() if isinstance(f, bytes) else f for f in fused_ops]


def _program(fused_ops, chain_at):
    program = []
    for name, at in zip(_names(fused_ops), chain_at):
        fn = BINARY.get(name) or UNARY.get(name)
        if fn is None:
            raise errors.UnimplementedError(
                None, None, f"_FusedElementwise does not implement {name}")
        program.append((name, fn, name in BINARY, int(at)))
    return program


def _fits(other, buf):
    # `other` broadcasts into `buf`'s shape without growing it.
    shape = getattr(other, "shape", None)
    if shape == buf.shape or shape == ():
        return True
    return shape is not None and len(shape) <= buf.ndim and \
        all(d == 1 or d == e for d, e in zip(shape[::-1], buf.shape[::-1]))


def _run(program, args):
    """The chain's value: the first op's new array, every later op written into it."""
    name, fn, binary, _ = program[0]
    k = 2 if binary else 1
    buf = fn(args[0], args[1]) if binary else fn(args[0])
    for name, fn, binary, at in program[1:]:
        in_place = type(buf) is np.ndarray and buf.flags.writeable
        if binary:
            other = args[k]
            k += 1
            a, b = (buf, other) if at == 0 else (other, buf)
            if in_place and _fits(other, buf):
                buf = fn(a, b, out=buf)
            else:  # the other operand broadcasts the value to a new shape: a new array
                buf = fn(a, b)
        else:
            buf = fn(buf, out=buf) if in_place else fn(buf)
    return buf


def _run_each(xp, program, args, members=None):
    """The chain's value with each op through its own kernel (another device's arrays, or
    finding the op that failed). With `members`, an op's failure is raised as the error of
    that graph op, as the interpreter reports it alone."""
    k = 0
    value = None
    for i, (name, _, binary, at) in enumerate(program):
        if value is None:
            ins = list(args[:2] if binary else args[:1])
            k = len(ins)
        elif binary:
            ins = [value, args[k]] if at == 0 else [args[k], value]
            k += 1
        else:
            ins = [value]
        try:
            value = get(name).kernel_fn(xp, *ins)
        except Exception as e:  # noqa: BLE001 - reported as the op's kernel reports it
            if members is None:
                raise
            from flowloom.runtime.op_errors import op_error

            err = op_error(members[i], ins, e)
            err.names_its_op = True
            raise err from None
    return value


def _fail(program, members, args, exc):
    """The error of the chain's op that failed, as the interpreter reports that op alone."""
    try:
        with np.errstate(all="ignore"):
            _run_each(np, program, args, members)
    except errors.OpError as err:
        return err
    return exc


def _bind(xp, op):
    if xp is not np:
        return None
    program = _program(op._attrs["fused_ops"], op._attrs["chain_at"])
    members = list(getattr(op, "replaces", ()))
    if len(members) != len(program):
        return None

    def fused(*args):
        try:
            with np.errstate(all="ignore"):
                return _run(program, args)
        except Exception as e:  # noqa: BLE001 - names the chain's op that failed
            raise _fail(program, members, args, e) from None

    def fused_integers(*args):
        # Integer chains (INTEGER_OK ops) raise no floating-point warnings to silence.
        try:
            return _run(program, args)
        except Exception as e:  # noqa: BLE001 - names the chain's op that failed
            raise _fail(program, members, args, e) from None
    dtype = op._attrs.get("T")
    return fused_integers if getattr(dtype, "is_integer", False) else fused


@_FusedElementwise.kernel
def _kernel(xp, *args, fused_ops, chain_at):
    program = _program(fused_ops, chain_at)
    if xp is np:
        with np.errstate(all="ignore"):
            return _run(program, args)
    return _run_each(xp, program, args)


_kernel.bind = _bind
