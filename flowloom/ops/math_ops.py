"""Math ops: elementwise arithmetic, comparisons, logic, casts, matmul, reductions, ranges."""

import builtins

import numpy as np

from flowloom.framework import common_shapes
from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.framework.tensor_util import constant_value
from flowloom.ops import array_ops
from flowloom.runtime import blas_threads


def _incompatible(x, y):
    return errors.InvalidArgumentError(
        None, None, "Incompatible shapes: [%s] vs. [%s]" % (
            ",".join(map(str, np.shape(x))), ",".join(map(str, np.shape(y)))))


def _binary_kernel(fn):
    def kernel(xp, x, y):
        try:
            return fn(xp, x, y)
        except ValueError:
            if np.broadcast_shapes is not None:
                try:
                    np.broadcast_shapes(np.shape(x), np.shape(y))
                except ValueError:
                    raise _incompatible(x, y) from None
            raise
    return kernel


def _int_div(x, y):
    if np.any(y == 0):
        raise errors.InvalidArgumentError(None, None, "Integer division by zero")


def _floordiv(xp, x, y):
    if x.dtype.kind in "iu":
        _int_div(x, y)
    return xp.floor_divide(x, y)


def _floormod(xp, x, y):
    if x.dtype.kind in "iu":
        _int_div(x, y)
    return xp.mod(x, y)


def _truncatediv(xp, x, y):
    if x.dtype.kind in "iu":
        _int_div(x, y)
        q = np.abs(x) // np.abs(y)
        return (q * np.sign(x) * np.sign(y)).astype(x.dtype)
    return xp.trunc(x / y)


def _div(xp, x, y):
    # TF1's Div: C-style truncation for integers, true division for floats.
    if x.dtype.kind in "iu":
        return _truncatediv(xp, x, y)
    return xp.true_divide(x, y).astype(x.dtype, copy=False)


def _pow(xp, x, y):
    if x.dtype.kind in "iu" and np.any(y < 0):
        raise errors.InvalidArgumentError(None, None,
                                          "Integers to negative integer powers are not allowed")
    return xp.power(x, y)


def _same_dtype(fn):
    # numpy promotes float32 * 0-d float32 correctly, but guard against float64 creeping in.
    def k(xp, x, y):
        r = fn(x, y)
        if r.dtype != x.dtype and x.dtype.kind != "b":
            r = r.astype(x.dtype)
        return r
    return k


# One row per binary op: TF type, kernel, output dtype (None = T).
_BINARY = [
    ("AddV2", _same_dtype(np.add), None), ("Add", _same_dtype(np.add), None),
    ("Sub", _same_dtype(np.subtract), None), ("Mul", _same_dtype(np.multiply), None),
    ("RealDiv", _same_dtype(np.true_divide), None), ("Div", _div, None),
    ("FloorDiv", _floordiv, None), ("FloorMod", _floormod, None),
    ("TruncateDiv", _truncatediv, None), ("TruncateMod", lambda xp, x, y: np.fmod(x, y), None),
    ("Maximum", _same_dtype(np.maximum), None), ("Minimum", _same_dtype(np.minimum), None),
    ("Pow", _pow, None), ("SquaredDifference", _same_dtype(lambda x, y: (x - y) * (x - y)), None),
    ("Atan2", _same_dtype(np.arctan2), None), ("DivNoNan", _same_dtype(
        lambda x, y: np.where(y == 0, 0, x / np.where(y == 0, 1, y))), None),
    ("Equal", lambda xp, x, y: xp.equal(x, y), dtypes.bool_),
    ("NotEqual", lambda xp, x, y: xp.not_equal(x, y), dtypes.bool_),
    ("Less", lambda xp, x, y: xp.less(x, y), dtypes.bool_),
    ("LessEqual", lambda xp, x, y: xp.less_equal(x, y), dtypes.bool_),
    ("Greater", lambda xp, x, y: xp.greater(x, y), dtypes.bool_),
    ("GreaterEqual", lambda xp, x, y: xp.greater_equal(x, y), dtypes.bool_),
    ("LogicalAnd", lambda xp, x, y: xp.logical_and(x, y), dtypes.bool_),
    ("LogicalOr", lambda xp, x, y: xp.logical_or(x, y), dtypes.bool_),
]

BINARY_OPS = {}
for _type, _fn, _out in _BINARY:
    _in_t = "bool" if _type in ("LogicalAnd", "LogicalOr") else "T"
    _od = defop(_type, inputs=[f"x: {_in_t}", f"y: {_in_t}"],
                outputs=["z: bool" if _out is dtypes.bool_ else f"z: {_in_t}"],
                attrs={"incompatible_shape_error": True} if _type in ("Equal", "NotEqual")
                else None)
    _od.shape(common_shapes.binary_broadcast)
    _od.kernel(_binary_kernel(_fn))
    BINARY_OPS[_type] = _od


# -- gradients of the binary ops (TF's math_grad, value for value) -----------------------------
def _reduce_args(op, gx, gy):
    from flowloom.ops import broadcast_ops

    return broadcast_ops.reduce_gradient_args(op._inputs[0], op._inputs[1], gx, gy)


def _same_static_shapes(op, grad):
    from flowloom.ops import broadcast_ops

    return broadcast_ops.shapes_fully_equal(op._inputs[0], op._inputs[1], grad)


def _add_grad(op, grad):
    if _same_static_shapes(op, grad):
        return grad, grad
    return _reduce_args(op, grad, grad)


BINARY_OPS["AddV2"].gradient(_add_grad)
BINARY_OPS["Add"].gradient(_add_grad)


@BINARY_OPS["Sub"].gradient
def _(op, grad):
    if _same_static_shapes(op, grad):
        return grad, -grad
    return _reduce_args(op, grad, -grad)


@BINARY_OPS["Mul"].gradient
def _(op, grad):
    x, y = op._inputs
    if _same_static_shapes(op, grad) and grad.dtype.base_dtype in (dtypes.int32,
                                                                    dtypes.float32):
        return apply_op("Mul", (grad, y)).outputs[0], apply_op("Mul", (grad, x)).outputs[0]
    return _reduce_args(op, apply_op("Mul", (grad, y)).outputs[0],
                        apply_op("Mul", (x, grad)).outputs[0])


def _div_grad(divide):
    def grad_fn(op, grad):
        x, y = op._inputs
        gx = divide(grad, y)
        gy = grad * divide(divide(-x, y), y)
        return _reduce_args(op, gx, gy)
    return grad_fn


BINARY_OPS["RealDiv"].gradient(_div_grad(lambda a, b: realdiv(a, b)))
BINARY_OPS["Div"].gradient(_div_grad(lambda a, b: divide(a, b)))
BINARY_OPS["DivNoNan"].gradient(_div_grad(lambda a, b: div_no_nan(a, b)))
for _type in ("FloorDiv", "TruncateDiv"):
    BINARY_OPS[_type].gradient(lambda op, grad: (None, None))


@BINARY_OPS["FloorMod"].gradient
def _(op, grad):
    x, y = op._inputs
    floor_xy = floordiv(x, y)
    return _reduce_args(op, grad, grad * negative(floor_xy))


@BINARY_OPS["Pow"].gradient
def _(op, grad):
    x, y = op._inputs
    gx = grad * y * pow(x, y - 1)
    mask = x > 0  # no sensible real gradient for x <= 0: use 0
    safe_x = array_ops.where(mask, x, array_ops.ones_like(x))
    log_x = array_ops.where(mask, log(safe_x), array_ops.zeros_like(x))
    gy = grad * op._outputs[0] * log_x
    return _reduce_args(op, gx, gy)


def _max_min_grad(selector):
    def grad_fn(op, grad):
        x, y = op._inputs
        zeros = array_ops.zeros_like(grad)
        xmask = selector(x, y)
        gx = array_ops.where(xmask, grad, zeros)
        gy = array_ops.where(xmask, zeros, grad)
        return _reduce_args(op, gx, gy)
    return grad_fn


BINARY_OPS["Maximum"].gradient(_max_min_grad(lambda x, y: greater_equal(x, y)))
BINARY_OPS["Minimum"].gradient(_max_min_grad(lambda x, y: less_equal(x, y)))


@BINARY_OPS["SquaredDifference"].gradient
def _(op, grad):
    x, y = op._inputs
    from flowloom.framework.graph import control_dependencies

    with control_dependencies([grad]):
        two = convert_to_tensor(2.0, dtype=grad.dtype.base_dtype)
        x_grad = multiply(two, grad) * (x - y)
    if _same_static_shapes(op, grad):
        return x_grad, -x_grad
    return _reduce_args(op, x_grad, -x_grad)


@BINARY_OPS["Atan2"].gradient
def _(op, grad):
    y, x = op._inputs
    from flowloom.framework.graph import control_dependencies

    with control_dependencies([grad]):
        grad_inv = grad / (square(x) + square(y))
        return _reduce_args(op, x * grad_inv, -y * grad_inv)


for _type in ("Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
              "LogicalAnd", "LogicalOr", "TruncateMod"):
    BINARY_OPS[_type].no_gradient()


def _erf(x):
    from math import erf

    return np.vectorize(erf, otypes=[x.dtype])(x) if x.size else x.copy()


# One row per unary op: TF type, kernel.
_UNARY = [
    ("Neg", np.negative), ("Abs", np.abs), ("Sign", np.sign), ("Square", np.square),
    ("Sqrt", np.sqrt), ("Rsqrt", lambda x: 1 / np.sqrt(x)), ("Exp", np.exp), ("Expm1", np.expm1),
    ("Log", np.log), ("Log1p", np.log1p), ("Sin", np.sin), ("Cos", np.cos), ("Tan", np.tan),
    ("Asin", np.arcsin), ("Acos", np.arccos), ("Atan", np.arctan), ("Sinh", np.sinh),
    ("Cosh", np.cosh), ("Tanh", np.tanh), ("Sigmoid", lambda x: _sigmoid(x)),
    ("Erf", _erf), ("Floor", np.floor), ("Ceil", np.ceil), ("Round", np.round),
    ("Rint", np.rint), ("Reciprocal", lambda x: 1 / x), ("Inv", lambda x: 1 / x),
    ("IsNan", np.isnan), ("IsInf", np.isinf), ("IsFinite", np.isfinite),
    ("LogicalNot", np.logical_not), ("Softplus", lambda x: np.logaddexp(0, x)),
    ("Softsign", lambda x: x / (1 + np.abs(x))),
]


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-x))).astype(x.dtype, copy=False)


def _unary_kernel(fn, keep_dtype):
    if keep_dtype:
        def kernel(xp, x):
            with np.errstate(all="ignore"):
                r = fn(x)
            return r if r.dtype == x.dtype else r.astype(x.dtype)
        return kernel

    def kernel_bool(xp, x):
        return fn(x)
    return kernel_bool


UNARY_OPS = {}
for _type, _fn in _UNARY:
    _bool_out = _type in ("IsNan", "IsInf", "IsFinite")
    _in = "x: bool" if _type == "LogicalNot" else "x: T"
    _out = "y: bool" if _bool_out or _type == "LogicalNot" else "y: T"
    _od = defop(_type, inputs=[_in], outputs=[_out])
    _od.shape(common_shapes.unchanged)
    _od.kernel(_unary_kernel(_fn, not (_bool_out or _type == "LogicalNot")))
    UNARY_OPS[_type] = _od


# -- the *Grad helper ops: d(unary)/dx from the op's output y and the incoming gradient dy -------
def _grad_helper(type_name, fn, a="y", b="dy", out="z"):
    od = defop(type_name, inputs=[f"{a}: T", f"{b}: T"], outputs=[f"{out}: T"])
    od.shape(common_shapes.unchanged)

    def kernel(xp, y, dy):
        with np.errstate(all="ignore"):
            r = fn(y, dy)
        return r if r.dtype == y.dtype else r.astype(y.dtype)
    od.kernel(kernel)
    return od


TanhGrad = _grad_helper("TanhGrad", lambda y, dy: dy * (1 - y * y))
SigmoidGrad = _grad_helper("SigmoidGrad", lambda y, dy: dy * (y * (1 - y)))
RsqrtGrad = _grad_helper("RsqrtGrad", lambda y, dy: dy * (-0.5 * y * y * y))
SqrtGrad = _grad_helper("SqrtGrad", lambda y, dy: dy * 0.5 / y)
ReciprocalGrad = _grad_helper("ReciprocalGrad", lambda y, dy: -dy * y * y)
SoftplusGrad = _grad_helper("SoftplusGrad", lambda dy, x: dy * _sigmoid(x),
                            a="gradients", b="features", out="backprops")


@TanhGrad.gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies

    a, b = op._inputs
    with control_dependencies([grad]):
        return grad * -2.0 * b * a, apply_op("TanhGrad", (a, grad)).outputs[0]


@SigmoidGrad.gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies

    a, b = op._inputs
    with control_dependencies([grad]):
        gb = grad * b
        return gb - 2.0 * gb * a, apply_op("SigmoidGrad", (a, grad)).outputs[0]


@SqrtGrad.gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies

    a, _ = op._inputs
    y = op._outputs[0]  # y = 0.5 * b / a
    with control_dependencies([grad]):
        ga = grad / a
        return -ga * y, 0.5 * ga


@RsqrtGrad.gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies

    a, b = op._inputs  # y = -0.5 * b * a^3
    with control_dependencies([grad]):
        return -1.5 * grad * b * square(a), apply_op("RsqrtGrad", (a, grad)).outputs[0]


@ReciprocalGrad.gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies

    a, b = op._inputs  # y = -b * a^2
    with control_dependencies([grad]):
        return grad * -2.0 * b * a, apply_op("ReciprocalGrad", (a, grad)).outputs[0]


@SoftplusGrad.gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies

    dy, x = op._inputs  # y = dy * sigmoid(x)
    with control_dependencies([grad]):
        ddy = apply_op("SoftplusGrad", (grad, x)).outputs[0]
        d2x = grad * dy / (exp(-x) + 2.0 + exp(x))
        return ddy, d2x


# -- gradients of the unary ops -----------------------------------------------------------------
def _unary_grad(type_name, use_output=False, gate=True):
    """Registers `fn(x_or_y, grad)` as the gradient of `type_name`, under a control dependency
    on grad (TF's way of keeping the derivative from being computed before it is needed)."""
    def register(fn):
        def grad_fn(op, grad):
            from flowloom.framework.graph import control_dependencies

            v = op._outputs[0] if use_output else op._inputs[0]
            if not gate:
                return fn(v, grad)
            with control_dependencies([grad]):
                return fn(v, grad)
        UNARY_OPS[type_name].gradient(grad_fn)
        return fn
    return register


@_unary_grad("Neg", gate=False)
def _(x, grad):
    return -grad


@_unary_grad("Abs", gate=False)
def _(x, grad):
    return grad * sign(x)


@_unary_grad("Square")
def _(x, grad):
    return multiply(grad, multiply(x, convert_to_tensor(2.0, dtype=x.dtype.base_dtype)))


@_unary_grad("Sqrt", use_output=True, gate=False)
def _(y, grad):
    return apply_op("SqrtGrad", (y, grad)).outputs[0]


@_unary_grad("Rsqrt", use_output=True, gate=False)
def _(y, grad):
    return apply_op("RsqrtGrad", (y, grad)).outputs[0]


@_unary_grad("Reciprocal", use_output=True, gate=False)
def _(y, grad):
    return apply_op("ReciprocalGrad", (y, grad)).outputs[0]


UNARY_OPS["Inv"].gradient(UNARY_OPS["Reciprocal"].grad_fn)


@_unary_grad("Exp", use_output=True)
def _(y, grad):
    return grad * y


@_unary_grad("Expm1")
def _(x, grad):
    return grad * exp(x)


@_unary_grad("Log")
def _(x, grad):
    return grad * reciprocal(x)


@_unary_grad("Log1p")
def _(x, grad):
    return grad * reciprocal(1 + x)


@_unary_grad("Sin")
def _(x, grad):
    return grad * cos(x)


@_unary_grad("Cos")
def _(x, grad):
    return -grad * sin(x)


@_unary_grad("Tan")
def _(x, grad):
    return square(reciprocal(cos(x))) * grad


@_unary_grad("Asin")
def _(x, grad):
    one = convert_to_tensor(1, dtype=grad.dtype.base_dtype)
    return grad * reciprocal(sqrt(subtract(one, square(x))))


@_unary_grad("Acos")
def _(x, grad):
    one = convert_to_tensor(1, dtype=grad.dtype.base_dtype)
    return -(grad * reciprocal(sqrt(subtract(one, square(x)))))


@_unary_grad("Atan")
def _(x, grad):
    one = convert_to_tensor(1, dtype=grad.dtype.base_dtype)
    return grad * reciprocal(add(one, square(x)))


@_unary_grad("Sinh")
def _(x, grad):
    return grad * cosh(x)


@_unary_grad("Cosh")
def _(x, grad):
    return grad * sinh(x)


@_unary_grad("Tanh", use_output=True)
def _(y, grad):
    return apply_op("TanhGrad", (y, grad)).outputs[0]


@_unary_grad("Sigmoid", use_output=True)
def _(y, grad):
    return apply_op("SigmoidGrad", (y, grad)).outputs[0]


@_unary_grad("Erf")
def _(x, grad):
    two_over_root_pi = convert_to_tensor(2 / np.sqrt(np.pi), dtype=grad.dtype.base_dtype)
    return grad * two_over_root_pi * exp(-square(x))


@_unary_grad("Softplus", gate=False)
def _(x, grad):
    return grad * sigmoid(x)


@_unary_grad("Softsign", gate=False)
def _(x, grad):
    return grad / square(1 + abs(x))


@_unary_grad("Sign", gate=False)
def _(x, grad):
    return array_ops.zeros_like(x)


for _type in ("Floor", "Ceil", "Round", "Rint"):
    UNARY_OPS[_type].gradient(lambda op, grad: [None])
for _type in ("IsNan", "IsInf", "IsFinite", "LogicalNot"):
    UNARY_OPS[_type].no_gradient()


def _unary(op_type, default_name):
    def fn(x, name=None):
        return apply_op(op_type, (x,), name=name or default_name).outputs[0]
    fn.__name__ = default_name
    fn.__doc__ = f"Elementwise {op_type} (op type `{op_type}`)."
    return fn


negative = _unary("Neg", "Neg")
abs = _unary("Abs", "Abs")  # noqa: A001
sign = _unary("Sign", "Sign")
square = _unary("Square", "Square")
sqrt = _unary("Sqrt", "Sqrt")
rsqrt = _unary("Rsqrt", "Rsqrt")
exp = _unary("Exp", "Exp")
expm1 = _unary("Expm1", "Expm1")
log = _unary("Log", "Log")
log1p = _unary("Log1p", "Log1p")
sin = _unary("Sin", "Sin")
cos = _unary("Cos", "Cos")
tan = _unary("Tan", "Tan")
asin = _unary("Asin", "Asin")
acos = _unary("Acos", "Acos")
atan = _unary("Atan", "Atan")
sinh = _unary("Sinh", "Sinh")
cosh = _unary("Cosh", "Cosh")
tanh = _unary("Tanh", "Tanh")
sigmoid = _unary("Sigmoid", "Sigmoid")
erf = _unary("Erf", "Erf")
floor = _unary("Floor", "Floor")
ceil = _unary("Ceil", "Ceil")
rint = _unary("Rint", "Rint")
reciprocal = _unary("Reciprocal", "Reciprocal")
is_nan = _unary("IsNan", "IsNan")
is_inf = _unary("IsInf", "IsInf")
is_finite = _unary("IsFinite", "IsFinite")
logical_not = _unary("LogicalNot", "LogicalNot")
softplus = _unary("Softplus", "Softplus")
softsign = _unary("Softsign", "Softsign")


def round(x, name=None):  # noqa: A001
    """Rounds half to even, as TF does."""
    return apply_op("Round", (x,), name=name or "Round").outputs[0]


def _binary(op_type, default_name):
    def fn(x, y, name=None):
        return apply_op(op_type, (x, y), name=name or default_name).outputs[0]
    fn.__name__ = default_name
    fn.__doc__ = f"Elementwise {op_type} with broadcasting (op type `{op_type}`)."
    return fn


add = _binary("AddV2", "Add")
subtract = _binary("Sub", "Sub")
multiply = _binary("Mul", "Mul")
maximum = _binary("Maximum", "Maximum")
minimum = _binary("Minimum", "Minimum")
pow = _binary("Pow", "Pow")  # noqa: A001
squared_difference = _binary("SquaredDifference", "SquaredDifference")
floormod = mod = _binary("FloorMod", "FloorMod")
truncatediv = _binary("TruncateDiv", "TruncateDiv")
truncatemod = _binary("TruncateMod", "TruncateMod")
realdiv = _binary("RealDiv", "RealDiv")
atan2 = _binary("Atan2", "Atan2")
div_no_nan = _binary("DivNoNan", "div_no_nan")
equal = _binary("Equal", "Equal")
not_equal = _binary("NotEqual", "NotEqual")
less = _binary("Less", "Less")
less_equal = _binary("LessEqual", "LessEqual")
greater = _binary("Greater", "Greater")
greater_equal = _binary("GreaterEqual", "GreaterEqual")
logical_and = _binary("LogicalAnd", "LogicalAnd")
logical_or = _binary("LogicalOr", "LogicalOr")
sub = subtract
mul = multiply
neg = negative


def logical_xor(x, y, name="LogicalXor"):
    with name_scope(name, "LogicalXor", [x, y]) as scope:
        return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=scope)


def floordiv(x, y, name=None):
    with name_scope(name, "floordiv", [x, y]) as scope:
        return apply_op("FloorDiv", (x, y), name=scope).outputs[0]


def _truediv_dtype(dt):
    return {dtypes.int8: dtypes.float32, dtypes.uint8: dtypes.float32,
            dtypes.int16: dtypes.float32, dtypes.uint16: dtypes.float32,
            dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64}.get(dt)


def truediv(x, y, name=None):
    """x / y with Python 3 semantics: integers are cast to floats first."""
    with name_scope(name, "truediv", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        if x.dtype.base_dtype != y.dtype.base_dtype:
            raise TypeError(f"x and y must have the same dtype, got {x.dtype!r} != {y.dtype!r}")
        target = _truediv_dtype(x.dtype.base_dtype)
        if target is not None:
            x = cast(x, target)
            y = cast(y, target)
        return apply_op("RealDiv", (x, y), name=scope).outputs[0]


def divide(x, y, name=None):
    if name is not None:
        return truediv(x, y, name=name)
    return truediv(x, y)


def div(x, y, name=None):
    """TF1's `tf.div`: Python 2 semantics (floor division for integers)."""
    with name_scope(name, "div", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        if x.dtype.is_integer:
            return apply_op("FloorDiv", (x, y), name=scope).outputs[0]
        return apply_op("RealDiv", (x, y), name=scope).outputs[0]


# -- Cast -----------------------------------------------------------------------------------
Cast = defop("Cast", inputs=["x: SrcT"], outputs=["y: DstT"], attrs={"Truncate": False})
Cast.shape(common_shapes.unchanged)


@Cast.kernel
def _(xp, x, *, DstT):
    npt = DstT.as_numpy_dtype
    if x.dtype.kind == "f" and np.dtype(npt).kind in "iu":
        with np.errstate(invalid="ignore"):
            return np.trunc(x).astype(npt)
    return x.astype(npt)


_FLOAT_AND_COMPLEX = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.bfloat16,
                      dtypes.complex64, dtypes.complex128)


@Cast.gradient
def _(op, grad):
    src = op._inputs[0].dtype.base_dtype
    if src in _FLOAT_AND_COMPLEX and grad.dtype.base_dtype in _FLOAT_AND_COMPLEX:
        return cast(grad, src)
    return None


def cast(x, dtype, name=None):
    """Casts `x` to `dtype` (returns `x` itself when it already has that type)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if hasattr(x, "dense_shape") and hasattr(x, "indices"):
        raise NotImplementedError("tf.cast of SparseTensor/IndexedSlices is not implemented")
    # As TF: a Python value becomes `Cast/x`, even when no Cast op follows.
    with name_scope(name, "Cast", [x]) as scope:
        x = convert_to_tensor(x, name="x") if not isinstance(x, Tensor) else x
        if x.dtype.base_dtype == dtype:
            return x
        return apply_op("Cast", (x,), name=scope, SrcT=x.dtype.base_dtype, DstT=dtype).outputs[0]


def to_float(x, name="ToFloat"):
    return cast(x, dtypes.float32, name=name)


def to_int32(x, name="ToInt32"):
    return cast(x, dtypes.int32, name=name)


def to_int64(x, name="ToInt64"):
    return cast(x, dtypes.int64, name=name)


def saturate_cast(value, dtype, name=None):
    return cast(value, dtype, name=name)


# -- MatMul ------------------------------------------------------------------------------------
MatMul = defop("MatMul", inputs=["a: T", "b: T"], outputs=["product: T"],
               attrs={"transpose_a": False, "transpose_b": False, "grad_a": False,
                      "grad_b": False})


@MatMul.shape
def _(op):
    a, b = (t._shape for t in op._inputs)
    if a.ndims is not None and a.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {a.ndims}")
    if b.ndims is not None and b.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {b.ndims}")
    ad = a.as_list() if a.ndims is not None else [None, None]
    bd = b.as_list() if b.ndims is not None else [None, None]
    if op._attrs["transpose_a"]:
        ad = ad[::-1]
    if op._attrs["transpose_b"]:
        bd = bd[::-1]
    if ad[1] is not None and bd[0] is not None and ad[1] != bd[0]:
        raise ValueError(f"Dimensions must be equal, but are {ad[1]} and {bd[0]}")
    return TensorShape([ad[0], bd[1]])


@MatMul.kernel
def matmul_kernel(xp, a, b, *, transpose_a, transpose_b):
    if transpose_a:
        a = a.T
    if transpose_b:
        b = b.T
    if a.shape[1] != b.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, f"Matrix size-incompatible: In[0]: [{a.shape[0]},{a.shape[1]}], "
            f"In[1]: [{b.shape[0]},{b.shape[1]}]")
    return blas_threads.matmul(xp, a, b)


@MatMul.gradient
def _(op, grad):
    a, b = op._inputs
    t_a, t_b = op._attrs["transpose_a"], op._attrs["transpose_b"]

    def mm(x, y, ta=False, tb=False):
        return apply_op("MatMul", (x, y), transpose_a=ta, transpose_b=tb).outputs[0]
    if not t_a and not t_b:
        return mm(grad, b, tb=True), mm(a, grad, ta=True)
    if not t_a and t_b:
        return mm(grad, b), mm(grad, a, ta=True)
    if t_a and not t_b:
        return mm(b, grad, tb=True), mm(a, grad)
    return mm(b, grad, ta=True, tb=True), mm(grad, a, ta=True, tb=True)


BatchMatMulV2 = defop("BatchMatMulV2", inputs=["x: T", "y: T"], outputs=["output: T"],
                      attrs={"adj_x": False, "adj_y": False})


@BatchMatMulV2.shape
def _(op):
    a, b = (t._shape for t in op._inputs)
    if a.ndims is None or b.ndims is None:
        return unknown_shape()
    ad, bd = a.as_list(), b.as_list()
    if op._attrs["adj_x"]:
        ad[-2:] = ad[-2:][::-1]
    if op._attrs["adj_y"]:
        bd[-2:] = bd[-2:][::-1]
    if ad[-1] is not None and bd[-2] is not None and ad[-1] != bd[-2]:
        raise ValueError(f"Dimensions must be equal, but are {ad[-1]} and {bd[-2]}")
    batch = common_shapes.broadcast(TensorShape(ad[:-2]), TensorShape(bd[:-2]))
    return batch.concatenate([ad[-2], bd[-1]])


@BatchMatMulV2.kernel
def _(xp, x, y, *, adj_x, adj_y):
    if adj_x:
        x = xp.swapaxes(x, -1, -2).conj()
    if adj_y:
        y = xp.swapaxes(y, -1, -2).conj()
    return xp.matmul(x, y)


@BatchMatMulV2.gradient
def _(op, grad):
    from flowloom.ops import broadcast_ops

    x, y = op._inputs
    adj_x, adj_y = op._attrs["adj_x"], op._attrs["adj_y"]
    if not adj_x:
        if not adj_y:
            gx, gy = matmul(grad, y, adjoint_b=True), matmul(x, grad, adjoint_a=True)
        else:
            gx, gy = matmul(grad, y), matmul(grad, x, adjoint_a=True)
    else:
        if not adj_y:
            gx, gy = matmul(y, grad, adjoint_b=True), matmul(x, grad)
        else:
            gx = matmul(y, grad, adjoint_a=True, adjoint_b=True)
            gy = matmul(grad, x, adjoint_a=True, adjoint_b=True)
    sx, sy = x._shape, y._shape
    may_have_batch = (sx.ndims is None or sx.ndims > 2) or (sy.ndims is None or sy.ndims > 2)
    batch_match = (sx.ndims is not None and sy.ndims is not None and
                   sx[:-2].is_fully_defined() and sy[:-2].is_fully_defined() and
                   sx[:-2] == sy[:-2])
    if not may_have_batch or batch_match:
        return gx, gy
    shape_x, shape_y = array_ops.shape(x), array_ops.shape(y)
    rx, ry = broadcast_ops.broadcast_gradient_args(shape_x[:-2], shape_y[:-2])
    return (array_ops.reshape(reduce_sum(gx, rx), shape_x),
            array_ops.reshape(reduce_sum(gy, ry), shape_y))


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, name=None):
    """Matrix product `a @ b` (batched when the inputs have rank > 2)."""
    with name_scope(name, "MatMul", [a, b]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b", dtype=a.dtype.base_dtype)
        ra, rb = a._shape.ndims, b._shape.ndims
        if (ra is not None and ra > 2) or (rb is not None and rb > 2):
            return apply_op("BatchMatMulV2", (a, b), name=scope,
                            adj_x=transpose_a or adjoint_a,
                            adj_y=transpose_b or adjoint_b).outputs[0]
        return apply_op("MatMul", (a, b), name=scope, transpose_a=transpose_a or adjoint_a,
                        transpose_b=transpose_b or adjoint_b).outputs[0]


# -- Reductions ---------------------------------------------------------------------------------
def _reduction_shape(op):
    x, axes = op._inputs
    keep = op._attrs["keep_dims"]
    av = constant_value(axes)
    s = x._shape
    if s.ndims is None:
        return unknown_shape()
    if av is None:
        return unknown_shape(s.ndims if keep else None)
    nd = s.ndims
    dims = s.as_list()
    axes_set = set()
    for a in np.ravel(av):
        a = int(a)
        if a < -nd or a >= nd:
            raise ValueError(f"Invalid reduction dimension {a} for input with {nd} dimensions.")
        axes_set.add(a % nd if nd else a)
    if keep:
        return TensorShape([1 if i in axes_set else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in axes_set])


def _reducer(fn, cast_back=True):
    def kernel(xp, x, axes, *, keep_dims):
        axis = tuple(int(a) for a in np.ravel(axes))
        nd = x.ndim
        for a in axis:
            if a < -nd or a >= nd:
                raise errors.InvalidArgumentError(
                    None, None, f"Invalid reduction dimension ({a} for input with {nd} "
                    "dimension(s)")
        r = fn(x, axis=axis, keepdims=keep_dims)
        r = np.asarray(r)
        if cast_back and r.dtype != x.dtype:
            r = r.astype(x.dtype)
        return r
    return kernel


def _mean(x, axis, keepdims):
    if x.dtype.kind in "iu":
        n = int(np.prod([x.shape[a] for a in axis])) if axis else 1
        s = np.sum(x, axis=axis, keepdims=keepdims)
        return s // n if n else s
    return np.mean(x, axis=axis, keepdims=keepdims)


def _extreme(fn):
    def r(x, axis, keepdims):
        if x.size == 0:
            ident = -np.inf if fn is np.max else np.inf
            if x.dtype.kind in "iu":
                info = np.iinfo(x.dtype)
                ident = info.min if fn is np.max else info.max
            shape = [1 if i in [a % x.ndim for a in axis] else d for i, d in enumerate(x.shape)]
            out = np.full(shape, ident, dtype=x.dtype)
            return out if keepdims else np.squeeze(out, axis=axis)
        return fn(x, axis=axis, keepdims=keepdims)
    return r


_REDUCTIONS = [
    ("Sum", np.sum, "T"), ("Mean", _mean, "T"), ("Prod", np.prod, "T"),
    ("Max", _extreme(np.max), "T"), ("Min", _extreme(np.min), "T"),
    ("Any", np.any, "bool"), ("All", np.all, "bool"),
]
REDUCTION_OPS = {}
for _type, _fn, _t in _REDUCTIONS:
    _od = REDUCTION_OPS[_type] = defop(_type, inputs=[f"input: {_t}", "reduction_indices: Tidx"],
                outputs=[f"output: {_t}"], attrs={"keep_dims": False, "Tidx": dtypes.int32})
    _od.shape(_reduction_shape)
    _od.kernel(_reducer(_fn))
    if _t == "bool":
        _od.no_gradient()


def _sum_grad(op, grad):
    """Gradient of Sum: the incoming gradient broadcast back over the reduced axes."""
    from flowloom.ops import broadcast_ops

    x, axes = op._inputs
    in_shape = x._shape
    axes_value = constant_value(axes)
    if in_shape.ndims is not None and axes_value is not None:
        rank = in_shape.ndims
        dims = in_shape.as_list()
        if np.array_equal(axes_value, np.arange(rank)):  # reduce all: Reshape + Tile
            grad = array_ops.reshape(grad, [1] * rank)
            if None not in dims:
                shape = array_ops.constant(dims, dtype=dtypes.int32)
            else:
                shape = array_ops.shape(x)
            return [broadcast_ops.tile(grad, shape), None]
        if None not in dims:
            # TF caches this per graph; on a miss it builds (dead) Maximum and floordiv ops
            # for the tile multiples and folds them, so the first gradient names them.
            cache = op._graph.__dict__.setdefault("_reduced_shape_cache", {})
            key = (tuple(dims), tuple(int(a) for a in np.reshape(axes_value, -1)))
            if key not in cache:
                kept = broadcast_ops.reduced_shape(np.array(dims, dtype=np.int32), key[1])
                _rfloordiv_operator(maximum(tuple(int(d) for d in kept), 1), tuple(dims))
                cache[key] = ([int(d) for d in kept],
                              [int(d) for d in np.array(dims) // np.maximum(kept, 1)])
            kept, scaling = cache[key]
            grad = array_ops.reshape(grad, kept)
            return [broadcast_ops.tile(grad, scaling), None]
    shape = array_ops.shape(x)
    if not op._attrs["keep_dims"]:
        grad = array_ops.reshape(grad, broadcast_ops.reduced_shape(shape, axes))
    return [broadcast_ops.broadcast_to(grad, shape), None]


REDUCTION_OPS["Sum"].gradient(_sum_grad)


@REDUCTION_OPS["Mean"].gradient
def _(op, grad):
    sum_grad = _sum_grad(op, grad)[0]
    in_shape, out_shape = op._inputs[0]._shape, op._outputs[0]._shape
    if in_shape.is_fully_defined() and out_shape.is_fully_defined():
        factor = int(np.prod(in_shape.as_list())) // builtins.max(
            int(np.prod(out_shape.as_list())), 1)
        factor = array_ops.constant(factor, dtype=sum_grad.dtype.base_dtype)
    else:
        shape = array_ops.shape(op._inputs[0])
        rank = array_ops.size(shape)
        axes = cast(op._inputs[1], rank.dtype.base_dtype)
        axes = (axes + rank) % rank
        factor = reduce_prod(array_ops.gather(shape, axes))
    return truediv(sum_grad, cast(factor, sum_grad.dtype.base_dtype)), None


def _min_or_max_grad(op, grad):
    from flowloom.ops import broadcast_ops

    x, axes = op._inputs
    shape = array_ops.shape(x)
    y = op._outputs[0]
    if not op._attrs["keep_dims"]:
        kept = broadcast_ops.reduced_shape(shape, axes)
        y = array_ops.reshape(y, kept)
        grad = array_ops.reshape(grad, kept)
    else:
        kept = array_ops.shape(y)
    # Ties share the gradient equally, as in TF.
    indicators = cast(equal(y, x), grad.dtype.base_dtype)
    num_selected = array_ops.reshape(reduce_sum(indicators, axes), kept)
    return [divide(indicators, num_selected) * grad, None]


REDUCTION_OPS["Max"].gradient(_min_or_max_grad)
REDUCTION_OPS["Min"].gradient(_min_or_max_grad)


@REDUCTION_OPS["Prod"].gradient
def _(op, grad):
    """Product of all other entries as exclusive cumprods from both ends (safe with zeros)."""
    from flowloom.framework.graph import device
    from flowloom.ops import broadcast_ops, scan_ops

    x, axes = op._inputs
    input_shape = array_ops.shape(x)
    reduction_indices = array_ops.reshape(axes, [-1])
    if not op._attrs["keep_dims"]:
        grad = array_ops.reshape(grad, broadcast_ops.reduced_shape(input_shape, axes))
    grad = broadcast_ops.broadcast_to(grad, input_shape)
    # Pack the reduced axes into one (first) dimension and the others into a second.
    with device("/cpu:0"):
        rank = array_ops.rank(x)
        reduction_indices = cast(reduction_indices, rank.dtype.base_dtype)
        reduced = (reduction_indices + rank) % rank
        idx = range_(0, rank)
        other, _ = array_ops.setdiff1d(idx, reduced, reduced.dtype.base_dtype)
        perm = array_ops.concat([reduced, other], 0)
        reduced_num = reduce_prod(array_ops.gather(input_shape, reduced))
        other_num = reduce_prod(array_ops.gather(input_shape, other))
    permuted = array_ops.transpose(x, perm)
    permuted_shape = array_ops.shape(permuted)
    reshaped = array_ops.reshape(permuted, (reduced_num, other_num))
    left = scan_ops.cumprod(reshaped, axis=0, exclusive=True)
    right = scan_ops.cumprod(reshaped, axis=0, exclusive=True, reverse=True)
    y = array_ops.reshape(left * right, permuted_shape)
    out = grad * array_ops.transpose(y, array_ops.invert_permutation(perm))
    return array_ops.reshape(out, input_shape), None


def _reduction_dims(x, axis):
    if axis is not None:
        return axis
    r = x._shape.ndims
    if r is not None:
        return constant(np.arange(r, dtype=np.int32), name="Const")
    return range_(0, array_ops.rank(x), 1)


def constant(value, dtype=None, name="Const"):
    return array_ops.constant(value, dtype=dtype, name=name)


def _reduce(op_type, default_name):
    def fn(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
           keep_dims=None):
        if axis is not None and reduction_indices is not None:
            raise ValueError("Cannot specify both 'axis' and 'reduction_indices'.")
        axis = axis if axis is not None else reduction_indices
        keep = bool(keepdims if keepdims is not None else (keep_dims or False))
        # As TF: no name scope, so the all-axes Const is a sibling ("Const"), not "Sum/Const".
        x = convert_to_tensor(input_tensor)
        out = apply_op(op_type, (x, _reduction_dims(x, axis)), name=name or default_name,
                       keep_dims=keep).outputs[0]
        if axis is None and not keep:
            out.set_shape([])  # reducing everything gives a scalar, whatever the rank
        return out
    fn.__name__ = f"reduce_{default_name.lower()}"
    fn.__doc__ = f"Reduces `input_tensor` along `axis` with {op_type} (all axes when None)."
    return fn


reduce_sum = _reduce("Sum", "Sum")
reduce_mean = _reduce("Mean", "Mean")
reduce_prod = _reduce("Prod", "Prod")
reduce_max = _reduce("Max", "Max")
reduce_min = _reduce("Min", "Min")
reduce_any = _reduce("Any", "Any")
reduce_all = _reduce("All", "All")


def count_nonzero(input_tensor, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None):
    with name_scope(name, "count_nonzero", [input_tensor]):
        x = convert_to_tensor(input_tensor)
        zero = array_ops.zeros([], dtype=x.dtype)
        return cast(reduce_sum(cast(not_equal(x, zero), dtypes.int64), axis=axis,
                               keepdims=keepdims, reduction_indices=reduction_indices,
                               keep_dims=keep_dims), dtype)


# -- AddN, Range ------------------------------------------------------------------------------
AddN = defop("AddN", inputs=["inputs: N * T"], outputs=["sum: T"])


@AddN.shape
def _(op):
    s = unknown_shape()
    for t in op._inputs:
        s = s.merge_with(t._shape)
    return s


@AddN.kernel
def _(xp, *inputs):
    out = inputs[0].copy() if len(inputs) > 1 else inputs[0]
    for x in inputs[1:]:
        out += x
    return out


@AddN.gradient
def _(op, grad):
    return [grad] * len(op._inputs)


def add_n(inputs, name=None):
    """Adds all input tensors elementwise."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor/IndexedSlices with the "
                         "same dtype and shape")
    if len(inputs) == 1:
        if name:
            return array_ops.identity(inputs[0], name=name)
        return convert_to_tensor(inputs[0])
    return apply_op("AddN", (list(inputs),), name=name).outputs[0]


Range = defop("Range", inputs=["start: Tidx", "limit: Tidx", "delta: Tidx"],
              outputs=["output: Tidx"])


@Range.shape
def _(op):
    vals = [constant_value(t) for t in op._inputs]
    if any(v is None for v in vals):
        return unknown_shape(1)
    start, limit, delta = (v.item() for v in vals)
    if delta == 0:
        raise ValueError("Requires delta != 0")
    n = int(np.ceil((limit - start) / delta))
    return TensorShape([builtins.max(n, 0)])


@Range.kernel
def _(xp, start, limit, delta):
    if delta == 0:
        raise errors.InvalidArgumentError(None, None, "Requires delta != 0: 0")
    return xp.arange(start, limit, delta, dtype=start.dtype)


Range.no_gradient()


def range_(start, limit=None, delta=1, dtype=None, name="range"):
    """A sequence of numbers from `start` (inclusive) to `limit` (exclusive)."""
    if limit is None:
        start, limit = 0, start
    with name_scope(name, "Range", [start, limit, delta]) as scope:
        vals = [convert_to_tensor(v, dtype=dtype, name=n) if isinstance(v, Tensor) or dtype
                else None for v, n in ((start, "start"), (limit, "limit"), (delta, "delta"))]
        if dtype is None:
            order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
            found = []
            for v, raw in zip(vals, (start, limit, delta)):
                found.append(v.dtype.base_dtype if v is not None else
                             array_ops.infer_dtype(raw))
            dtype = builtins.max(found, key=lambda d: order.index(d) if d in order else 0)
        ts = [v if v is not None and v.dtype.base_dtype == dtype else
              (cast(v, dtype) if v is not None else convert_to_tensor(raw, dtype=dtype, name=n))
              for v, raw, n in zip(vals, (start, limit, delta), ("start", "limit", "delta"))]
        return apply_op("Range", tuple(ts), name=scope).outputs[0]


# -- Python operators on Tensors ------------------------------------------------------------------
def _binary_operator(op_type, default_name, py_name):
    def binary_op_wrapper(x, y):
        with name_scope(None, default_name, [x, y]) as scope:
            if not isinstance(y, Tensor):
                try:
                    y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
                except TypeError:
                    if hasattr(y, "__r%s__" % py_name):
                        return NotImplemented
                    raise
            return apply_op(op_type, (x, y), name=scope).outputs[0]

    def r_binary_op_wrapper(y, x):
        with name_scope(None, default_name, [x, y]) as scope:
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return apply_op(op_type, (x, y), name=scope).outputs[0]

    return binary_op_wrapper, r_binary_op_wrapper


def _operator(fn, default_name):
    """`x <op> y` and `y <op> x` for a wrapper `fn(x, y, name)`, named as TF names them."""
    def forward(x, y):
        with name_scope(None, default_name, [x, y]) as scope:
            if not isinstance(y, Tensor):
                y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
            return fn(x, y, name=scope)

    def reverse(y, x):
        with name_scope(None, default_name, [x, y]) as scope:
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return fn(x, y, name=scope)
    return forward, reverse


_truediv_operator, _rtruediv_operator = _operator(truediv, "truediv")
_floordiv_operator, _rfloordiv_operator = _operator(floordiv, "floordiv")
_matmul_operator, _rmatmul_operator = _operator(matmul, "matmul")


def _register_operators():
    for py, op_type, default in [("add", "AddV2", "add"), ("sub", "Sub", "sub"),
                                 ("mul", "Mul", "mul"), ("mod", "FloorMod", "mod"),
                                 ("pow", "Pow", "pow")]:
        fwd, rev = _binary_operator(op_type, default, py)
        Tensor._override_operator(f"__{py}__", fwd)
        Tensor._override_operator(f"__r{py}__", rev)
    for py, op_type, default in [("lt", "Less", "Less"), ("le", "LessEqual", "LessEqual"),
                                 ("gt", "Greater", "Greater"),
                                 ("ge", "GreaterEqual", "GreaterEqual")]:
        fwd, _ = _binary_operator(op_type, default, py)

        def cmp(x, y, _op_type=op_type, _default=default):
            with name_scope(None, _default, [x, y]) as scope:
                y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
                return apply_op(_op_type, (x, y), name=scope).outputs[0]
        Tensor._override_operator(f"__{py}__", cmp)
    for py, op_type, default in [("and", "LogicalAnd", "and"), ("or", "LogicalOr", "or")]:
        fwd, rev = _binary_operator(op_type, default, py)
        Tensor._override_operator(f"__{py}__", fwd)
        Tensor._override_operator(f"__r{py}__", rev)
    Tensor._override_operator("__xor__", lambda x, y: logical_xor(x, y, name="xor"))
    Tensor._override_operator("__truediv__", _truediv_operator)
    Tensor._override_operator("__rtruediv__", _rtruediv_operator)
    Tensor._override_operator("__div__", _truediv_operator)
    Tensor._override_operator("__floordiv__", _floordiv_operator)
    Tensor._override_operator("__rfloordiv__", _rfloordiv_operator)
    Tensor._override_operator("__matmul__", _matmul_operator)
    Tensor._override_operator("__rmatmul__", _rmatmul_operator)
    Tensor._override_operator("__neg__", lambda x: negative(x, name="Neg"))
    Tensor._override_operator("__abs__", lambda x: abs(x, name="Abs"))
    Tensor._override_operator("__invert__", lambda x: logical_not(x, name="LogicalNot"))


_register_operators()


# ================================================================================================
# Training ops (branch `ops`): arg reductions, cumulative sums, top-k, segment reductions.
# Their gradients stand next to them; `math_grad_helpers` style code lives with the ops.
# ================================================================================================
def _axis_value(op, index=1):
    v = constant_value(op._inputs[index])
    return None if v is None else int(np.ravel(v)[0])


def _arg_reduce_shape(op):
    s = op._inputs[0]._shape
    axis = _axis_value(op)
    if s.ndims is None:
        return unknown_shape()
    if axis is None:
        return unknown_shape(builtins.max(s.ndims - 1, 0))
    nd = s.ndims
    if axis < -nd or axis >= nd:
        raise ValueError(f"Expected dimension in the range [{-nd}, {nd}), but got {axis}")
    dims = s.as_list()
    del dims[axis % nd]
    return TensorShape(dims)


def _arg_reduce_kernel(fn):
    def kernel(xp, x, dimension, *, output_type):
        axis = int(np.ravel(dimension)[0])
        nd = x.ndim
        if axis < -nd or axis >= nd:
            raise errors.InvalidArgumentError(
                None, None, f"Expected dimension in the range [{-nd}, {nd}), but got {axis}")
        if x.shape[axis] == 0:
            raise errors.InvalidArgumentError(
                None, None, f"Reduction axis {axis} is empty in shape "
                f"[{','.join(map(str, x.shape))}]")
        return fn(x, axis=axis).astype(output_type.as_numpy_dtype)
    return kernel


for _type, _fn in (("ArgMax", np.argmax), ("ArgMin", np.argmin)):
    _od = defop(_type, inputs=["input: T", "dimension: Tidx"], outputs=["output: output_type"],
                attrs={"Tidx": dtypes.int32, "output_type": dtypes.int64})
    _od.shape(_arg_reduce_shape)
    _od.kernel(_arg_reduce_kernel(_fn))
    _od.no_gradient()


def _arg_reduce(op_type):
    def fn(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
        if axis is not None and dimension is not None:
            raise ValueError("Cannot specify both 'axis' and 'dimension'")
        axis = dimension if axis is None else axis
        return apply_op(op_type, (input, 0 if axis is None else axis), name=name,
                        output_type=dtypes.as_dtype(output_type)).outputs[0]
    fn.__name__ = op_type.lower()
    fn.__doc__ = (f"The index of the {op_type[3:].lower()}imum along `axis` (op `{op_type}`).\n\n"
                  "    Args:\n      input: a numeric tensor.\n      axis: the axis (default 0).\n"
                  "      output_type: int32 or int64.\n\n    Returns:\n      A tensor of "
                  "`output_type` with `axis` removed.\n")
    return fn


argmax = arg_max = _arg_reduce("ArgMax")
argmin = arg_min = _arg_reduce("ArgMin")


TopKV2 = defop("TopKV2", inputs=["input: T", "k: Tk"],
               outputs=["values: T", "indices: index_type"],
               attrs={"sorted": True, "Tk": dtypes.int32, "index_type": dtypes.int32})


@TopKV2.shape
def _(op):
    s = op._inputs[0]._shape
    kv = constant_value(op._inputs[1])
    if s.ndims is None:
        return [unknown_shape(), unknown_shape()]
    if s.ndims < 1:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    dims = s.as_list()
    if kv is not None:
        k = int(kv)
        if k < 0:
            raise ValueError(f"Input 'k' must be >= 0, but is {k}")
        if dims[-1] is not None and dims[-1] < k:
            raise ValueError(f"input must have last dimension >= k = {k} but is {dims[-1]}")
    out = TensorShape(dims[:-1] + [None if kv is None else int(kv)])
    return [out, out]


@TopKV2.kernel
def _(xp, x, k, *, sorted, index_type):  # noqa: A002 - TF's attr name
    k = int(k)
    if k < 0:
        raise errors.InvalidArgumentError(None, None, f"Need k >= 0, got {k}")
    if x.shape[-1] < k:
        raise errors.InvalidArgumentError(
            None, None, f"input must have at least k columns. Had {x.shape[-1]}, needed {k}")
    # Stable sort of the negated values: among equal values the lower index comes first.
    key = -x.astype(np.float64) if x.dtype.kind in "iub" else -x
    idx = xp.argsort(key, axis=-1, kind="stable")[..., :k].astype(index_type.as_numpy_dtype)
    return xp.take_along_axis(x, idx, axis=-1), idx


@TopKV2.gradient
def _(op, grad, _indices_grad):
    x = op._inputs[0]
    if grad is None:
        return [None, None]
    in_shape = array_ops.shape(x)
    last = array_ops.reshape(array_ops.slice(in_shape, array_ops.reshape(
        array_ops.rank(x) - 1, [1]), [1]), [])
    indices = op._outputs[1]
    k = array_ops.reshape(array_ops.slice(array_ops.shape(indices), array_ops.reshape(
        array_ops.rank(indices) - 1, [1]), [1]), [])
    ind_2d = array_ops.reshape(indices, array_ops.stack([-1, k]))
    outer = array_ops.slice(array_ops.shape(ind_2d), [0], [1])
    offsets = array_ops.expand_dims(range_(0, array_ops.reshape(outer, []) * last, last), -1)
    flat = array_ops.reshape(ind_2d + offsets, [-1, 1])
    total = reduce_prod(in_shape, keepdims=True)
    dx = array_ops.scatter_nd(flat, array_ops.reshape(grad, [-1]), total)
    return [array_ops.reshape(dx, in_shape), None]


def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):  # noqa: A002
    """The `k` largest entries of the last dimension and their indices.

    Args:
      input: a tensor with at least one dimension.
      k: how many entries to keep.
      sorted: ignored beyond TF's meaning: results are always in descending order.

    Returns:
      (values, indices), each shaped `input.shape[:-1] + [k]`.
    """
    op = apply_op("TopKV2", (input, k), name=name, sorted=sorted,
                  index_type=dtypes.as_dtype(index_type))
    return tuple(op.outputs)


# -- Segment reductions -------------------------------------------------------------------------
def _segment_shape(op):
    data, ids = op._inputs[0]._shape, op._inputs[1]._shape
    if ids.ndims is not None and ids.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {ids.ndims}")
    if data.ndims is None:
        return unknown_shape()
    if data.ndims < 1:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    return TensorShape([None] + data.as_list()[1:])


def _check_sorted_ids(ids, n):
    if ids.shape[0] != n:
        raise errors.InvalidArgumentError(
            None, None, "segment_ids should be the same size as dimension 0 of input.")
    if ids.size and ids[0] < 0:
        raise errors.InvalidArgumentError(None, None, "segment ids must be >= 0")
    if ids.size > 1 and np.any(np.diff(ids) < 0):
        raise errors.InvalidArgumentError(None, None, "segment ids are not increasing")


def _segment_kernel(mean):
    def kernel(xp, data, segment_ids):
        _check_sorted_ids(segment_ids, data.shape[0])
        num = int(segment_ids[-1]) + 1 if segment_ids.size else 0
        out = xp.zeros((num,) + data.shape[1:], dtype=data.dtype)
        np.add.at(out, segment_ids, data)
        if mean:
            counts = np.bincount(segment_ids, minlength=num).astype(data.dtype)
            counts = counts.reshape((-1,) + (1,) * (data.ndim - 1))
            out = out / np.where(counts == 0, 1, counts)
            out = out.astype(data.dtype, copy=False)
        return out
    return kernel


SegmentSum = defop("SegmentSum", inputs=["data: T", "segment_ids: Tindices"],
                   outputs=["output: T"])
SegmentSum.shape(_segment_shape)
SegmentSum.kernel(_segment_kernel(False))

SegmentMean = defop("SegmentMean", inputs=["data: T", "segment_ids: Tindices"],
                    outputs=["output: T"])
SegmentMean.shape(_segment_shape)
SegmentMean.kernel(_segment_kernel(True))


@SegmentSum.gradient
def _(op, grad):
    return [array_ops.gather(grad, op._inputs[1]), None]


@SegmentMean.gradient
def _(op, grad):
    data, ids = op._inputs
    ones = array_ops.ones_like(cast(ids, data.dtype.base_dtype))
    counts = segment_sum(ones, ids)
    counts = maximum(counts, array_ops.ones_like(counts))  # empty segments: never gathered
    counts = array_ops.reshape(counts, array_ops.concat(
        [array_ops.shape(counts), array_ops.ones_like(array_ops.shape(data))[1:]], 0))
    return [array_ops.gather(grad / counts, ids), None]


def segment_sum(data, segment_ids, name=None):
    """Sums the rows of `data` that share a (sorted) segment id."""
    return apply_op("SegmentSum", (data, segment_ids), name=name).outputs[0]


def segment_mean(data, segment_ids, name=None):
    """Averages the rows of `data` that share a (sorted) segment id."""
    return apply_op("SegmentMean", (data, segment_ids), name=name).outputs[0]


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum of `x` along `axis` (op `Cumsum`, defined in scan_ops)."""
    from flowloom.ops import scan_ops

    return scan_ops.cumsum(x, axis=axis, exclusive=exclusive, reverse=reverse, name=name)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums `data` per segment id, ids in any order, negative ids dropped (segment_ops)."""
    from flowloom.ops import segment_ops

    return segment_ops.unsorted_segment_sum(data, segment_ids, num_segments, name=name)


# -- Elementwise ops missing above (kernels and shapes; gradients are the grad branch's) ------
def _vectorized(fn):
    """A float kernel from a scalar math function (for functions NumPy lacks)."""
    def kernel(x):
        if not x.size:
            return x.copy()
        return np.vectorize(fn, otypes=[np.float64])(x).astype(x.dtype)
    return kernel


def _digamma(x):
    """ψ(x): recurrence up to x >= 6, then the asymptotic series; reflection for x < 0.5."""
    x = np.asarray(x, np.float64)
    out = np.empty_like(x)
    neg = x < 0.5
    xr = np.where(neg, 1 - x, x)
    acc = np.zeros_like(xr)
    while True:
        small = xr < 6
        if not small.any():
            break
        acc -= np.where(small, 1 / np.where(small, xr, 1), 0)
        xr = np.where(small, xr + 1, xr)
    inv2 = 1 / (xr * xr)
    series = np.log(xr) - 0.5 / xr - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (
        1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    out = acc + series
    with np.errstate(divide="ignore", invalid="ignore"):
        reflected = out - np.pi / np.tan(np.pi * x)
        out = np.where(neg, reflected, out)
        out = np.where((x <= 0) & (x == np.floor(x)), np.nan, out)
    return out


def _xlogy(xp, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, 0, x * np.log(y)).astype(x.dtype)


def _xlog1py(xp, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, 0, x * np.log1p(y)).astype(x.dtype)


def _xdivy(xp, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, 0, x / y).astype(x.dtype)


def _mul_no_nan(xp, x, y):
    with np.errstate(invalid="ignore"):
        return np.where(y == 0, 0, x * y).astype(x.dtype)


def _shift_kernel(fn):
    def kernel(xp, x, y):
        bits = x.dtype.itemsize * 8
        # TF: shifts outside [0, bits) are implementation-defined; clamp as its CPU kernel.
        return fn(x, np.clip(y, 0, bits - 1).astype(x.dtype)).astype(x.dtype)
    return kernel


import math as _math  # noqa: E402

for _type, _fn in (("Acosh", np.arccosh), ("Asinh", np.arcsinh), ("Atanh", np.arctanh),
                   ("Erfc", _vectorized(_math.erfc)), ("Lgamma", _vectorized(_math.lgamma)),
                   ("Digamma", _digamma)):
    _od = defop(_type, inputs=["x: T"], outputs=["y: T"])
    _od.shape(common_shapes.unchanged)
    _od.kernel(_unary_kernel(_fn, True))
    UNARY_OPS[_type] = _od

for _type, _fn in (("Xlogy", _xlogy), ("Xlog1py", _xlog1py), ("Xdivy", _xdivy),
                   ("MulNoNan", _mul_no_nan), ("BitwiseAnd", lambda xp, x, y: x & y),
                   ("BitwiseOr", lambda xp, x, y: x | y), ("BitwiseXor", lambda xp, x, y: x ^ y),
                   ("LeftShift", _shift_kernel(np.left_shift)),
                   ("RightShift", _shift_kernel(np.right_shift))):
    _od = defop(_type, inputs=["x: T", "y: T"], outputs=["z: T"])
    _od.shape(common_shapes.binary_broadcast)
    _od.kernel(_binary_kernel(_fn))
    BINARY_OPS[_type] = _od

Invert = defop("Invert", inputs=["x: T"], outputs=["y: T"])
Invert.shape(common_shapes.unchanged)
Invert.kernel(lambda xp, x: np.invert(x))

acosh = _unary("Acosh", "Acosh")
asinh = _unary("Asinh", "Asinh")
atanh = _unary("Atanh", "Atanh")
erfc = _unary("Erfc", "Erfc")
lgamma = _unary("Lgamma", "Lgamma")
digamma = _unary("Digamma", "Digamma")
invert = _unary("Invert", "Invert")


def _scoped_binary(op_type, scope_name, op_is_scope):
    """A binary wrapper inside name scope `scope_name`; the op takes the scope's name when
    `op_is_scope` (TF's multiply_no_nan), else its type's (TF's xdivy/Xdivy)."""
    def fn(x, y, name=None):
        with name_scope(name, scope_name, [x, y]) as scope:
            x = convert_to_tensor(x, name="x")
            y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
            return apply_op(op_type, (x, y), name=scope if op_is_scope else None).outputs[0]
    fn.__name__ = scope_name
    fn.__doc__ = f"Elementwise {op_type} with broadcasting (op type `{op_type}`)."
    return fn


xlogy = _binary("Xlogy", "Xlogy")
xlog1py = _scoped_binary("Xlog1py", "xlog1py", False)
xdivy = _scoped_binary("Xdivy", "xdivy", False)
multiply_no_nan = mul_no_nan = _scoped_binary("MulNoNan", "multiply_no_nan", True)
bitwise_and = _binary("BitwiseAnd", "BitwiseAnd")
bitwise_or = _binary("BitwiseOr", "BitwiseOr")
bitwise_xor = _binary("BitwiseXor", "BitwiseXor")
left_shift = _binary("LeftShift", "LeftShift")
right_shift = _binary("RightShift", "RightShift")
