"""Math functions TF composes from other ops (no op type of their own): reduce_logsumexp,
reduce_variance/std, norm, log_sigmoid, scalar_mul, lbeta, monotonicity tests; and
accumulate_n with its AccumulateNV2 op."""

import numpy as np

from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_conversion import convert_to_tensor_or_indexed_slices
from flowloom.framework.tensor_shape import as_shape, unknown_shape
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops, unary_ops
from flowloom.ops.math.reduction_ops import reduce_all, reduce_max, reduce_mean, reduce_sum


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None,
                     reduction_indices=None, keep_dims=None):
    """log(sum(exp(x))) along `axis`, computed stably (the maximum is taken out first)."""
    axis = axis if axis is not None else reduction_indices
    keepdims = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope(name, "ReduceLogSumExp", [input_tensor]):
        x = convert_to_tensor(input_tensor)
        raw_max = reduce_max(x, axis, keepdims=True)
        my_max = array_ops.stop_gradient(array_ops.where(
            unary_ops.is_finite(raw_max), raw_max, array_ops.zeros_like(raw_max)))
        result = unary_ops.log(reduce_sum(unary_ops.exp(math_ops.subtract(x, my_max)), axis,
                                          keepdims=keepdims))
        if not keepdims:
            my_max = array_ops.reshape(my_max, array_ops.shape(result))
        return math_ops.add(result, my_max)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The variance of `input_tensor` along `axis`."""
    with name_scope(name or "reduce_variance"):
        means = reduce_mean(input_tensor, axis=axis, keepdims=True)
        squared = unary_ops.square(input_tensor - means)
        return reduce_mean(squared, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation of `input_tensor` along `axis`."""
    with name_scope(name or "reduce_std"):
        return unary_ops.sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002
    """Vector norms (`ord` 'euclidean'/'fro', 1, 2, inf, any p > 0) over `axis` (an int or
    None), or matrix norms ('fro', 1, inf) over a pair of axes."""
    keepdims = bool(keepdims if keepdims is not None else keep_dims)
    is_matrix_norm = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix_norm:
        axis = tuple(axis)
        if axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        supported = ["euclidean", "fro", 1, 2, np.inf]
        if ord not in supported:
            raise ValueError(f"'ord' must be a supported matrix norm in {supported}, got {ord}")
        if ord == 2:
            raise NotImplementedError("the matrix 2-norm (it needs a differentiable SVD)")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        supported = ["euclidean", "fro", 1, 2, np.inf]
        if (not isinstance(ord, (int, float)) or ord <= 0) and ord not in supported:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)
    with name_scope(name, "norm", [tensor]):
        tensor = convert_to_tensor(tensor)
        if ord in ["fro", "euclidean", 2, 2.0]:
            result = unary_ops.sqrt(reduce_sum(tensor * tensor, axis, keepdims=True))
        else:
            result = unary_ops.abs(tensor)
            if ord == 1:
                result = reduce_sum(result, None if axis is None else axis[0], keepdims=True)
                if is_matrix_norm:
                    result = reduce_max(result, axis[-1], keepdims=True)
            elif ord == np.inf:
                if is_matrix_norm:
                    result = reduce_sum(result, axis[1], keepdims=True)
                result = reduce_max(result, None if axis is None else axis[0], keepdims=True)
            else:
                result = math_ops.pow(reduce_sum(math_ops.pow(result, ord), axis,
                                                 keepdims=True), 1.0 / ord)
        if not keepdims:
            result = array_ops.squeeze(result, axis)
        return result


def log_sigmoid(x, name=None):
    """log(sigmoid(x)), computed as -softplus(-x)."""
    with name_scope(name, "LogSigmoid", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return unary_ops.negative(unary_ops.softplus(-x), name=scope)


def scalar_mul(scalar, x, name=None):
    """`scalar * x` for a 0-d `scalar`."""
    scalar = convert_to_tensor(scalar, dtype=getattr(x, "dtype", None), name="scalar")
    if scalar._shape.ndims not in (None, 0):
        raise ValueError(f"Only scalar multiply works, got shape {scalar._shape}")
    if hasattr(x, "indices") and hasattr(x, "dense_shape"):  # IndexedSlices: scale the values
        from flowloom.framework.indexed_slices import IndexedSlices

        return IndexedSlices(math_ops.multiply(scalar, x.values, name=name), x.indices,
                             x.dense_shape)
    return math_ops.multiply(scalar, x, name=name)


def lbeta(x, name=None):
    """log|Beta(x)| over the last dimension: sum(lgamma(x)) - lgamma(sum(x))."""
    from flowloom.ops.math.special_math_ops import lgamma

    with name_scope(name, "lbeta", [x]):
        x = convert_to_tensor(x, name="x")
        log_prod_gamma_x = reduce_sum(lgamma(x), axis=[-1])
        log_gamma_sum_x = lgamma(reduce_sum(x, axis=[-1]))
        return log_prod_gamma_x - log_gamma_sum_x


def _diffs(x):
    x = array_ops.reshape(convert_to_tensor(x, name="x"), [-1])
    if not (x.dtype.is_floating or x.dtype.is_integer):
        raise TypeError(f"Expected x to be numeric, but it had dtype {x.dtype.name}")
    return x[1:] - x[:-1]


def is_non_decreasing(x, name=None):
    """True when each element of flattened `x` is >= the one before (empty and 1-element:
    True)."""
    with name_scope(name, "is_non_decreasing", [x]):
        diff = _diffs(x)
        return reduce_all(math_ops.less_equal(convert_to_tensor(0, dtype=diff.dtype), diff))


def is_strictly_increasing(x, name=None):
    """True when each element of flattened `x` is > the one before."""
    with name_scope(name, "is_strictly_increasing", [x]):
        diff = _diffs(x)
        return reduce_all(math_ops.less(convert_to_tensor(0, dtype=diff.dtype), diff))


AccumulateNV2 = defop("AccumulateNV2", inputs=["inputs: N * T"], outputs=["sum: T"],
                      attrs={"shape": unknown_shape()})


@AccumulateNV2.shape
def _(op):
    s = op._attrs["shape"]
    for t in op._inputs:
        s = s.merge_with(t._shape)
    return s


AccumulateNV2.kernel(math_ops.AddN.kernel_fn)


@AccumulateNV2.gradient
def _(op, grad):
    return [grad] * len(op._inputs)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """Returns the elementwise sum of a list of tensors (an AccumulateNV2 op).

    Args:
      inputs: A list of `Tensor` objects, each with same shape and type.
      shape: Expected shape of elements of `inputs` (optional); merged with theirs.
      tensor_dtype: Expected data type of `inputs` (optional).
      name: A name for the operation (optional).

    Returns:
      A `Tensor` of same shape and type as the elements of `inputs`.

    Raises:
      ValueError: If `inputs` don't all have same shape and dtype or the shape
      cannot be inferred.
    """
    def _input_error():
        return ValueError("inputs must be a list of at least one Tensor with the same dtype "
                          "and shape")

    if not inputs or not isinstance(inputs, (list, tuple)):
        raise _input_error()
    inputs = [convert_to_tensor_or_indexed_slices(x) for x in inputs]
    if not all(isinstance(x, Tensor) for x in inputs):
        raise _input_error()
    if not all(x.dtype == inputs[0].dtype for x in inputs):
        raise _input_error()
    shape = as_shape(shape) if shape is not None else unknown_shape()
    for t in inputs:
        shape = shape.merge_with(t.get_shape())
    if tensor_dtype is not None and tensor_dtype != inputs[0].dtype:
        raise TypeError(f"tensor_dtype is {tensor_dtype}, but input is of type "
                        f"{inputs[0].dtype}")
    if len(inputs) == 1:
        return inputs[0] if name is None else array_ops.identity(inputs[0], name=name)
    return apply_op("AccumulateNV2", (list(inputs),), name=name, shape=shape).outputs[0]


def floor_div(x, y, name=None):
    """x // y elementwise (op type FloorDiv, no name scope)."""
    return apply_op("FloorDiv", (x, y), name=name).outputs[0]
