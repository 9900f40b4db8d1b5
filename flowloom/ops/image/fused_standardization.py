"""`_FusedImageStandardization`: `tf.image.per_image_standardization`'s ops as one kernel.

The `remapping` rewrite (runtime/rewrite_fuse_image.py) puts it in a plan in place of

    mean = Mean(x, axes, keep_dims)         centered = Sub(x, mean)
    var = Mean(Square(Abs(centered)), axes, keep_dims)
    y = RealDiv(centered, Maximum(Sqrt(var), min_stddev))

when none of the intermediate values is seen outside. Its inputs are `x`, the axes and
`min_stddev`; the values are those of the separate ops (the same NumPy calls in the same
order), computed without a step per op: on a per-example pipeline's 24x24x3 float32 images
the separate steps cost several times their arithmetic.
"""

import math

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.op_def import defop, get

_F = np.dtype(np.float32)
# The graph ops a fused op stands for, in the order its `replaces` lists them.
MEMBERS = ("Mean", "Sub", "Abs", "Square", "Mean", "Sqrt", "Maximum", "RealDiv")

_FusedImageStandardization = defop(
    "_FusedImageStandardization", inputs=["x: T", "axes: Tidx", "min_stddev: T"],
    outputs=["y: T"], attrs={"T": dtypes.float32, "Tidx": dtypes.int32})
_FusedImageStandardization.shape(lambda op: [op._outputs[0]._shape])


def standardize(x, axis, min_stddev):
    """The members' value for a float32 array `x` of at least one value, `axis` the sorted
    distinct axes the Means reduce over."""
    from flowloom.ops.math.reduction_ops import _mean

    with np.errstate(all="ignore"):
        if len(axis) == x.ndim and type(min_stddev) in (np.ndarray, np.float32) and \
                min_stddev.dtype == _F and min_stddev.size == 1:
            return _standardize_whole(x, axis, min_stddev)
        centered = np.subtract(x, _mean(x, axis, True))
        deviation = np.abs(centered)
        np.square(deviation, out=deviation)
        scale = np.sqrt(_mean(deviation, axis, True))
        scale = np.maximum(scale, min_stddev)
        return np.true_divide(centered, scale)


def _standardize_whole(x, axis, min_stddev):
    # One image: the two means and the scale are single values, worked out as the Mean
    # kernel's float32 sum / intp count (a float64 division rounded to float32), sqrt and
    # maximum do (both correctly rounded, NaN kept) on Python floats; then the arrays.
    n = x.size
    f32 = np.float32
    mean = f32(np.add.reduce(x, axis=axis, keepdims=True).item() / n)
    centered = np.subtract(x, mean)
    deviation = np.abs(centered)
    np.square(deviation, out=deviation)
    stddev = f32(math.sqrt(f32(np.add.reduce(deviation, axis=axis, keepdims=True).item() / n)))
    floor = f32(min_stddev.item())
    scale = stddev if stddev >= floor or stddev != stddev else floor
    return np.true_divide(centered, scale)


def _run_members(xp, x, axes, min_stddev, members=None):
    """The value through each member op's own kernel (another device's arrays, or a shape
    not seen yet). With `members`, a failure is raised as that graph op's error."""
    values = {"x": x, "axes": axes, "min_stddev": min_stddev}
    steps = (("mean", "Mean", ("x", "axes")), ("centered", "Sub", ("x", "mean")),
             ("abs", "Abs", ("centered",)), ("square", "Square", ("abs",)),
             ("var", "Mean", ("square", "axes")), ("stddev", "Sqrt", ("var",)),
             ("scale", "Maximum", ("stddev", "min_stddev")),
             ("y", "RealDiv", ("centered", "scale")))
    for i, (out, type_name, ins) in enumerate(steps):
        args = [values[k] for k in ins]
        attrs = {"keep_dims": True} if type_name == "Mean" else {}
        try:
            values[out] = get(type_name).kernel_fn(xp, *args, **attrs)
        except Exception as e:  # noqa: BLE001 - reported as the member op reports it
            if members is None:
                raise
            from flowloom.runtime.op_errors import op_error

            err = op_error(members[i], args, e)
            err.names_its_op = True
            raise err from None
    return values["y"]


def _bind(xp, op):
    members = list(getattr(op, "replaces", ()))
    if len(members) == len(MEMBERS) + 1:
        del members[-2]  # the RealDiv's own Sub of the same operands (never fails)
    if xp is not np or tuple(m._type for m in members) != MEMBERS:
        return None
    from flowloom.ops.math import reduction_ops  # noqa: F401 - registers Mean

    seen = {}  # (id of an axes array, rank) -> (the array, the axes the Means reduced)

    def fused(x, axes, min_stddev):
        if type(x) is np.ndarray and x.dtype == _F and x.size:
            known = seen.get((id(axes), x.ndim))
            if known is not None and known[0] is axes:
                return standardize(x, known[1], min_stddev)
        y = _run_members(np, x, axes, min_stddev, members)
        # The members accepted these axes for this rank: the next run reduces over them
        # directly (as the Mean kernel specialized on constant axes does).
        if type(x) is np.ndarray and type(axes) is np.ndarray and axes.dtype.kind == "i" and \
                0 < axes.size and axes.ndim <= 1 and x.ndim and len(seen) < 16:
            seen[(id(axes), x.ndim)] = (axes, tuple(sorted({int(a) % x.ndim for a in axes})))
        return y
    return fused


@_FusedImageStandardization.kernel
def _kernel(xp, x, axes, min_stddev):
    return _run_members(xp, x, axes, min_stddev)


_kernel.bind = _bind
