"""`tf.assert_*`: ops that raise InvalidArgumentError when a condition does not hold.

When the condition is known statically to be false, the error is raised while building
the graph, as TF does.
"""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_util import constant_value
from flowloom.ops.array import array_ops
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.checks import logging_ops
from flowloom.ops.math import math_ops


def _static_text(d, summarize):
    """One entry of an assert's data, as the message of a check decided while building."""
    if isinstance(d, str):
        return d
    value = constant_value(d) if hasattr(d, "op") else None
    if value is not None:
        return logging_ops.format_value(value, summarize or 3)
    return str(d)


def _binary_assert(sym, opname, op_fn, static_fn, x, y, data, summarize, message, name):
    with name_scope(name, opname, [x, y, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        if data is None:
            data = [f"Condition x {sym} y did not hold element-wise:",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        if message is not None:
            data = [message] + list(data)
        # The comparison op first: its shape function rejects shapes that do not broadcast
        # with TF's ValueError, before any static evaluation.
        condition = math_ops.reduce_all(op_fn(x, y))
        xv, yv = constant_value(x), constant_value(y)
        if xv is not None and yv is not None and not np.all(static_fn(xv, yv)):
            raise errors.InvalidArgumentError(
                None, None, "\n".join(_static_text(d, summarize) for d in data))
        return logging_ops.Assert_(condition, data, summarize=summarize)


def _make(sym, opname, op_fn, static_fn):
    def fn(x, y, data=None, summarize=None, message=None, name=None):
        return _binary_assert(sym, opname, op_fn, static_fn, x, y, data, summarize, message,
                              name)
    fn.__name__ = opname
    fn.__doc__ = f"An op that fails with InvalidArgumentError unless `x {sym} y` elementwise."
    return fn


_assert_equal = _make("==", "assert_equal", math_ops.equal, np.equal)


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails with InvalidArgumentError unless `x == y` elementwise.

    When `x` and `y` are the same tensor the check is a NoOp. When both are constants the
    check is made while building (InvalidArgumentError at once when it fails).
    """
    with name_scope(name, "assert_equal", [x, y, data]):
        if x is y:
            return control_flow_ops.no_op()
    return _assert_equal(x, y, data=data, summarize=summarize, message=message, name=name)

assert_none_equal = _make("!=", "assert_none_equal", math_ops.not_equal, np.not_equal)
assert_less = _make("<", "assert_less", math_ops.less, np.less)
assert_less_equal = _make("<=", "assert_less_equal", math_ops.less_equal, np.less_equal)
assert_greater = _make(">", "assert_greater", math_ops.greater, np.greater)
assert_greater_equal = _make(">=", "assert_greater_equal", math_ops.greater_equal,
                             np.greater_equal)


def _unary_assert(opname, sym, x, data, summarize, message, name, against):
    with name_scope(name, opname, [x, data]):
        x = convert_to_tensor(x, name="x")
        zero = array_ops.zeros([], dtype=x.dtype)
        if data is None:
            data = ([message] if message else []) + [
                f"Condition x {sym} did not hold element-wise:", f"x ({x.name}) = ", x]
        fn = {"<": assert_less, "<=": assert_less_equal, ">": assert_greater,
              ">=": assert_greater_equal}[against]
        if against in ("<", "<="):
            return fn(x, zero, data=data, summarize=summarize)
        return fn(x, zero, data=data, summarize=summarize)


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    return _unary_assert("assert_negative", "< 0", x, data, summarize, message, name, "<")


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    return _unary_assert("assert_non_positive", "<= 0", x, data, summarize, message, name, "<=")


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    with name_scope(name, "assert_positive", [x, data]):
        x = convert_to_tensor(x, name="x")
        zero = array_ops.zeros([], dtype=x.dtype)
        if data is None:
            data = ([message] if message else []) + [
                "Condition x > 0 did not hold element-wise:", f"x ({x.name}) = ", x]
        return assert_less(zero, x, data=data, summarize=summarize)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    with name_scope(name, "assert_non_negative", [x, data]):
        x = convert_to_tensor(x, name="x")
        zero = array_ops.zeros([], dtype=x.dtype)
        if data is None:
            data = ([message] if message else []) + [
                "Condition x >= 0 did not hold element-wise:", f"x ({x.name}) = ", x]
        return assert_less_equal(zero, x, data=data, summarize=summarize)


def assert_type(tensor, tf_type, message=None, name=None):
    """Statically asserts that `tensor` has dtype `tf_type`; returns a NoOp.

    Raises:
      TypeError: If the tensor's dtype is not `tf_type`.
    """
    with name_scope(name, "assert_type", [tensor]):
        tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            raise TypeError(f"{message or ''}  {tensor.name} must be of type {tf_type}")
        return control_flow_ops.no_op(name="statically_determined_correct_type")


def assert_scalar(tensor, name=None, message=None):
    tensor = convert_to_tensor(tensor)
    if tensor._shape.ndims != 0:
        raise ValueError(f"{message or ''}Expected scalar shape for {tensor.name}, saw shape: "
                         f"{tensor._shape}.")
    return tensor


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None,
                name=None):
    """An op that fails with InvalidArgumentError unless `x` and `y` are close elementwise.

    Close means `|x - y| < atol + rtol * |y|`; both tolerances default to 10 times the
    machine epsilon of `x`'s dtype.

    Args:
      x: Float or complex `Tensor`.
      y: `Tensor` of the same dtype as `x`, broadcastable to it.
      rtol: Relative tolerance (scalar).
      atol: Absolute tolerance (scalar).
      data: The tensors to print out if the condition is False.
      summarize: Print this many entries of each tensor.
      message: A string to prefix to the default message.
      name: A name for this operation (optional). Defaults to "assert_near".

    Returns:
      Op raising `InvalidArgumentError` if `x` and `y` are not close enough.
    """
    message = message or ""
    with name_scope(name, "assert_near", [x, y, rtol, atol, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype)
        eps = np.finfo(x.dtype.as_numpy_dtype).eps
        rtol = 10 * eps if rtol is None else rtol
        atol = 10 * eps if atol is None else atol
        rtol = convert_to_tensor(rtol, name="rtol", dtype=x.dtype)
        atol = convert_to_tensor(atol, name="atol", dtype=x.dtype)
        if data is None:
            data = [message, f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        tol = atol + rtol * math_ops.abs(y)
        diff = math_ops.abs(x - y)
        condition = math_ops.reduce_all(math_ops.less(diff, tol))
        return logging_ops.Assert_(condition, data, summarize=summarize)


def assert_integer(x, message=None, name=None):
    """Statically asserts that `x` has a (non-quantized) integer dtype; returns a NoOp.

    Raises:
      TypeError: If `x.dtype` is not an integer type.
    """
    with name_scope(name, "assert_integer", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError(f"{message or ''}  Expected \"x\" to be integer type.  Found: "
                            f"{x.name} of dtype {x.dtype}")
        return control_flow_ops.no_op("statically_determined_was_integer")


def assert_proper_iterable(values):
    """Statically asserts that `values` is an iterable other than a tensor, array or string.

    Raises:
      TypeError: If `values` is not iterable or is a `Tensor`, `SparseTensor`, `np.ndarray`,
        `bytes` or `str`.
    """
    from flowloom.framework.ops import Tensor
    from flowloom.framework.sparse_tensor import SparseTensor

    if isinstance(values, (Tensor, SparseTensor, np.ndarray, bytes, str)):
        raise TypeError('Expected argument "values" to be a "proper" iterable.  Found: '
                        f"{type(values)}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def _same_base_type(items, expected):
    first = None
    for item in items:
        if item is None:
            continue
        item_type = item.dtype.base_dtype
        if expected is None:
            expected, first = item_type, getattr(item, "name", str(item))
        elif item_type != expected:
            raise ValueError(f"{getattr(item, 'name', str(item))}, type={item_type}, must be "
                             f"of the same type ({expected})"
                             f"{f' as {first}' if first else ''}.")
    return expected


def assert_same_float_dtype(tensors=None, dtype=None):
    """Validates and returns the float dtype shared by `tensors` (and equal to `dtype`).

    Args:
      tensors: Tensors of input values; `None` entries are ignored.
      dtype: Expected dtype.

    Returns:
      The validated dtype (float32 when neither `tensors` nor `dtype` is given).

    Raises:
      ValueError: If the dtypes differ or are not floating point.
    """
    if tensors:
        dtype = _same_base_type(tensors, dtype)
    if not dtype:
        return dtypes.float32
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


# TF 1.15's check_ops.NUMERIC_TYPES (its quantized types included where flowloom has them).
_NUMERIC = frozenset(getattr(dtypes, n) for n in (
    "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "qint8", "qint32",
    "quint8", "complex64") if hasattr(dtypes, n))


def is_numeric_tensor(tensor):
    """True when `tensor` is a `Tensor` of one of TF's numeric dtypes."""
    from flowloom.framework.ops import Tensor

    return isinstance(tensor, Tensor) and tensor.dtype in _NUMERIC


# The rank and shape checks live in their own modules; tf.assert_* names come from here.
from flowloom.ops.checks.check_ranks import (assert_rank, assert_rank_at_least,  # noqa: E402,F401
                                             assert_rank_in)
from flowloom.ops.checks.check_shapes import assert_shapes  # noqa: E402,F401
