"""`tf.assert_*`: ops that raise InvalidArgumentError when a condition does not hold.

When the condition is known statically to be false, the error is raised while building
the graph, as TF does.
"""

import numpy as np

from flowloom.framework import errors
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_util import constant_value
from flowloom.ops.array import array_ops
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.checks import logging_ops
from flowloom.ops.math import math_ops


def _binary_assert(sym, opname, op_fn, static_fn, x, y, data, summarize, message, name):
    with name_scope(name, opname, [x, y, data]):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        if data is None:
            data = [message] if message else []
            data += [f"Condition x {sym} y did not hold element-wise:",
                     f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        elif message:
            data = [message] + list(data)
        xv, yv = constant_value(x), constant_value(y)
        if xv is not None and yv is not None:
            if not np.all(static_fn(xv, yv)):
                parts = []
                for d in data:
                    if isinstance(d, str):
                        parts.append(d)
                    elif d is x:
                        parts.append(logging_ops.format_value(xv, summarize or 3))
                    elif d is y:
                        parts.append(logging_ops.format_value(yv, summarize or 3))
                    else:
                        parts.append(str(d))
                raise errors.InvalidArgumentError(None, None, "\n".join(parts))
        condition = math_ops.reduce_all(op_fn(x, y))
        return logging_ops.Assert_(condition, data, summarize=summarize)


def _make(sym, opname, op_fn, static_fn):
    def fn(x, y, data=None, summarize=None, message=None, name=None):
        return _binary_assert(sym, opname, op_fn, static_fn, x, y, data, summarize, message,
                              name)
    fn.__name__ = opname
    fn.__doc__ = f"An op that fails with InvalidArgumentError unless `x {sym} y` elementwise."
    return fn


assert_equal = _make("==", "assert_equal", math_ops.equal, np.equal)
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


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """Raises ValueError at build time when the static rank of `x` is not `rank`."""
    with name_scope(name, "assert_rank", [x]):
        x = convert_to_tensor(x, name="x")
        nd = x._shape.ndims
        if nd is not None:
            if nd != int(rank):
                raise ValueError(f"{message + '. ' if message else ''}Tensor {x.name} must have "
                                 f"rank {int(rank)}.  Received rank {nd}, shape {x._shape}")
            return control_flow_ops.no_op()
        return assert_equal(array_ops.rank(x), int(rank), data=data, summarize=summarize,
                            message=message)


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """Raises ValueError at build time when the static rank of `x` is below `rank` (a run-time
    check when the rank is unknown)."""
    with name_scope(name, "assert_rank_at_least", [x]):
        x = convert_to_tensor(x, name="x")
        nd = x._shape.ndims
        if nd is not None:
            if nd < int(rank):
                raise ValueError(f"{message + '. ' if message else ''}Tensor {x.name} must have "
                                 f"rank at least {int(rank)}.  Received rank {nd}, shape "
                                 f"{x._shape}")
            return control_flow_ops.no_op()
        return assert_greater_equal(array_ops.rank(x), int(rank), data=data,
                                    summarize=summarize, message=message)


def assert_type(tensor, tf_type, message=None, name=None):
    tensor = convert_to_tensor(tensor)
    if tensor.dtype.base_dtype != tf_type:
        raise TypeError(f"{message or ''}{tensor.name} must be of type {tf_type!r}; got "
                        f"{tensor.dtype!r}")
    return control_flow_ops.no_op(name=name or "statically_determined_correct_type")


def assert_scalar(tensor, name=None, message=None):
    tensor = convert_to_tensor(tensor)
    if tensor._shape.ndims != 0:
        raise ValueError(f"{message or ''}Expected scalar shape for {tensor.name}, saw shape: "
                         f"{tensor._shape}.")
    return tensor
