"""Less common elementwise ops: inverse hyperbolics, erfc, lgamma/digamma, the xlogy family, bitwise ops."""


import numpy as np

from flowloom.framework import common_shapes, dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.math.math_ops import BINARY_OPS, _binary, _binary_kernel
from flowloom.ops.math.unary_ops import UNARY_OPS, _map_sparse_values, _unary, _unary_kernel
from flowloom.ops.layout import c_order



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


def _bessel_ie(order):
    """exp(-|x|) I_order(x) for order 0 or 1: the power series for |x| <= 30 (positive terms,
    no cancellation), the asymptotic expansion beyond."""
    def fn(x):
        a = np.abs(np.asarray(x, np.float64))
        out = np.empty_like(a)
        small = a <= 30
        if small.any():
            h = a[small] / 2
            term = np.ones_like(h) if order == 0 else h.copy()
            total = term.copy()
            for k in range(1, 80):
                term = term * h * h / (k * (k + order))
                total += term
            out[small] = total * np.exp(-a[small])
        if (~small).any():
            z = a[~small]
            mu, term, total = 4.0 * order * order, np.ones_like(z), np.ones_like(z)
            for k in range(1, 20):
                term = -term * (mu - (2 * k - 1) ** 2) / (k * 8 * z)
                total += term
            out[~small] = total / np.sqrt(2 * np.pi * z)
        if order == 1:
            out = np.where(np.asarray(x) < 0, -out, out)
        return out.astype(np.asarray(x).dtype)
    return fn


import math as _math  # noqa: E402

for _type, _fn in (("Acosh", np.arccosh), ("Asinh", np.arcsinh), ("Atanh", np.arctanh),
                   ("Erfc", _vectorized(_math.erfc)), ("Lgamma", _vectorized(_math.lgamma)),
                   ("Digamma", _digamma), ("BesselI0e", _bessel_ie(0)),
                   ("BesselI1e", _bessel_ie(1))):
    _od = defop(_type, inputs=["x: T"], outputs=["y: T"],
                allowed_types={"T": tuple(dtypes.as_dtype(t) for t in (
                    "bfloat16", "float16", "float32", "float64"))}
                if _type.startswith("Bessel") else None)
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

PopulationCount = defop("PopulationCount", inputs=["x: T"], outputs=["y: uint8"],
                        allowed_types={"T": tuple(dtypes.as_dtype(t) for t in (
                            "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                            "uint64"))})
PopulationCount.shape(common_shapes.unchanged)
PopulationCount.no_gradient()


@PopulationCount.kernel
def _(xp, x):
    bits = np.unpackbits(c_order(np, x).reshape(-1).view(np.uint8))
    per_value = bits.reshape(x.size, x.dtype.itemsize * 8).sum(axis=1, dtype=np.uint8)
    return per_value.reshape(x.shape)


def population_count(x, name=None):
    """The number of bits set in each element of the integer tensor `x` (uint8)."""
    return apply_op("PopulationCount", (x,), name=name).outputs[0]


acosh = _unary("Acosh", "Acosh")
asinh = _unary("Asinh", "Asinh")
atanh = _unary("Atanh", "Atanh")
erfc = _unary("Erfc", "Erfc")
lgamma = _unary("Lgamma", "Lgamma")
digamma = _unary("Digamma", "Digamma")
bessel_i0e = _map_sparse_values(_unary("BesselI0e", "BesselI0e"))
bessel_i1e = _map_sparse_values(_unary("BesselI1e", "BesselI1e"))
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


# -- gradients (TF 1.15's math_grad) ----------------------------------------------------------
def _gated(fn, use_input=True):
    """The gradient `fn(conj(x), grad)` under a control dependency on grad, as TF builds it."""
    def grad_fn(op, grad):
        from flowloom.framework.graph import control_dependencies
        from flowloom.ops.math.unary_ops import conj

        with control_dependencies([grad]):
            return [fn(conj(op._inputs[0] if use_input else op._outputs[0]), grad)]
    return grad_fn


def _math():
    from flowloom.ops.math import math_ops

    return math_ops


UNARY_OPS["Asinh"].gradient(_gated(lambda y, g: g / _math().cosh(y), use_input=False))
UNARY_OPS["Acosh"].gradient(_gated(lambda y, g: g / _math().sinh(y), use_input=False))
UNARY_OPS["Atanh"].gradient(_gated(lambda x, g: g * _math().reciprocal(
    _math().subtract(convert_to_tensor(1, dtype=g.dtype.base_dtype), _math().square(x)))))
UNARY_OPS["Erfc"].gradient(_gated(lambda x, g: g * convert_to_tensor(
    -2 / np.sqrt(np.pi), dtype=g.dtype.base_dtype) * _math().exp(-_math().square(x))))
UNARY_OPS["Lgamma"].gradient(_gated(lambda x, g: g * digamma(x)))


def _reduce_to_inputs(op, gx, gy):
    from flowloom.ops.array import broadcast_ops

    return list(broadcast_ops.reduce_gradient_args(op._inputs[0], op._inputs[1], gx, gy))


def _not_zero(x):
    m = _math()
    return m.cast(m.not_equal(x, m.cast(0.0, x.dtype.base_dtype)), x.dtype.base_dtype)


@BINARY_OPS["Xlogy"].gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies

    x, y = op._inputs
    with control_dependencies([grad]):
        partial_x = apply_op("Xlogy", (_not_zero(x), y)).outputs[0]
        partial_y = apply_op("Xdivy", (x, y)).outputs[0]
        return _reduce_to_inputs(op, partial_x * grad, partial_y * grad)


@BINARY_OPS["Xdivy"].gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies

    x, y = op._inputs
    with control_dependencies([grad]):
        partial_x = apply_op("Xdivy", (_not_zero(x), y)).outputs[0]
        partial_y = apply_op("Xdivy", (_math().negative(x), y ** 2)).outputs[0]
        return _reduce_to_inputs(op, partial_x * grad, partial_y * grad)


@BINARY_OPS["MulNoNan"].gradient
def _(op, grad):
    from flowloom.ops.array import broadcast_ops

    x, y = op._inputs
    gx = apply_op("MulNoNan", (grad, y)).outputs[0]
    gy = apply_op("MulNoNan", (x, grad)).outputs[0]
    if broadcast_ops.shapes_fully_equal(x, y, grad):
        return [gx, gy]
    return _reduce_to_inputs(op, gx, gy)


def _conj_grad(op, grad):
    from flowloom.ops.math.unary_ops import conj

    return [conj(grad)]


def _register_conj_grad():
    from flowloom.ops.math.unary_ops import Conj

    Conj.gradient(_conj_grad)


_register_conj_grad()


def _bessel_i0e_grad(op, grad):
    from flowloom.framework.graph import control_dependencies

    x, y = op._inputs[0], op._outputs[0]
    with control_dependencies([grad]):
        return [grad * (bessel_i1e(x) - _math().sign(x) * y)]


def _bessel_i1e_grad(op, grad):
    from flowloom.framework.graph import control_dependencies
    from flowloom.ops.array import array_ops

    x, y = op._inputs[0], op._outputs[0]
    m = _math()
    with control_dependencies([grad]):
        # the limit at x = 0 is 0.5 (the main formula divides by x)
        eps = float(np.finfo(x.dtype.base_dtype.as_numpy_dtype).eps)
        zeros = array_ops.zeros_like(x)
        x_is_not_tiny = m.abs(x) > eps
        safe_x = array_ops.where(x_is_not_tiny, x, eps + zeros)
        dy_dx = bessel_i0e(safe_x) - y * (m.sign(safe_x) + m.reciprocal(safe_x))
        return [grad * array_ops.where(x_is_not_tiny, dy_dx, 0.5 + zeros)]


UNARY_OPS["BesselI0e"].gradient(_bessel_i0e_grad)
UNARY_OPS["BesselI1e"].gradient(_bessel_i1e_grad)
