"""Broadcasting ops and the helpers that undo broadcasting in gradients.

BroadcastGradientArgs, BroadcastTo and Tile, with their gradients, plus
`reduce_gradient_args` (TF's SmartBroadcastGradientArgs: static reduction axes when the
shapes are known, a BroadcastGradientArgs op otherwise) and `reduced_shape`.
"""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.framework.tensor_util import constant_value
from flowloom.framework.shape_eval import input_value, input_value_as_shape
from flowloom.ops.array import array_ops
from flowloom.ops.layout import c_order

# -- BroadcastGradientArgs -------------------------------------------------------------------
BroadcastGradientArgs = defop("BroadcastGradientArgs", inputs=["s0: T", "s1: T"],
                              outputs=["r0: T", "r1: T"], attrs={"T": dtypes.int32})
BroadcastGradientArgs.shape(lambda op: [unknown_shape(1), unknown_shape(1)])


def broadcast_gradient_args_np(s0, s1):
    """The axes to sum a broadcast result over to get back to shapes `s0` and `s1` (TF's BCast)."""
    x, y = [int(d) for d in s0], [int(d) for d in s1]
    if x == y:
        return [], []
    n = max(len(x), len(y))
    x = [1] * (n - len(x)) + x
    y = [1] * (n - len(y)) + y
    r0, r1 = [], []
    for i, (a, b) in enumerate(zip(x, y)):
        if a == b:
            if a == 1:
                r0.append(i)
                r1.append(i)
        elif a == 1:
            r0.append(i)
        elif b == 1:
            r1.append(i)
        else:
            raise errors.InvalidArgumentError(
                None, None, "Incompatible shapes: [%s] vs. [%s]" % (
                    ",".join(map(str, s0)), ",".join(map(str, s1))))
    return r0, r1


@BroadcastGradientArgs.kernel
def _(xp, s0, s1):
    r0, r1 = broadcast_gradient_args_np(s0, s1)
    return np.array(r0, dtype=s0.dtype), np.array(r1, dtype=s0.dtype)


BroadcastGradientArgs.no_gradient()


def broadcast_gradient_args(s0, s1, name=None):
    return apply_op("BroadcastGradientArgs", (s0, s1), name=name).outputs


# -- BroadcastArgs: the broadcast shape of two shapes -------------------------------------------
BroadcastArgs = defop("BroadcastArgs", inputs=["s0: T", "s1: T"], outputs=["r0: T"],
                      attrs={"T": dtypes.int32},
                      allowed_types={"T": (dtypes.int32, dtypes.int64)})
BroadcastArgs.no_gradient()


@BroadcastArgs.shape
def _(op):
    a, b = op._inputs[0]._shape, op._inputs[1]._shape
    for s in (a, b):
        if s.ndims is not None and s.ndims != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {s.ndims}")
    if a.ndims is None or b.ndims is None or a[0] is None or b[0] is None:
        return unknown_shape(1)
    return TensorShape([max(a[0], b[0])])


@BroadcastArgs.kernel
def _(xp, s0, s1):
    if s0.ndim != 1 or s1.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, "In[0] and In[1] must be vectors.")
    x, y = [int(d) for d in s0], [int(d) for d in s1]
    n = max(len(x), len(y))
    x, y = [1] * (n - len(x)) + x, [1] * (n - len(y)) + y
    out = []
    for a, b in zip(x, y):
        if a != b and a != 1 and b != 1:
            raise errors.InvalidArgumentError(
                None, None, "Incompatible shapes: [%s] vs. [%s]" % (
                    ",".join(map(str, s0)), ",".join(map(str, s1))))
        out.append(b if a == 1 else a)
    return np.array(out, dtype=s0.dtype)


def broadcast_args(s0, s1, name=None):
    """The shape that shapes `s0` and `s1` broadcast to (op BroadcastArgs)."""
    return apply_op("BroadcastArgs", (s0, s1), name=name).outputs[0]


def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast shape of the 1-D shape tensors `shape_x` and `shape_y`, computed when the
    graph runs (BroadcastArgs)."""
    return broadcast_args(shape_x, shape_y)


def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two TensorShapes; ValueError when they do not broadcast."""
    from flowloom.framework import common_shapes
    from flowloom.framework.tensor_shape import as_shape

    shape_x, shape_y = as_shape(shape_x), as_shape(shape_y)
    try:
        return common_shapes.broadcast(shape_x, shape_y)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: {shape_x} and "
                         f"{shape_y}") from None


# -- BroadcastTo -----------------------------------------------------------------------------
BroadcastTo = defop("BroadcastTo", inputs=["input: T", "shape: Tidx"], outputs=["output: T"],
                    attrs={"Tidx": dtypes.int32})


@BroadcastTo.shape
def _(op):
    x, s = op._inputs
    target = input_value_as_shape(s)
    if target.ndims is not None and x._shape.ndims is not None:
        if x._shape.ndims > target.ndims:
            raise ValueError(f"Rank of input ({x._shape.ndims}) must be no greater than rank "
                             f"of output shape ({target.ndims}).")
    return target


@BroadcastTo.kernel
def _(xp, x, shape):
    try:
        return c_order(np, xp.broadcast_to(x, tuple(int(d) for d in shape)))
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, "Incompatible shapes: [%s] vs. [%s]" % (
                ",".join(map(str, x.shape)), ",".join(map(str, shape)))) from None


@BroadcastTo.gradient
def _(op, grad):
    from flowloom.ops.math import math_ops

    x, shape = op._inputs
    x_shape = array_ops.shape(x, out_type=shape.dtype.base_dtype)
    static = constant_value(shape)
    if static is not None:
        shape = array_ops.constant(np.asarray(static).tolist(), dtype=shape.dtype.base_dtype)
    _, axes = broadcast_gradient_args(shape, x_shape)
    summed = math_ops.reduce_sum(grad, axis=axes, keepdims=True)
    return [array_ops.reshape(summed, x_shape), None]


def broadcast_to(input, shape, name=None):
    """Broadcasts `input` to `shape` with NumPy's rules (op type BroadcastTo)."""
    return apply_op("BroadcastTo", (input, shape), name=name).outputs[0]


# -- Tile --------------------------------------------------------------------------------------
Tile = defop("Tile", inputs=["input: T", "multiples: Tmultiples"], outputs=["output: T"],
             attrs={"Tmultiples": dtypes.int32})


@Tile.shape
def _(op):
    x, m = op._inputs
    if m._shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {m._shape.ndims}")
    mv = input_value(m)
    if x._shape.ndims is None:
        return unknown_shape(None if m._shape.ndims is None or m._shape[0].value is None
                             else m._shape[0].value)
    dims = x._shape.as_list()
    if m._shape.ndims == 1 and m._shape[0].value is not None and \
            m._shape[0].value != len(dims):
        raise ValueError(f"Shape must be rank {len(dims)} but is rank {m._shape[0].value}")
    if mv is None:
        # As TF: the multiples' partially known value (a Pack of a dynamic size and constants)
        # still fixes the dims it knows.
        known = input_value_as_shape(m)
        if known.ndims != len(dims):
            return unknown_shape(len(dims))
        return TensorShape([None if d is None or k.value is None else d * k.value
                            for d, k in zip(dims, known.dims)])
    return TensorShape([None if d is None else d * int(k) for d, k in zip(dims, np.ravel(mv))])


@Tile.kernel
def _(xp, x, multiples):
    if np.ndim(multiples) != 1:
        raise errors.InvalidArgumentError(
            None, None, "Expected multiples to be 1-D, but got shape "
            "[" + ",".join(str(d) for d in np.shape(multiples)) + "]")
    if len(multiples) != x.ndim:
        raise errors.InvalidArgumentError(
            None, None, f"Expected multiples argument to be a vector of length {x.ndim} but got "
            f"length {len(multiples)}")
    return xp.tile(x, tuple(int(k) for k in multiples))


@Tile.gradient
def _(op, grad):
    from flowloom.ops.math import math_ops

    x, multiples = op._inputs
    x_shape = array_ops.shape(x, out_type=multiples.dtype.base_dtype)
    # Reshape grad to [m0, d0, m1, d1, ...] and sum over the multiples axes.
    split_shape = array_ops.reshape(array_ops.transpose(array_ops.stack([multiples, x_shape])),
                                    [-1])
    axes = math_ops.range_(0, array_ops.size(split_shape), 2)
    grad = convert_to_tensor(grad)
    x_grad = math_ops.reduce_sum(array_ops.reshape(grad, split_shape), axes)
    x_grad.set_shape(x._shape)
    return [x_grad, None]


def tile(input, multiples, name=None):
    """Repeats `input` `multiples[i]` times along dimension i (op type Tile)."""
    return apply_op("Tile", (input, multiples), name=name).outputs[0]


# -- helpers for gradients of broadcasting ops ---------------------------------------------------
def _infer_reduction_axes(x_shape, y_shape):
    """Static axes broadcast in x and in y, or (None, None) when it depends on run time."""
    if x_shape.ndims is None or y_shape.ndims is None:
        return None, None
    xs, ys = x_shape.as_list(), y_shape.as_list()
    n = max(len(xs), len(ys))
    x_axes, y_axes = [], []
    for axis in range(n):
        xd = 1 if axis < n - len(xs) else xs[axis - (n - len(xs))]
        yd = 1 if axis < n - len(ys) else ys[axis - (n - len(ys))]
        if xd == 1 and yd != 1:
            x_axes.append(axis)
        elif yd == 1 and xd != 1:
            y_axes.append(axis)
        elif xd is None or yd is None:
            return None, None
    return x_axes, y_axes


def _static_shape_of_result(x_shape, y_shape, grad):
    """Whether `grad` has the static shape x and y broadcast to (so static axes apply to it);
    a gradient fed in with another shape (grad_ys of shape [1] for a scalar) is reduced by
    BroadcastGradientArgs at run time, as TF does."""
    if not isinstance(grad, Tensor):
        return True
    gs = grad._shape.as_list() if grad._shape.ndims is not None else None
    xs, ys = x_shape.as_list(), y_shape.as_list()
    n = max(len(xs), len(ys))
    if gs is None or len(gs) != n:
        return False
    xs, ys = [1] * (n - len(xs)) + xs, [1] * (n - len(ys)) + ys
    for xd, yd, gd in zip(xs, ys, gs):
        rd = yd if xd == 1 else xd
        if gd is not None and rd is not None and gd != rd:
            return False
    return True


def smart_broadcast_gradient_args(x, y, grad=None, smart=False):
    """((x_shape, x_axes, x_must_reduce), (y_shape, y_axes, y_must_reduce)), as TF builds them
    for the gradient `grad` of x <op> y.

    `smart`: the op's TF 1.15 gradient takes SmartBroadcastGradientArgs (Add, Sub, Mul, Pow,
    SquaredDifference; `grad` is then the incoming gradient); see `_tf1_broadcast_gradient_args`.
    """
    from flowloom.ops.random.random_ops import seed_rules

    if seed_rules() == "1":
        return _tf1_broadcast_gradient_args(x, y, grad if smart else None)
    x_shape = array_ops.shape(x)
    y_shape = array_ops.shape(y)
    # TF 2.x takes static axes when the shapes tell them.
    x_axes, y_axes = _infer_reduction_axes(x._shape, y._shape)
    if x_axes is not None and not _static_shape_of_result(x._shape, y._shape, grad):
        x_axes = None
    if x_axes is None or y_axes is None:
        x_axes, y_axes = broadcast_gradient_args(x_shape, y_shape)
        return (x_shape, x_axes, True), (y_shape, y_axes, True)
    x_must = bool(x_axes) or x._shape.ndims < y._shape.ndims
    y_must = bool(y_axes) or y._shape.ndims < x._shape.ndims
    return (x_shape, x_axes, x_must), (y_shape, y_axes, y_must)


def _shape_tuple(t):
    return None if t._shape.ndims is None else tuple(t._shape.as_list())


def _tf1_broadcast_gradient_args(x, y, grad):
    """TF 1.15's ops, which its default op seeds count (one op more or less changes every
    later random value). Without `grad` (Div, Pow, Maximum, ...): Shape ops (Consts when
    known) and a BroadcastGradientArgs, always reduced. With it (SmartBroadcastGradientArgs):
    unfolded Shape ops and a BroadcastGradientArgs when a shape is not fully known; otherwise
    the static axes of a per-graph cache keyed by the two shapes (a miss builds a dead
    BroadcastGradientArgs over two Consts and evaluates it), reduced only where a shape
    differs from the gradient's."""
    if grad is None or not (x._shape.is_fully_defined() and y._shape.is_fully_defined()):
        optimize = grad is None
        x_shape = array_ops.shape(x, optimize=optimize)
        y_shape = array_ops.shape(y, optimize=optimize)
        x_axes, y_axes = broadcast_gradient_args(x_shape, y_shape)
        return (x_shape, x_axes, True), (y_shape, y_axes, True)
    from flowloom.framework.graph import get_default_graph

    xs, ys, gs = _shape_tuple(x), _shape_tuple(y), _shape_tuple(grad)
    cache = get_default_graph().__dict__.setdefault("_bcast_grad_args_cache", {})
    if (xs, ys) not in cache:
        broadcast_gradient_args(np.array(xs, np.int32), np.array(ys, np.int32))
        cache[xs, ys] = tuple(tuple(r) for r in broadcast_gradient_args_np(xs, ys))
    rx, ry = cache[xs, ys]
    return (xs, rx, xs != gs), (ys, ry, ys != gs)


def _reduce_gradient_arg(grad, shape_axes_must):
    from flowloom.ops.math import math_ops
    from flowloom.ops.random.random_ops import seed_rules

    shape, axes, must_reduce = shape_axes_must
    if callable(grad):
        grad = grad()
    if grad is not None and must_reduce:
        # TF 1.15 sums without keepdims (then reshapes): the same ops
        grad = math_ops.reduce_sum(grad, axes, keepdims=seed_rules() != "1")
        grad = array_ops.reshape(grad, shape)
    return grad


def reduce_gradient_args(x, y, gx, gy, grad=None):
    """Sums the gradients of a broadcasting binary op back to the shapes of its inputs.

    `gx` and `gy` may be callables building the gradients, called in TF's op order: TF 2.x
    builds both before the broadcast arguments, TF 1.15 (FLOWLOOM_SEED_RULES=1) each after
    them, just before its reduction. `grad`: the incoming gradient, given by the ops whose
    TF 1.15 gradients take SmartBroadcastGradientArgs (see `smart_broadcast_gradient_args`).
    """
    from flowloom.ops.random.random_ops import seed_rules

    if seed_rules() != "1":
        gx, gy = (g() if callable(g) else g for g in (gx, gy))
    if gx is not None or gy is not None:
        smart = grad is not None
        if grad is None:
            grad = gx if gx is not None else gy
        bx, by = smart_broadcast_gradient_args(x, y, grad, smart)
        gx = _reduce_gradient_arg(gx, bx)
        gy = _reduce_gradient_arg(gy, by)
    return gx, gy


def sum_to_shape_of(grad, like):
    """`grad` (the gradient of a result `like` was broadcast into) summed back to `like`'s shape.

    With both static shapes known the reduction axes are computed now; otherwise a
    BroadcastGradientArgs op finds them at run time (as TF's gradients do), so a `None`
    batch dimension or an unknown rank works.
    """
    from flowloom.ops.math import math_ops

    gs, ls = grad._shape, like._shape
    if gs.is_fully_defined() and ls.is_fully_defined():
        g, t = gs.as_list(), ls.as_list()
        if g == t:
            return grad
        lead = len(g) - len(t)
        axes = list(range(lead)) + [lead + i for i, d in enumerate(t)
                                    if d == 1 and g[lead + i] != 1]
        out = math_ops.reduce_sum(grad, axes, keepdims=True) if axes else grad
        return array_ops.reshape(out, t)
    like_shape = array_ops.shape(like)
    axes, _ = broadcast_gradient_args(like_shape, array_ops.shape(grad))
    out = array_ops.reshape(math_ops.reduce_sum(grad, axes, keepdims=True), like_shape)
    out.set_shape(ls)
    return out


def shapes_fully_equal(x, y, grad):
    """Whether x, y and grad have the same fully known static shape (no broadcasting)."""
    if not isinstance(grad, Tensor):
        return False
    xs, ys, gs = x._shape, y._shape, grad._shape
    return xs.is_fully_defined() and xs == ys and xs == gs


def reduced_shape(input_shape, axes):
    """The shape of a reduction's output with keepdims=True (Python array when static)."""
    from flowloom.ops.array import data_flow_ops
    from flowloom.ops.math import math_ops

    shape_value = constant_value(input_shape)
    axes_value = constant_value(axes) if isinstance(axes, Tensor) else (
        None if axes is None else np.asarray(axes))
    if shape_value is not None and axes_value is not None:
        out = np.array(shape_value, dtype=np.int32)
        out[np.asarray(axes_value, dtype=np.int32)] = 1
        return out
    axes = convert_to_tensor(axes)
    input_rank = array_ops.size(input_shape, out_type=axes.dtype.base_dtype)
    axes = (axes + input_rank) % input_rank
    axes_shape = array_ops.shape(axes)
    return data_flow_ops.dynamic_stitch(
        [math_ops.range_(input_rank), axes],
        [input_shape, array_ops.ones(axes_shape, dtype=input_shape.dtype.base_dtype)])


def safe_shape_div(x, y):
    """x // y for shapes, treating 0 // 0 as 0."""
    from flowloom.ops.math import math_ops

    return math_ops.floordiv(x, math_ops.maximum(y, 1))


del name_scope
