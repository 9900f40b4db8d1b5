"""Elementwise unary ops (Neg, Abs, Exp, Log, Tanh, Sigmoid, ...), their *Grad helper ops and gradients."""


import numpy as np

from flowloom.framework import dtypes
from flowloom.framework import common_shapes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.math.math_ops import add, multiply, subtract


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
    _allowed = None
    if _type in ("Softplus", "Softsign"):
        # TF's signature: `features`, float types only (ints are a TypeError at build).
        _in, _out = "features: T", "activations: T"
        _allowed = {"T": (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)}
    _od = defop(_type, inputs=[_in], outputs=[_out], allowed_types=_allowed)
    _od.shape(common_shapes.unchanged)
    _od.kernel(_unary_kernel(_fn, not (_bool_out or _type == "LogicalNot")))
    UNARY_OPS[_type] = _od


# -- the *Grad helper ops: d(unary)/dx from the op's output y and the incoming gradient dy -------
def _c(y):
    """The conjugate of a complex array (TF's *Grad kernels conjugate y); others as they are."""
    return np.conj(y) if y.dtype.kind == "c" else y


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
RsqrtGrad = _grad_helper("RsqrtGrad", lambda y, dy: dy * (-0.5 * _c(y) * _c(y) * _c(y)))
SqrtGrad = _grad_helper("SqrtGrad", lambda y, dy: dy * 0.5 / _c(y))
ReciprocalGrad = _grad_helper("ReciprocalGrad", lambda y, dy: -dy * _c(y * y))
SoftplusGrad = _grad_helper("SoftplusGrad", lambda dy, x: dy * _sigmoid(x),
                            a="gradients", b="features", out="backprops")


@TanhGrad.gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies

    with control_dependencies([grad]):
        a, b = conj(op._inputs[0]), conj(op._inputs[1])
        return grad * -2.0 * b * a, apply_op("TanhGrad", (a, grad)).outputs[0]


@SigmoidGrad.gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies

    with control_dependencies([grad]):
        a, b = conj(op._inputs[0]), conj(op._inputs[1])
        gb = grad * b
        return gb - 2.0 * gb * a, apply_op("SigmoidGrad", (a, grad)).outputs[0]


@SqrtGrad.gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies

    a, _ = op._inputs
    y = op._outputs[0]  # y = 0.5 * b / conj(a)
    with control_dependencies([grad]):
        ga = grad / a
        return -conj(ga) * y, 0.5 * ga


@RsqrtGrad.gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies

    a, b = op._inputs  # y = -0.5 * b * conj(a)^3
    with control_dependencies([grad]):
        ca, cg = conj(a), conj(grad)
        return -1.5 * cg * b * square(ca), apply_op("RsqrtGrad", (ca, grad)).outputs[0]


@ReciprocalGrad.gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies

    a, b = op._inputs  # y = -b * conj(a)^2
    with control_dependencies([grad]):
        ca, cg = conj(a), conj(grad)
        return cg * -2.0 * b * ca, apply_op("ReciprocalGrad", (ca, grad)).outputs[0]


@SoftplusGrad.gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies

    dy, x = op._inputs  # y = dy * sigmoid(x)
    with control_dependencies([grad]):
        ddy = apply_op("SoftplusGrad", (grad, x)).outputs[0]
        d2x = grad * dy / (exp(-x) + 2.0 + exp(x))
        return ddy, d2x


# -- gradients of the unary ops -----------------------------------------------------------------
def _unary_grad(type_name, use_output=False, gate=True, conjugate=True):
    """Registers `fn(x_or_y, grad)` as the gradient of `type_name`, under a control dependency
    on grad (TF's way of keeping the derivative from being computed before it is needed).
    For complex tensors `fn` gets the conjugate of x or y, as TF's gradients take it (unless
    `conjugate` is False: the *Grad kernels conjugate themselves)."""
    def register(fn):
        def grad_fn(op, grad):
            from flowloom.framework.graph import control_dependencies

            v = op._outputs[0] if use_output else op._inputs[0]
            if not gate:
                return fn(conj(v) if conjugate else v, grad)
            with control_dependencies([grad]):
                return fn(conj(v) if conjugate else v, grad)
        UNARY_OPS[type_name].gradient(grad_fn)
        return fn
    return register


@_unary_grad("Neg", gate=False, conjugate=False)
def _(x, grad):
    return -grad


@_unary_grad("Abs", gate=False, conjugate=False)
def _(x, grad):
    return grad * sign(x)


@_unary_grad("Square")
def _(x, grad):
    return multiply(grad, multiply(x, convert_to_tensor(2.0, dtype=x.dtype.base_dtype)))


@_unary_grad("Sqrt", use_output=True, gate=False, conjugate=False)
def _(y, grad):
    return apply_op("SqrtGrad", (y, grad)).outputs[0]


@_unary_grad("Rsqrt", use_output=True, gate=False, conjugate=False)
def _(y, grad):
    return apply_op("RsqrtGrad", (y, grad)).outputs[0]


@_unary_grad("Reciprocal", use_output=True, gate=False, conjugate=False)
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


@_unary_grad("Sign", gate=False, conjugate=False)
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
_abs_real = _unary("Abs", "Abs")


def abs(x, name=None):  # noqa: A001 - TF's name
    """|x| elementwise; of a complex tensor, its magnitude in the parts' dtype (ComplexAbs)."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.base_dtype.is_complex:
        from flowloom.ops.math.complex_ops import complex_abs

        return complex_abs(x, name=name)
    return _abs_real(x, name=name)


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
neg = negative


def round(x, name=None):  # noqa: A001
    """Rounds half to even, as TF does."""
    return apply_op("Round", (x,), name=name or "Round").outputs[0]


# -- Conj: the complex conjugate (what an adjoint does besides transposing) ------------------------
Conj = defop("Conj", inputs=["input: T"], outputs=["output: T"], attrs={"T": dtypes.complex64})
Conj.shape(common_shapes.unchanged)


@Conj.kernel
def _(xp, x):
    return xp.conj(x)


def conj(x, name=None):
    """The complex conjugate of `x`; a real tensor is returned unchanged (as TF's `tf.conj`)."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.base_dtype.is_complex:
        return apply_op("Conj", (x,), name=name or "Conj").outputs[0]
    if not (x.dtype.is_floating or x.dtype.is_integer):
        raise TypeError(f"Expected numeric or variant tensor, got dtype tf.{x.dtype.name}")
    return x


# -- TF's unary ops that map a SparseTensor's values (sparse_ops' _UNARY_OPS dispatch) -------
def _map_sparse_values(fn):
    import functools

    @functools.wraps(fn)
    def wrapper(x, *args, **kwargs):
        from flowloom.framework.sparse_tensor import SparseTensor

        if isinstance(x, SparseTensor):
            return SparseTensor(x.indices, fn(x.values, *args, **kwargs), x.dense_shape)
        return fn(x, *args, **kwargs)
    return wrapper


abs = _map_sparse_values(abs)  # noqa: A001
negative = neg = _map_sparse_values(negative)
sign = _map_sparse_values(sign)
square = _map_sparse_values(square)
sqrt = _map_sparse_values(sqrt)
erf = _map_sparse_values(erf)
tanh = _map_sparse_values(tanh)
