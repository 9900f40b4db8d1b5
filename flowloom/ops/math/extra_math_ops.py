"""TF 1.15's smaller math additions: ApproximateEqual, NextAfter, polyval, reciprocal_no_nan."""

import numpy as np

from flowloom.framework import common_shapes, dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import unknown_shape
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops

_NUMBER = tuple(dtypes.as_dtype(t) for t in (
    "float32", "float64", "int32", "uint8", "int16", "int8", "complex64", "int64", "bfloat16",
    "uint16", "complex128", "float16", "uint32", "uint64"))

ApproximateEqual = defop("ApproximateEqual", inputs=["x: T", "y: T"], outputs=["z: bool"],
                         attrs={"tolerance": 1e-5}, allowed_types={"T": _NUMBER})
ApproximateEqual.no_gradient()


@ApproximateEqual.shape
def _(op):
    x, y = op._inputs[0]._shape, op._inputs[1]._shape
    if x.ndims is not None and y.ndims is not None and x.ndims != y.ndims:
        raise ValueError(f"Shapes must be equal rank, but are {x.ndims} and {y.ndims}")
    if x.ndims is None:
        return y if y.ndims is not None else unknown_shape()
    if not x.is_compatible_with(y):
        dims = [(a, b) for a, b in zip(x.as_list(), y.as_list())
                if a is not None and b is not None and a != b][0]
        raise ValueError(f"Dimensions must be equal, but are {dims[0]} and {dims[1]}")
    return x.merge_with(y)


@ApproximateEqual.kernel
def _(xp, x, y, *, tolerance):
    return np.abs(x - y) < tolerance


def approximate_equal(x, y, tolerance=0.00001, name=None):
    """Elementwise `|x - y| < tolerance` (x and y of the same shape)."""
    with name_scope(name, "ApproximateEqual", [x, y]) as name:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        return apply_op("ApproximateEqual", (x, y), name=name,
                        tolerance=float(tolerance)).outputs[0]


NextAfter = defop("NextAfter", inputs=["x1: T", "x2: T"], outputs=["output: T"],
                  attrs={"T": dtypes.float32},
                  allowed_types={"T": (dtypes.float64, dtypes.float32)})
NextAfter.shape(common_shapes.binary_broadcast)
NextAfter.kernel(lambda xp, x1, x2: np.nextafter(x1, x2))
NextAfter.no_gradient()


def nextafter(x1, x2, name=None):
    """The next representable value after `x1` in the direction of `x2`, elementwise."""
    return apply_op("NextAfter", (x1, x2), name=name).outputs[0]


def polyval(coeffs, x, name=None):
    """The polynomial `coeffs[0] * x**(n-1) + ... + coeffs[n-1]` at `x`, by Horner's rule.

    Args:
      coeffs: a list of tensors (or values), highest power first.
      x: a tensor.

    Returns:
      A tensor like `x` (zeros when `coeffs` is empty).
    """
    from flowloom.framework import nest

    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type found {type(coeffs)}.")
    with name_scope(name, "polyval", nest.flatten(coeffs) + [x]) as name:
        x = convert_to_tensor(x, name="x")
        if len(coeffs) < 1:
            return array_ops.zeros_like(x, name=name)
        coeffs = [convert_to_tensor(c, name=f"coeff_{i}") for i, c in enumerate(coeffs)]
        p = coeffs[0]
        for c in coeffs[1:]:
            p = c + p * x
        return p


def reciprocal_no_nan(x, name=None):
    """`1 / x`, with 0 where `x` is 0."""
    with name_scope(name, "reciprocal_no_nan", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        one = array_ops.constant(1, dtype=x.dtype.base_dtype, name="one")
        return math_ops.div_no_nan(one, x, name=scope)
