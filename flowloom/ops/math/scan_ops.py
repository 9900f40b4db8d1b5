"""Scans: Cumsum and Cumprod along one axis (exclusive and reverse variants)."""

import numpy as np

from flowloom.framework import common_shapes, dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.ops.layout import c_order


def _scan_kernel(accumulate, identity):
    def kernel(xp, x, axis, *, exclusive, reverse):
        if np.ndim(axis) != 0:
            raise errors.InvalidArgumentError(
                None, None, "ScanOp: axis must be a scalar, not "
                f"[{','.join(str(d) for d in np.shape(axis))}]")
        axis = int(axis)
        if axis < -x.ndim or axis >= max(x.ndim, 1):
            raise errors.InvalidArgumentError(
                None, None, f"ScanOp: Expected scan axis in the range [{-x.ndim}, {x.ndim}), "
                f"but got {axis}")
        if reverse:
            x = xp.flip(x, axis)
        out = accumulate(x, axis=axis)
        if exclusive and x.shape[axis]:
            # Shift by one along the axis, starting from the identity.
            out = xp.roll(out, 1, axis=axis)
            index = [slice(None)] * x.ndim
            index[axis] = 0
            out[tuple(index)] = identity
        if reverse:
            out = xp.flip(out, axis)
        return c_order(xp, out).astype(x.dtype, copy=False)
    return kernel


SCAN_OPS = {}
for _type, _acc, _identity in (("Cumsum", np.cumsum, 0), ("Cumprod", np.cumprod, 1)):
    _od = SCAN_OPS[_type] = defop(_type, inputs=["x: T", "axis: Tidx"], outputs=["out: T"],
                                  attrs={"exclusive": False, "reverse": False,
                                         "Tidx": dtypes.int32})
    _od.shape(common_shapes.unchanged)
    _od.kernel(_scan_kernel(_acc, _identity))


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum of `x` along `axis` (op type Cumsum)."""
    with name_scope(name, "Cumsum", [x]) as scope:
        return apply_op("Cumsum", (x, axis), name=scope, exclusive=exclusive,
                        reverse=reverse).outputs[0]


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative product of `x` along `axis` (op type Cumprod)."""
    with name_scope(name, "Cumprod", [x]) as scope:
        return apply_op("Cumprod", (x, axis), name=scope, exclusive=exclusive,
                        reverse=reverse).outputs[0]


@SCAN_OPS["Cumsum"].gradient
def _(op, grad):
    return [cumsum(grad, op._inputs[1], exclusive=op._attrs["exclusive"],
                   reverse=not op._attrs["reverse"]), None]


@SCAN_OPS["Cumprod"].gradient
def _(op, grad):
    from flowloom.ops.math import math_ops

    x, axis = op._inputs
    exclusive, reverse = op._attrs["exclusive"], op._attrs["reverse"]
    prod = cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = cumsum(prod * grad, axis, exclusive=exclusive, reverse=not reverse)
    return [math_ops.div_no_nan(out, x), None]
