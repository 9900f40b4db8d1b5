"""`tf.assert_rank`, `tf.assert_rank_at_least`, `tf.assert_rank_in`.

Each checks the rank of `x` against integer scalars. When both the rank of `x` and the wanted
ranks are known while building, a failed check raises ValueError at once and a passed one
returns a NoOp (`static_checks_determined_all_ok`), as in TF; otherwise the graph gets an
Assert on `tf.rank(x)`, and a wanted rank that is a tensor of unknown shape is itself checked
to be a scalar when the graph runs.
"""

from flowloom.framework import dtypes
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_util import constant_value
from flowloom.ops.array import array_ops
from flowloom.ops.checks import logging_ops
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.math import math_ops


class _StaticRankFailure(Exception):
    """The static ranks decide the check, and it fails: (actual rank, wanted rank(s))."""


def check_int32(tensor, message=""):
    """Raises TypeError unless `tensor` is int32 (the wanted ranks of the rank asserts)."""
    if tensor.dtype.base_dtype != dtypes.int32:
        raise TypeError(f"{message}  {tensor.name} must be of type {dtypes.int32}")


def _rank_condition(x, ranks, static_ok, dynamic_condition, data, summarize):
    """The shared body of the three asserts; `ranks` is a tuple of int32 tensors."""
    for rank in ranks:
        check_int32(rank)
    static = tuple(constant_value(r) for r in ranks)
    if all(v is not None for v in static):
        for v in static:
            if v.ndim != 0:
                raise ValueError("Rank must be a scalar.")
        x_rank = x._shape.ndims
        if x_rank is not None:
            wanted = tuple(int(v) for v in static)
            if not static_ok(x_rank, wanted):
                raise _StaticRankFailure(x_rank, wanted)
            return control_flow_ops.no_op(name="static_checks_determined_all_ok")
    condition = dynamic_condition(array_ops.rank(x), ranks)
    for rank, v in zip(ranks, static):
        if v is None:
            # A wanted rank fed at run time must be a scalar (assert_rank(x, [n]) is a bug).
            check = assert_rank(rank, 0, data=["Rank must be a scalar. Received rank: ", rank])
            condition = control_flow_ops.with_dependencies([check], condition)
    return logging_ops.Assert_(condition, data, summarize=summarize)


def _any_equal(actual, ranks):
    if not ranks:
        return convert_to_tensor(False)
    result = math_ops.equal(ranks[0], actual)
    for rank in ranks[1:]:
        result = math_ops.logical_or(result, math_ops.equal(rank, actual))
    return result


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """Asserts that `x` has rank equal to `rank`.

    Args:
      x: Numeric `Tensor`.
      rank: Scalar integer `Tensor` (int32).
      data: The tensors to print out if the condition is False. Defaults to the error
        message and the shape of `x`.
      summarize: Print this many entries of each tensor.
      message: A string to prefix to the default message.
      name: A name for this operation (optional). Defaults to "assert_rank".

    Returns:
      Op raising `InvalidArgumentError` unless `x` has the rank. If static checks determine
      that it has, a `no_op` is returned.

    Raises:
      ValueError: If static checks determine `x` has the wrong rank, or `rank` is not a
        scalar.
      TypeError: If `rank` is not int32.
    """
    with name_scope(name, "assert_rank", [x, rank] + list(data or [])):
        x = convert_to_tensor(x, name="x")
        rank = convert_to_tensor(rank, name="rank")
        message = message or ""
        if data is None:
            data = [message, f"Tensor {x.name} must have rank", rank, "Received shape: ",
                    array_ops.shape(x)]
        try:
            return _rank_condition(x, (rank,), lambda a, w: a == w[0],
                                   lambda a, ranks: math_ops.equal(a, ranks[0]), data, summarize)
        except _StaticRankFailure as e:
            actual, wanted = e.args
            raise ValueError(f"{message}.  Tensor {x.name} must have rank {wanted[0]}.  "
                             f"Received rank {actual}, shape {x._shape}") from None


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """Asserts that `x` has rank equal to `rank` or higher.

    Args:
      x: Numeric `Tensor`.
      rank: Scalar integer `Tensor` (int32).
      data: The tensors to print out if the condition is False. Defaults to the error
        message and the shape of `x`.
      summarize: Print this many entries of each tensor.
      message: A string to prefix to the default message.
      name: A name for this operation (optional). Defaults to "assert_rank_at_least".

    Returns:
      Op raising `InvalidArgumentError` unless `x` has the rank or more; a `no_op` when
      static checks determine that it has.

    Raises:
      ValueError: If static checks determine `x` has a smaller rank.
    """
    with name_scope(name, "assert_rank_at_least", [x, rank] + list(data or [])):
        x = convert_to_tensor(x, name="x")
        rank = convert_to_tensor(rank, name="rank")
        message = message or ""
        if data is None:
            data = [message, f"Tensor {x.name} must have rank at least", rank,
                    "Received shape: ", array_ops.shape(x)]
        try:
            return _rank_condition(x, (rank,), lambda a, w: a >= w[0],
                                   lambda a, ranks: math_ops.greater_equal(a, ranks[0]),
                                   data, summarize)
        except _StaticRankFailure as e:
            actual, wanted = e.args
            raise ValueError(f"{message}.  Tensor {x.name} must have rank at least "
                             f"{wanted[0]}.  Received rank {actual}, shape {x._shape}") from None


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """Asserts that `x` has a rank in `ranks`.

    Args:
      x: Numeric `Tensor`.
      ranks: Iterable of scalar integer `Tensor` objects (int32).
      data: The tensors to print out if the condition is False. Defaults to the error
        message and the shape of `x`.
      summarize: Print this many entries of each tensor.
      message: A string to prefix to the default message.
      name: A name for this operation (optional). Defaults to "assert_rank_in".

    Returns:
      Op raising `InvalidArgumentError` unless the rank of `x` is in `ranks`; a `no_op` when
      static checks determine that it is.

    Raises:
      ValueError: If static checks determine `x` has another rank.
    """
    ranks = list(ranks)
    with name_scope(name, "assert_rank_in", [x] + ranks + list(data or [])):
        x = convert_to_tensor(x, name="x")
        ranks = tuple(convert_to_tensor(r, name="rank") for r in ranks)
        message = message or ""
        if data is None:
            data = ([message, f"Tensor {x.name} must have rank in"] + list(ranks)
                    + ["Received shape: ", array_ops.shape(x)])
        try:
            return _rank_condition(x, ranks, lambda a, w: a in w, _any_equal, data, summarize)
        except _StaticRankFailure as e:
            actual, wanted = e.args
            raise ValueError(f"{message}.  Tensor {x.name} must have rank in {wanted}.  "
                             f"Received rank {actual}, shape {x._shape}") from None
