"""SparseTensorDenseMatMul (TF's op type) with its gradient, and
`tf.sparse_tensor_dense_matmul` / `tf.sparse.matmul`: a rank-2 SparseTensor times a dense
matrix, either side optionally adjoint (transposed and, for complex, conjugated).

    sp = tf.SparseTensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
    tf.sparse_tensor_dense_matmul(sp, [[1.0, 0.0], [0.0, 1.0]])   # [[0, 2], [3, 0]]
"""

import numpy as np

from flowloom.framework import dtypes, errors, tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.shape_eval import input_value_as_shape
from flowloom.framework.sparse_tensor import SparseTensor, SparseTensorValue

SparseTensorDenseMatMul = defop(
    "SparseTensorDenseMatMul",
    inputs=["a_indices: Tindices", "a_values: T", "a_shape: int64", "b: T"],
    outputs=["product: T"],
    attrs={"Tindices": dtypes.int64, "adjoint_a": False, "adjoint_b": False},
    allowed_types={"Tindices": (dtypes.int32, dtypes.int64)})


def _with_rank(shape, rank):
    if shape.ndims is not None and shape.ndims != rank:  # TF's InferenceContext::WithRank
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return tensor_shape.TensorShape([None] * rank) if shape.ndims is None else shape


@SparseTensorDenseMatMul.shape
def _(op):
    _with_rank(op._inputs[0]._shape, 2)
    _with_rank(op._inputs[1]._shape, 1)
    a_shape = _with_rank(input_value_as_shape(op._inputs[2]), 2)
    b = _with_rank(op._inputs[3]._shape, 2)
    adjoint_a, adjoint_b = op.get_attr("adjoint_a"), op.get_attr("adjoint_b")
    inner_left = a_shape[0 if adjoint_a else 1].value
    inner_right = b[1 if adjoint_b else 0].value
    if inner_left is not None and inner_right is not None and inner_left != inner_right:
        raise ValueError(f"Dimensions must be equal, but are {inner_left} and {inner_right}")
    return [tensor_shape.TensorShape([a_shape[1 if adjoint_a else 0], b[0 if adjoint_b else 1]])]


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


@SparseTensorDenseMatMul.kernel
def _(xp, a_indices, a_values, a_shape, b, *, adjoint_a, adjoint_b):
    a_indices, a_values, b = np.asarray(a_indices), np.asarray(a_values), np.asarray(b)
    if b.ndim != 2:
        raise _invalid("Tensor 'b' is not a matrix")
    if np.ndim(a_shape) != 1:
        raise _invalid("Tensor 'a_shape' is not a vector")
    if np.size(a_shape) != 2:
        raise _invalid("Tensor 'a_shape' must have 2 elements")
    if a_values.ndim != 1:
        raise _invalid("Tensor 'a_values' is not a vector")
    if a_indices.ndim != 2:
        raise _invalid("Tensor 'a_indices' is not a matrix")
    nnz = a_indices.shape[0]
    if nnz != a_values.size:
        raise _invalid("Number of rows of a_indices does not match number of entries in "
                       "a_values")
    if a_indices.shape[1] != 2:
        raise _invalid("Number of columns of a_indices does not match number of entries in "
                       "a_shape")
    rows, cols = (int(d) for d in np.asarray(a_shape).reshape(-1))
    outer_left, inner_left = (cols, rows) if adjoint_a else (rows, cols)
    outer_right, inner_right = b.shape if adjoint_b else (b.shape[1], b.shape[0])
    if inner_left != inner_right:
        raise _invalid(
            f"Cannot multiply A and B because inner dimension does not match: {inner_left} vs. "
            f"{inner_right}.  Did you forget a transpose?  Dimensions of A: [{rows}, {cols}).  "
            f"Dimensions of B: [{b.shape[0]},{b.shape[1]}]")
    out = np.zeros((outer_left, outer_right), dtype=b.dtype)
    if out.size == 0 or nnz == 0 or b.size == 0:
        return out
    m_col, k_col = (1, 0) if adjoint_a else (0, 1)
    m, k = a_indices[:, m_col].astype(np.int64), a_indices[:, k_col].astype(np.int64)
    bad_k = (k < 0) | (k >= inner_right)
    bad_m = (m < 0) | (m >= outer_left)
    bad = np.nonzero(bad_k | bad_m)[0]
    if bad.size:  # the first bad entry, its k checked before its m (as TF's kernel)
        i = int(bad[0])
        if bad_k[i]:
            raise _invalid(f"k ({k[i]}) from index[{i},{k_col}] out of bounds (>={inner_right})")
        raise _invalid(f"m ({m[i]}) from index[{i},{m_col}] out of bounds (>={outer_left})")
    values = np.conj(a_values) if adjoint_a else a_values
    rhs = np.conj(b.T) if adjoint_b else b
    # Entry by entry in index order, as TF accumulates (same rounding).
    np.add.at(out, m, values[:, None] * rhs[k])
    return out


@SparseTensorDenseMatMul.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops
    from flowloom.ops.math import math_ops, reduction_ops

    a_indices, a_values, a_shape, b = op._inputs
    adj_a, adj_b = op.get_attr("adjoint_a"), op.get_attr("adjoint_b")
    a_type, b_type = a_values.dtype.base_dtype, b.dtype.base_dtype
    if a_type != b_type:
        raise TypeError("SparseTensorDenseMatMul op received operands with different types: ",
                        a_type, " and ", b_type)
    if a_type in (dtypes.complex64, dtypes.complex128):
        raise NotImplementedError("SparseTensorDenseMatMul op does not support complex "
                                  "gradients.")
    b_grad = apply_op("SparseTensorDenseMatMul", (a_indices, a_values, a_shape, grad),
                      adjoint_a=not adj_a).outputs[0]
    if adj_b:
        b_grad = array_ops.transpose(b_grad)
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    parts_a = array_ops.gather(grad, rows if not adj_a else cols)
    parts_b = array_ops.gather(b if not adj_b else array_ops.transpose(b),
                               cols if not adj_a else rows)
    a_values_grad = reduction_ops.reduce_sum(math_ops.multiply(parts_a, parts_b), axis=1)
    return [None, a_values_grad, None, b_grad]


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """Multiplies the rank-2 SparseTensor `sp_a` by the dense matrix `b`.

    Args:
      sp_a: a `SparseTensor` (or `SparseTensorValue`) of rank 2.
      b: a dense matrix of `sp_a`'s dtype.
      adjoint_a: use the adjoint (conjugate transpose) of `sp_a`.
      adjoint_b: use the adjoint of `b`.
      name: a name prefix for the returned tensor.

    Returns:
      The dense product: `[rows of op(A), columns of op(B)]`.

    Raises:
      TypeError: if `sp_a` is not sparse.
      ValueError: if the inner dimensions are statically different.
      InvalidArgumentError (at run time): for an index out of bounds or mismatched shapes.
    """
    if isinstance(sp_a, SparseTensorValue):
        sp_a = SparseTensor.from_value(sp_a)
    if not isinstance(sp_a, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    with name_scope(name, "SparseTensorDenseMatMul", [sp_a.indices, sp_a.values, b]):
        b = convert_to_tensor(b, name="b")
        return apply_op("SparseTensorDenseMatMul", (sp_a.indices, sp_a.values,
                                                    sp_a.dense_shape, b),
                        adjoint_a=adjoint_a, adjoint_b=adjoint_b).outputs[0]
