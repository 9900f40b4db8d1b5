"""Math ops: elementwise binary arithmetic, comparisons and logic, casts, AddN, Range, and the
Python operators on Tensors. Unary, reduction, matmul and special ops have files of their own."""

import builtins
import functools

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
from flowloom.ops.array import array_ops


def _incompatible(x, y):
    return errors.InvalidArgumentError(
        None, None, "Incompatible shapes: [%s] vs. [%s]" % (
            ",".join(map(str, np.shape(x))), ",".join(map(str, np.shape(y)))))


def _check_broadcast(x, y):
    try:
        np.broadcast_shapes(np.shape(x), np.shape(y))
    except ValueError:
        raise _incompatible(x, y) from None


def _binary_kernel(fn):
    if getattr(fn, "checks_broadcast", False):
        return fn

    def kernel(xp, x, y):
        try:
            return fn(xp, x, y)
        except ValueError:
            _check_broadcast(x, y)
            raise
    return kernel


def _int_div(x, y):
    # As TF, only divisions actually made can fail: an empty result divides by nothing.
    no_zero = y.all() if type(y) is np.ndarray else np.all(y)
    if not no_zero and 0 not in np.broadcast_shapes(np.shape(x), np.shape(y)):
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
    # One frame per call (the shape check of `_binary_kernel` is inlined): these are the ops
    # a graph runs most, so the executor's per-op cost is mostly theirs.
    def kernel(xp, x, y):
        try:
            r = fn(x, y)
        except ValueError:
            _check_broadcast(x, y)
            raise
        if r.dtype != x.dtype and x.dtype.kind != "b":
            r = r.astype(x.dtype)
        return r
    kernel.checks_broadcast = True
    if isinstance(fn, np.ufunc):
        kernel.bind = functools.partial(_bind_ufunc, fn)
        kernel.explain_error = _explain_broadcast_error
    return kernel


def _bind_ufunc(ufunc, xp, op):
    # On the host, with both inputs of the output's dtype (as graph construction checked),
    # the ufunc alone computes what the kernel does: NumPy keeps a common dtype.
    dtype = op._outputs[0]._dtype
    numeric = dtype.is_floating or dtype.is_integer or dtype.is_complex
    if xp is np and numeric and dtype is not dtypes.bfloat16 and \
            all(t._dtype is dtype for t in op._inputs):
        return ufunc
    return None


def _xp_ufunc(name):
    # A comparison or logical op: the device's ufunc of that name, bound itself on the host.
    def kernel(xp, x, y):
        try:
            return getattr(xp, name)(x, y)
        except ValueError:
            _check_broadcast(x, y)
            raise
    kernel.checks_broadcast = True
    kernel.bind = lambda xp, op: getattr(np, name) if xp is np else None
    kernel.explain_error = _explain_broadcast_error
    return kernel


def _explain_broadcast_error(args, exc):
    # The error a directly bound ufunc raised, as the kernel reports it.
    if isinstance(exc, ValueError) and len(args) == 2:
        try:
            _check_broadcast(*args)
        except errors.InvalidArgumentError as e:
            return e
    return None


def _div_no_nan(x, y):
    if type(x) is np.ndarray and type(y) is np.ndarray and x.shape == y.shape and \
            x.dtype == y.dtype and x.dtype.kind == "f":
        # x / y where y is not 0, else 0: the same quotients without the two selections.
        out = np.zeros(x.shape, x.dtype)
        if x.ndim:
            np.divide(x, y, out=out, where=y != 0)
        elif y != 0:
            np.divide(x, y, out=out)
        return out
    return np.where(y == 0, 0, x / np.where(y == 0, 1, y))


# One row per binary op: TF type, kernel, output dtype (None = T).
def _squared_difference(x, y):
    d = x - y
    return d * d.conj() if d.dtype.kind == "c" else d * d  # complex: |x - y|^2, as TF


_BINARY = [
    ("AddV2", _same_dtype(np.add), None), ("Add", _same_dtype(np.add), None),
    ("Sub", _same_dtype(np.subtract), None), ("Mul", _same_dtype(np.multiply), None),
    ("RealDiv", _same_dtype(np.true_divide), None), ("Div", _div, None),
    ("FloorDiv", _floordiv, None), ("FloorMod", _floormod, None),
    ("TruncateDiv", _truncatediv, None), ("TruncateMod", lambda xp, x, y: np.fmod(x, y), None),
    ("Maximum", _same_dtype(np.maximum), None), ("Minimum", _same_dtype(np.minimum), None),
    ("Pow", _pow, None), ("SquaredDifference", _same_dtype(_squared_difference), None),
    ("Atan2", _same_dtype(np.arctan2), None), ("DivNoNan", _same_dtype(_div_no_nan), None),
    ("Equal", _xp_ufunc("equal"), dtypes.bool_),
    ("NotEqual", _xp_ufunc("not_equal"), dtypes.bool_),
    ("Less", _xp_ufunc("less"), dtypes.bool_),
    ("LessEqual", _xp_ufunc("less_equal"), dtypes.bool_),
    ("Greater", _xp_ufunc("greater"), dtypes.bool_),
    ("GreaterEqual", _xp_ufunc("greater_equal"), dtypes.bool_),
    ("LogicalAnd", _xp_ufunc("logical_and"), dtypes.bool_),
    ("LogicalOr", _xp_ufunc("logical_or"), dtypes.bool_),
]

def _specialize_int_division(ufunc):
    def specialize(op, consts, general):
        # A constant divisor without zeros: no division can fail, so each run divides.
        y = consts[1]
        if y is None or consts[0] is not None or type(y) is not np.ndarray or \
                y.dtype.kind not in "iuf" or (y.dtype.kind in "iu" and not y.all()):
            return None

        def divide_by_constant(x, divisor):
            if type(x) is not np.ndarray or x.dtype != y.dtype:
                return general(x, divisor)
            try:
                return ufunc(x, y)
            except ValueError:  # shapes that do not broadcast: the general kernel's error
                return general(x, divisor)
        return divide_by_constant
    return specialize


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
BINARY_OPS["FloorMod"].kernel_fn.specialize = _specialize_int_division(np.mod)
BINARY_OPS["FloorDiv"].kernel_fn.specialize = _specialize_int_division(np.floor_divide)


# -- gradients of the binary ops (TF's math_grad, value for value) -----------------------------
def _reduce_args(op, gx, gy, grad=None):
    from flowloom.ops.array import broadcast_ops

    return broadcast_ops.reduce_gradient_args(op._inputs[0], op._inputs[1], gx, gy, grad)


def _same_static_shapes(op, grad):
    from flowloom.ops.array import broadcast_ops

    return broadcast_ops.shapes_fully_equal(op._inputs[0], op._inputs[1], grad)


# Add, Sub and Mul pass `grad` (TF's SmartBroadcastGradientArgs) and build each input's
# gradient after the broadcast arguments, in TF's op order.
def _add_grad(op, grad):
    if _same_static_shapes(op, grad):
        return grad, grad
    return _reduce_args(op, grad, grad, grad)


BINARY_OPS["AddV2"].gradient(_add_grad)
BINARY_OPS["Add"].gradient(_add_grad)


@BINARY_OPS["Sub"].gradient
def _(op, grad):
    if _same_static_shapes(op, grad):
        return grad, -grad
    return _reduce_args(op, grad, lambda: -grad, grad)


@BINARY_OPS["Mul"].gradient
def _(op, grad):
    x, y = op._inputs
    if _same_static_shapes(op, grad) and grad.dtype.base_dtype in (dtypes.int32,
                                                                    dtypes.float32):
        return apply_op("Mul", (grad, y)).outputs[0], apply_op("Mul", (grad, x)).outputs[0]
    x, y = _conj(x), _conj(y)
    return _reduce_args(op, lambda: apply_op("Mul", (grad, y)).outputs[0],
                        lambda: apply_op("Mul", (x, grad)).outputs[0], grad)


def _conj(x):
    """TF's complex gradients use the conjugate of the op's inputs (real tensors: as they are)."""
    if not x.dtype.base_dtype.is_complex:
        return x
    from flowloom.ops.math.unary_ops import conj

    return conj(x)


def _div_grad(divide):
    def grad_fn(op, grad):
        x, y = _conj(op._inputs[0]), _conj(op._inputs[1])
        return _reduce_args(op, lambda: divide(grad, y),
                            lambda: grad * divide(divide(-x, y), y))
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
    x, y, z = _conj(op._inputs[0]), _conj(op._inputs[1]), _conj(op._outputs[0])

    def gy():
        # no sensible real gradient for x <= 0: use 0 (complex: only x == 0 is singular)
        mask = not_equal(x, 0) if x.dtype.base_dtype.is_complex else x > 0
        safe_x = array_ops.where(mask, x, array_ops.ones_like(x))
        log_x = array_ops.where(mask, log(safe_x), array_ops.zeros_like(x))
        return grad * z * log_x
    return _reduce_args(op, lambda: grad * y * pow(x, y - 1), gy, grad)


def _max_min_grad(selector):
    def grad_fn(op, grad):
        x, y = op._inputs
        if _tf1_graphs():
            return _tf1_max_min_grad(op, grad, selector)
        zeros = array_ops.zeros_like(grad)
        xmask = selector(x, y)
        gx = array_ops.where(xmask, grad, zeros)
        gy = array_ops.where(xmask, zeros, grad)
        return _reduce_args(op, gx, gy)
    return grad_fn


def _tf1_graphs():
    from flowloom.ops.random.random_ops import seed_rules

    return seed_rules() == "1"


def _tf1_max_min_grad(op, grad, selector):
    """TF 1.15's ops: zeros of shape(grad), the mask, then a BroadcastGradientArgs."""
    from flowloom.ops.array import broadcast_ops

    x, y = op._inputs
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    zeros = array_ops.zeros(array_ops.shape(grad), grad.dtype.base_dtype)
    xmask = selector(x, y)
    rx, ry = broadcast_ops.broadcast_gradient_args(sx, sy)
    gx = array_ops.reshape(reduce_sum(array_ops.where(xmask, grad, zeros), rx), sx)
    gy = array_ops.reshape(reduce_sum(array_ops.where(xmask, zeros, grad), ry), sy)
    return gx, gy


BINARY_OPS["Maximum"].gradient(_max_min_grad(lambda x, y: greater_equal(x, y)))
BINARY_OPS["Minimum"].gradient(_max_min_grad(lambda x, y: less_equal(x, y)))


@BINARY_OPS["SquaredDifference"].gradient
def _(op, grad):
    x, y = op._inputs
    from flowloom.framework.graph import control_dependencies

    tf1 = _tf1_graphs()
    with control_dependencies([grad]):
        two = convert_to_tensor(2.0, dtype=grad.dtype.base_dtype,
                                name="scalar" if tf1 else "Const")
        x_grad = multiply(two, grad) * (x - y)
    if _same_static_shapes(op, grad):
        return x_grad, -x_grad
    if tf1:  # TF 1.15 negates y's gradient after its reduction
        gx, gy = _reduce_args(op, x_grad, x_grad, grad)
        return gx, -gy
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



def _binary(op_type, default_name):
    def fn(x, y, name=None):
        return apply_op(op_type, (x, y), name=name or default_name)._outputs[0]
    fn.__name__ = default_name
    fn.__doc__ = f"Elementwise {op_type} with broadcasting (op type `{op_type}`)."
    return fn


add = _binary("Add", "Add")  # TF 1.15: tf.add is Add, `+` is AddV2
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


def atan2(y, x, name=None):
    """Elementwise arctangent of `y / x` in the quadrant of (x, y), with broadcasting.

    As TF: the first argument is `y` (`tf.atan2(y=1., x=0.)` is pi/2). Op type `Atan2`.
    """
    return apply_op("Atan2", (y, x), name=name or "Atan2").outputs[0]


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
        y = convert_to_tensor(y, preferred_dtype=x.dtype.base_dtype, name="y")
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


# Types TF's CPU Cast kernel does not convert to or from another type.
_NO_CAST = (dtypes.string, dtypes.variant, dtypes.resource)


@Cast.kernel
def _(xp, x, *, SrcT, DstT):
    if SrcT != DstT and (SrcT in _NO_CAST or DstT in _NO_CAST):
        raise errors.UnimplementedError(
            None, None, f"Cast {dtypes.type_string(SrcT)} to {dtypes.type_string(DstT)} is "
            "not supported")
    npt = DstT.as_numpy_dtype
    if x.dtype.kind == "f" and np.dtype(npt).kind in "iu":
        with np.errstate(invalid="ignore"):
            return np.trunc(x).astype(npt)
    return x.astype(npt)


def _bind_cast(xp, op):
    """The Cast of this op's (SrcT, DstT) on NumPy without reading its attrs each run (a
    pipeline casts every example): what the kernel computes for an array."""
    src, dst = op._attrs.get("SrcT"), op._attrs.get("DstT")
    if xp is not np or src is None or dst is None or (src != dst and (
            src in _NO_CAST or dst in _NO_CAST)):
        return None
    npt = dst.as_numpy_dtype
    to_int = np.dtype(npt).kind in "iu"

    def cast(x):
        if to_int and x.dtype.kind == "f":
            with np.errstate(invalid="ignore"):
                return np.trunc(x).astype(npt)
        return x.astype(npt)
    return cast


Cast.kernel_fn.bind = _bind_cast


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
    if isinstance(x, Tensor) and x.dtype.base_dtype == dtype:
        return x  # as TF, before the name scope (no name is taken)
    # As TF: a Python value becomes `Cast/x`, even when no Cast op follows.
    with name_scope(name, "Cast", [x]) as scope:
        if hasattr(x, "indices") and hasattr(x, "values") and hasattr(x, "dense_shape"):
            # SparseTensor and IndexedSlices: the values are cast, the rest is kept (as TF).
            from flowloom.framework.indexed_slices import IndexedSlices
            from flowloom.framework.sparse_tensor import SparseTensor

            if isinstance(x, SparseTensor):
                return SparseTensor(x.indices, cast(x.values, dtype, name=scope), x.dense_shape)
            if isinstance(x, IndexedSlices):
                return IndexedSlices(cast(x.values, dtype, name=scope), x.indices, x.dense_shape)
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
    """Casts `value` to `dtype`, clipping to the target's range first (as TF: Maximum with
    dtype.min and Minimum with dtype.max where the source range is wider)."""
    with name_scope(name, "saturate_cast", [value]) as scope:
        value = convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        src = value.dtype.base_dtype
        if src.min < dtype.min:
            value = maximum(value, convert_to_tensor(dtype.min, dtype=src, name="min"))
        if src.max > dtype.max:
            value = minimum(value, convert_to_tensor(dtype.max, dtype=src, name="max"))
        return cast(value, dtype, name=scope)



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
    # As TF: each input is converted on its own first (a NumPy float64 beside a float32
    # Tensor is a dtype mismatch, not cast to the Tensor's dtype as other list inputs are).
    from flowloom.framework.tensor_conversion import convert_to_tensor_or_indexed_slices

    inputs = [convert_to_tensor_or_indexed_slices(v) for v in inputs]
    return apply_op("AddN", (inputs,), name=name).outputs[0]


Range = defop("Range", inputs=["start: Tidx", "limit: Tidx", "delta: Tidx"],
              outputs=["output: Tidx"], attrs={"Tidx": dtypes.int32})


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
    for what, v in (("start", start), ("limit", limit), ("delta", delta)):
        if np.ndim(v) != 0:
            raise errors.InvalidArgumentError(
                None, None, f"{what} must be a scalar, not shape "
                "[" + ",".join(str(d) for d in np.shape(v)) + "]")
    if delta == 0:
        raise errors.InvalidArgumentError(None, None, "Requires delta != 0: 0")
    return xp.arange(start, limit, delta, dtype=start.dtype)


Range.no_gradient()


def range_(start, limit=None, delta=1, dtype=None, name="range"):
    """A sequence of numbers from `start` (inclusive) to `limit` (exclusive)."""
    if limit is None:
        start, limit = 0, start
    with name_scope(name, "Range", [start, limit, delta]) as scope:
        # As TF: each argument becomes a tensor of its own type, then a Cast to the widest
        # (the Const + Cast pair counts in TF 1.15's default op seeds).
        ts = [v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=dtype, name=n)
              for v, n in ((start, "start"), (limit, "limit"), (delta, "delta"))]
        if dtype is None:
            order = [dtypes.int32, dtypes.int64, dtypes.float16, dtypes.bfloat16,
                     dtypes.float32, dtypes.float64]
            for t in ts:
                if t.dtype.base_dtype not in order:
                    raise TypeError(f"Range does not take {t.dtype.base_dtype.name} arguments")
            dtype = builtins.max((t.dtype.base_dtype for t in ts), key=order.index)
        ts = [cast(t, dtype) for t in ts]
        return apply_op("Range", tuple(ts), name=scope).outputs[0]


# -- Python operators on Tensors ------------------------------------------------------------------
def _operator(fn, default_name, py_name=None):
    """`x <op> y` and `y <op> x` for a wrapper `fn(x, y, name)`, named as TF names them.

    A right operand becomes a tensor of x's dtype where it can, else of its own (TF's
    dtype_hint: `int_tensor + 1.0` then fails in the op, naming both types); one that cannot
    become a tensor defers to its own reflected operator (`__r<py_name>__`) when it has one,
    as Python's protocol expects.
    """
    def forward(x, y):
        with name_scope(None, default_name, [x, y]) as scope:
            if not isinstance(y, Tensor):
                try:
                    y = convert_to_tensor(y, preferred_dtype=x.dtype.base_dtype, name="y")
                except TypeError:
                    if py_name and hasattr(y, "__r%s__" % py_name):
                        return NotImplemented
                    raise
            return fn(x, y, name=scope)

    def reverse(y, x):
        with name_scope(None, default_name, [x, y]) as scope:
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return fn(x, y, name=scope)
    return forward, reverse


def _op_type_fn(op_type):
    return lambda x, y, name: apply_op(op_type, (x, y), name=name)._outputs[0]


def _add_dispatch(x, y, name):
    # TF 1.15's `+`: Add for strings (AddV2 has no string kernel), AddV2 otherwise.
    op_type = "Add" if x.dtype.base_dtype == dtypes.string else "AddV2"
    return apply_op(op_type, (x, y), name=name)._outputs[0]


_truediv_operator, _rtruediv_operator = _operator(truediv, "truediv")
_floordiv_operator, _rfloordiv_operator = _operator(floordiv, "floordiv")


def _matmul(x, y, name=None):
    from flowloom.ops.math import matmul_ops  # imported late: matmul_ops builds on this module

    return matmul_ops.matmul(x, y, name=name)


_matmul_operator, _rmatmul_operator = _operator(_matmul, "matmul")


def _register_operators():
    for py, op_type, default in [("add", "AddV2", "add"), ("sub", "Sub", "sub"),
                                 ("mul", "Mul", "mul"), ("mod", "FloorMod", "mod"),
                                 ("pow", "Pow", "pow"), ("and", "LogicalAnd", "and"),
                                 ("or", "LogicalOr", "or")]:
        fwd, rev = _operator(_add_dispatch if py == "add" else _op_type_fn(op_type), default,
                             py)
        Tensor._override_operator(f"__{py}__", fwd)
        Tensor._override_operator(f"__r{py}__", rev)
    for py, op_type in [("lt", "Less"), ("le", "LessEqual"), ("gt", "Greater"),
                        ("ge", "GreaterEqual")]:
        fwd, _ = _operator(_op_type_fn(op_type), op_type, py)
        Tensor._override_operator(f"__{py}__", fwd)
    Tensor._override_operator("__xor__", lambda x, y: logical_xor(x, y, name="xor"))
    Tensor._override_operator("__rxor__", lambda y, x: logical_xor(x, y, name="xor"))
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


# The other math-op families live in files of their own; their names stay reachable here,
# as in TF's math_ops. (Imported last: they build on the ops above.)
from flowloom.ops.math.unary_ops import (  # noqa: E402,F401
    _unary_kernel, UNARY_OPS, TanhGrad, SigmoidGrad, RsqrtGrad, SqrtGrad, ReciprocalGrad,
    SoftplusGrad, _unary, negative, abs, sign, square, sqrt, rsqrt, exp, expm1, log, log1p, sin,
    cos, tan, asin, acos, atan, sinh, cosh, tanh, sigmoid, erf, floor, ceil, rint, reciprocal,
    is_nan, is_inf, is_finite, logical_not, softplus, softsign, round, neg)
from flowloom.ops.math.reduction_ops import (  # noqa: E402,F401
    REDUCTION_OPS, _reduction_dims, constant, _reduce, reduce_sum, reduce_mean, reduce_prod,
    reduce_max, reduce_min, reduce_any, reduce_all, count_nonzero, argmax, arg_max, argmin,
    arg_min, TopKV2, top_k, cumsum, unsorted_segment_sum)
from flowloom.ops.math.matmul_ops import (  # noqa: E402,F401
    MatMul, matmul_kernel, BatchMatMulV2, matmul)
from flowloom.ops.math.special_math_ops import (  # noqa: E402,F401
    Invert, acosh, asinh, atanh, erfc, lgamma, digamma, invert, xlogy, xlog1py, xdivy,
    multiply_no_nan, mul_no_nan, bitwise_and, bitwise_or, bitwise_xor, left_shift, right_shift,
    bessel_i0e, bessel_i1e)
from flowloom.ops.math.segment_reduction_ops import (  # noqa: E402,F401
    SegmentSum, SegmentMean, segment_sum, segment_mean, segment_prod, segment_min, segment_max,
    unsorted_segment_mean, unsorted_segment_sqrt_n, sparse_segment_sum, sparse_segment_mean,
    sparse_segment_sqrt_n, sparse_segment_sum_with_num_segments,
    sparse_segment_mean_with_num_segments, sparse_segment_sqrt_n_with_num_segments,
    sparse_segment_mean_grad, sparse_segment_sqrt_n_grad)
from flowloom.ops.math.segment_ops import (  # noqa: E402,F401
    unsorted_segment_prod, unsorted_segment_max, unsorted_segment_min)
from flowloom.ops.math.extra_math_ops import (  # noqa: E402,F401
    approximate_equal, nextafter, polyval, reciprocal_no_nan)
