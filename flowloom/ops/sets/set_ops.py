"""Set operations over the last dimension (`tf.sets`): SetSize, DenseToDenseSetOperation,
DenseToSparseSetOperation, SparseToSparseSetOperation (TF's op types; none has a gradient).

    a = tf.constant([[9, 1, 5], [2, 4, 3]])
    b = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [1, 9, 1], [2, 2])
    tf.sets.set_intersection(a, b)   # indices [[0, 0], [0, 1]], values [1, 9], shape [2, 2]
"""

from flowloom.framework import dtypes, tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.import_shapes import _merge_error
from flowloom.framework.op_def import defop
from flowloom.framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from flowloom.ops.sets import set_kernels

_VALID_DTYPES = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
                 dtypes.uint16, dtypes.string)
_ALLOWED = {"T": _VALID_DTYPES}
_RESULT = ["result_indices: int64", "result_values: T", "result_shape: int64"]

SetSize = defop("SetSize", inputs=["set_indices: int64", "set_values: T", "set_shape: int64"],
                outputs=["size: int32"], attrs={"validate_indices": True},
                allowed_types=_ALLOWED).no_gradient()
DenseToDenseSetOperation = defop(
    "DenseToDenseSetOperation", inputs=["set1: T", "set2: T"], outputs=_RESULT,
    attrs={"set_operation": None, "validate_indices": True},
    allowed_types=_ALLOWED).no_gradient()
DenseToSparseSetOperation = defop(
    "DenseToSparseSetOperation",
    inputs=["set1: T", "set2_indices: int64", "set2_values: T", "set2_shape: int64"],
    outputs=_RESULT, attrs={"set_operation": None, "validate_indices": True},
    allowed_types=_ALLOWED).no_gradient()
SparseToSparseSetOperation = defop(
    "SparseToSparseSetOperation",
    inputs=["set1_indices: int64", "set1_values: T", "set1_shape: int64",
            "set2_indices: int64", "set2_values: T", "set2_shape: int64"],
    outputs=_RESULT, attrs={"set_operation": None, "validate_indices": True},
    allowed_types=_ALLOWED).no_gradient()


@SetSize.shape
def _(op):
    return [tensor_shape.unknown_shape()]


def _result_shapes(rank):
    return [tensor_shape.TensorShape([None, rank]), tensor_shape.TensorShape([None]),
            tensor_shape.TensorShape([rank])]


def _sparse_rank(op, first):
    """TF's ValidateSparseTensor for inputs first..first+2; the rank dimension it gives."""
    indices, values, shape = (op._inputs[first + i]._shape for i in range(3))
    indices = _with_rank(indices, 2)
    values = _with_rank(values, 1)
    shape = _with_rank(shape, 1)
    indices[0].merge_with(values[0])
    return indices[1].merge_with(shape[0]).value


def _with_rank_at_least_2(shape):
    if shape.ndims is not None and shape.ndims < 2:  # TF's InferenceContext::WithRankAtLeast
        raise ValueError(f"Shape must be at least rank 2 but is rank {shape.ndims}")
    return shape


def _with_rank(shape, rank):
    if shape.ndims is not None and shape.ndims != rank:  # InferenceContext::WithRank
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return tensor_shape.TensorShape([None] * rank) if shape.ndims is None else shape


def _check_rank_value(rank, want):
    if rank is not None and rank != want:  # TF's InferenceContext::WithValue
        raise ValueError(f"Dimension must be {want} but is {rank}")


@DenseToDenseSetOperation.shape
def _(op):
    shape0 = _with_rank_at_least_2(op._inputs[0]._shape)
    if shape0.ndims is not None:
        shape1 = _with_rank(op._inputs[1]._shape, shape0.ndims)
        error = _merge_error(shape0[:-1], shape1[:-1])
        if error:
            raise ValueError(error)
        return _result_shapes(shape0.ndims)
    return _result_shapes(_with_rank_at_least_2(op._inputs[1]._shape).ndims)


@DenseToSparseSetOperation.shape
def _(op):
    rank1 = _sparse_rank(op, 1)
    shape0 = _with_rank_at_least_2(op._inputs[0]._shape)
    if shape0.ndims is not None:
        _check_rank_value(rank1, shape0.ndims)
        return _result_shapes(shape0.ndims)
    return _result_shapes(rank1)


@SparseToSparseSetOperation.shape
def _(op):
    rank0, rank1 = _sparse_rank(op, 0), _sparse_rank(op, 3)
    if rank0 is not None:
        if rank0 < 2:
            raise ValueError(f"Input 0, expected rank >= 2, got {rank0}.")
        _check_rank_value(rank1, rank0)
        return _result_shapes(rank0)
    if rank1 is not None and rank1 < 2:
        raise ValueError(f"Input 1, expected rank >= 2, got {rank1}.")
    return _result_shapes(rank1)


@SetSize.kernel
def _(xp, indices, values, shape, *, validate_indices):
    return set_kernels.set_size(indices, values, shape)


@DenseToDenseSetOperation.kernel
def _(xp, set1, set2, *, set_operation, validate_indices):
    return set_kernels.dense_to_dense(set1, set2, set_kernels.set_operation_of(set_operation))


@DenseToSparseSetOperation.kernel
def _(xp, set1, indices2, values2, shape2, *, set_operation, validate_indices):
    return set_kernels.dense_to_sparse(set1, indices2, values2, shape2,
                                       set_kernels.set_operation_of(set_operation))


@SparseToSparseSetOperation.kernel
def _(xp, indices1, values1, shape1, indices2, values2, shape2, *, set_operation,
      validate_indices):
    return set_kernels.sparse_to_sparse(indices1, values1, shape1, indices2, values2, shape2,
                                        set_kernels.set_operation_of(set_operation))


def set_size(a, validate_indices=True):
    """Computes the number of unique elements along the last dimension of `a`.

    Args:
      a: `SparseTensor`, with indices sorted in row-major order.
      validate_indices: whether to validate the order and range of sparse indices in `a`.

    Returns:
      `int32` `Tensor` of set sizes: for `a` of rank `n`, rank `n-1` with `a`'s first `n-1`
      dimensions; each value is the number of unique elements of that group of `a`.

    Raises:
      TypeError: if `a` is not a `SparseTensor` or has an invalid dtype.
    """
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if a.values.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"Invalid dtype {a.values.dtype}.")
    return apply_op("SetSize", (a.indices, a.values, a.dense_shape),
                    validate_indices=validate_indices).outputs[0]


def _convert_to_tensors_or_sparse_tensors(a, b):
    """(a, b, flipped): converted, and swapped when `a` is sparse and `b` dense (the ops take
    dense,sparse only)."""
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if a.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"'a' invalid dtype {a.dtype}.")
    b = convert_to_tensor_or_sparse_tensor(b, name="b")
    if b.dtype.base_dtype != a.dtype.base_dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a, b, set_operation, validate_indices=True):
    attrs = {"set_operation": set_operation, "validate_indices": validate_indices}
    if isinstance(a, SparseTensor):
        if not isinstance(b, SparseTensor):
            raise ValueError("Sparse,Dense is not supported, but Dense,Sparse is. Please flip "
                             "the order of your inputs.")
        op = apply_op("SparseToSparseSetOperation", (a.indices, a.values, a.dense_shape,
                                                     b.indices, b.values, b.dense_shape),
                      **attrs)
    elif isinstance(b, SparseTensor):
        op = apply_op("DenseToSparseSetOperation", (a, b.indices, b.values, b.dense_shape),
                      **attrs)
    else:
        op = apply_op("DenseToDenseSetOperation", (a, b), **attrs)
    return SparseTensor(*op.outputs)


def set_intersection(a, b, validate_indices=True):
    """Computes the set intersection of the elements in the last dimension of `a` and `b`.

    All but the last dimension of `a` and `b` must match.

    Args:
      a: `Tensor` or `SparseTensor` of the same type as `b` (if sparse, indices sorted in
        row-major order).
      b: `Tensor` or `SparseTensor` of the same type as `a`.
      validate_indices: whether to validate the order and range of sparse indices.

    Returns:
      A `SparseTensor` of the rank of `a` and `b`, with all but the last dimension the same;
      the last dimension holds the sorted intersections.
    """
    a, b, _ = _convert_to_tensors_or_sparse_tensors(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


def set_difference(a, b, aminusb=True, validate_indices=True):
    """Computes the set difference of the elements in the last dimension of `a` and `b`.

    All but the last dimension of `a` and `b` must match.

    Args:
      a: `Tensor` or `SparseTensor` of the same type as `b` (if sparse, indices sorted in
        row-major order).
      b: `Tensor` or `SparseTensor` of the same type as `a`.
      aminusb: whether to subtract `b` from `a`, or `a` from `b`.
      validate_indices: whether to validate the order and range of sparse indices.

    Returns:
      A `SparseTensor` of the rank of `a` and `b` holding the sorted differences.

    Raises:
      TypeError: if the inputs have invalid or different types.
      ValueError: if `a` is sparse and `b` dense.
      InvalidArgumentError (at run time): if the shapes differ in other than the last
        dimension.
    """
    a, b, flipped = _convert_to_tensors_or_sparse_tensors(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


def set_union(a, b, validate_indices=True):
    """Computes the set union of the elements in the last dimension of `a` and `b`.

    All but the last dimension of `a` and `b` must match.

    Args:
      a: `Tensor` or `SparseTensor` of the same type as `b` (if sparse, indices sorted in
        row-major order).
      b: `Tensor` or `SparseTensor` of the same type as `a`.
      validate_indices: whether to validate the order and range of sparse indices.

    Returns:
      A `SparseTensor` of the rank of `a` and `b` holding the sorted unions.
    """
    a, b, _ = _convert_to_tensors_or_sparse_tensors(a, b)
    return _set_operation(a, b, "union", validate_indices)


size = set_size
intersection = set_intersection
difference = set_difference
union = set_union
