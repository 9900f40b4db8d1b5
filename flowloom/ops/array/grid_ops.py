"""Regular grids and cyclic shifts: LinSpace, meshgrid, Roll."""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape
from flowloom.framework.tensor_util import constant_value
from flowloom.ops.array import array_ops

LinSpace = defop("LinSpace", inputs=["start: T", "stop: T", "num: Tidx"], outputs=["output: T"],
                 attrs={"Tidx": dtypes.int32})


@LinSpace.shape
def _(op):
    for t, what in zip(op._inputs, ("start", "stop", "num")):
        if t._shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t._shape.ndims} ({what} of "
                             f"'{op._name}')")
    n = constant_value(op._inputs[2])
    return TensorShape([None if n is None else int(n)])


@LinSpace.kernel
def _(xp, start, stop, num):
    num = int(num)
    if num <= 0:
        raise errors.InvalidArgumentError(None, None, f"Requires num > 0: {num}")
    if num == 1:
        return xp.asarray([start], start.dtype)
    step = (stop - start) / (num - 1)
    out = (start + xp.arange(num, dtype=start.dtype) * step).astype(start.dtype)
    out[-1] = stop  # the last value is `stop` exactly, as TF's kernel writes it
    return out


LinSpace.no_gradient()


def lin_space(start, stop, num, name=None):
    """`num` evenly spaced values from `start` to `stop` inclusive."""
    return apply_op("LinSpace", (start, stop, num), name=name).outputs[0]


def meshgrid(*args, **kwargs):
    """Coordinate arrays for a grid over the 1-D `args` ('xy' or 'ij' indexing)."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this "
                        f"function")
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    with name_scope(name, "meshgrid", args):
        ndim = len(args)
        s0 = (1,) * ndim
        output = [array_ops.reshape(array_ops.stack(x), s0[:i] + (-1,) + s0[i + 1:])
                  for i, x in enumerate(args)]
        shapes = [array_ops.size(x) for x in args]
        output_dtype = convert_to_tensor(args[0]).dtype.base_dtype
        if indexing == "xy" and ndim > 1:
            output[0] = array_ops.reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = array_ops.reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        mult_fact = array_ops.ones(shapes, output_dtype)
        return [x * mult_fact for x in output]


Roll = defop("Roll", inputs=["input: T", "shift: Tshift", "axis: Taxis"], outputs=["output: T"],
             attrs={"Tshift": dtypes.int32, "Taxis": dtypes.int32})
Roll.shape(lambda op: op._inputs[0]._shape)


@Roll.kernel
def _(xp, x, shift, axis):
    shift, axis = np.atleast_1d(shift), np.atleast_1d(axis)
    if shift.shape != axis.shape:
        raise errors.InvalidArgumentError(None, None, "shift and axis must have the same size")
    for a in axis:
        if not -x.ndim <= a < x.ndim:
            raise errors.InvalidArgumentError(None, None, f"axis {a} is out of range")
    return xp.roll(x, tuple(int(s) for s in shift), tuple(int(a) for a in axis))


@Roll.gradient
def _(op, grad):
    return [roll(grad, -op._inputs[1], op._inputs[2]), None, None]


def roll(input, shift, axis, name=None):  # noqa: A002
    """`input` shifted cyclically by `shift` along `axis` (ints or matching lists)."""
    return apply_op("Roll", (input, shift, axis), name=name).outputs[0]
