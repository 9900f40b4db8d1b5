"""Sparse to dense: op SparseToDense, `tf.sparse_tensor_to_dense` / `tf.sparse.to_dense`.

What a VarLenFeature parsed by `tf.parse_example` is usually turned into.
"""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.sparse_tensor import SparseTensor, SparseTensorValue
from flowloom.framework.shape_eval import input_value_as_shape

SparseToDense = defop(
    "SparseToDense",
    inputs=["sparse_indices: Tindices", "output_shape: Tindices", "sparse_values: T",
            "default_value: T"],
    outputs=["dense: T"], attrs={"validate_indices": True},
    allowed_types={"Tindices": (dtypes.int32, dtypes.int64)})


@SparseToDense.shape
def _(op):
    shape = op.inputs[1]
    if shape._shape.ndims not in (None, 1):  # TF's MakeShapeFromShapeTensor
        raise ValueError(f"Shape must be rank 1 but is rank {shape._shape.ndims}")
    return input_value_as_shape(shape)


def _index_str(index):
    return "[" + ",".join(str(int(i)) for i in index) + "]"


@SparseToDense.kernel
def _(xp, indices, output_shape, values, default, *, validate_indices):
    indices = np.asarray(indices)
    if np.ndim(output_shape) != 1:
        raise errors.InvalidArgumentError(
            None, None, "output_shape should be a vector, got shape "
            f"{_index_str(np.shape(output_shape))}")
    shape = np.asarray(output_shape).reshape(-1)
    if indices.ndim > 2:
        raise errors.InvalidArgumentError(
            None, None, f"sparse_indices should be a scalar, vector, or matrix, got shape "
                        f"{_index_str(indices.shape)}")
    num = indices.shape[0] if indices.ndim else 1
    indices = indices if indices.ndim == 2 else indices.reshape(num, 1)
    if indices.shape[1] != shape.size:
        raise errors.InvalidArgumentError(
            None, None, f"sparse_indices should have {shape.size} columns, got "
                        f"{indices.shape[1]}")
    values = np.asarray(values)
    if values.ndim > 1 or (values.ndim == 1 and values.size != num):
        raise errors.InvalidArgumentError(
            None, None, f"sparse_values has incorrect shape {_index_str(values.shape)}, should "
                        f"be [] or [{num}]")
    if np.ndim(default) != 0:
        raise errors.InvalidArgumentError(None, None, "default_value should be a scalar.")
    if (shape < 0).any():
        raise errors.InvalidArgumentError(None, None, "output_shape has negative values")
    shape_str = _index_str(shape)
    if not validate_indices and num and ((indices < 0) | (indices >= shape)).any():
        raise errors.InvalidArgumentError(
            None, None, f"Indices are not valid (out of bounds).  Shape: {shape_str}")
    for n in range(num if validate_indices else 0):
        index = indices[n]
        if ((index < 0) | (index >= shape)).any():
            raise errors.InvalidArgumentError(
                None, None, f"indices[{n}] = {_index_str(index)} is out of bounds: need 0 <= "
                            f"index < {shape_str}")
        if n:
            prev = tuple(indices[n - 1])
            if tuple(index) == prev:
                raise errors.InvalidArgumentError(
                    None, None, f"indices[{n}] = {_index_str(index)} is repeated")
            if tuple(index) < prev:
                raise errors.InvalidArgumentError(
                    None, None, f"indices[{n}] = {_index_str(index)} is out of order. Many "
                                "sparse ops require sorted indices.\n    Use "
                                "`tf.sparse.reorder` to create a correctly ordered copy.\n\n")
    default = np.asarray(default)
    out = np.full(tuple(int(d) for d in shape), default[()], dtype=default.dtype)
    if num and shape.size:
        out[tuple(indices.T)] = values
    elif num:
        out[()] = values.reshape(-1)[-1]
    return out


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0,
                    validate_indices=True, name=None):
    """A dense tensor of `output_shape` holding `sparse_values` at `sparse_indices`."""
    return apply_op("SparseToDense", (sparse_indices, output_shape, sparse_values,
                                      default_value), name=name,
                    validate_indices=validate_indices).outputs[0]


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """Converts a `SparseTensor` to a dense tensor (`tf.sparse_tensor_to_dense`).

    Args:
      sp_input: a `SparseTensor` (or `SparseTensorValue`).
      default_value: the value of the positions not in `sp_input` (0 or "" by default).
      validate_indices: check that the indices are sorted and not repeated.
      name: name of the op.

    Returns:
      A dense tensor of shape `sp_input.dense_shape`.

    Raises:
      TypeError: if `sp_input` is not sparse.
      InvalidArgumentError (at run time): for out-of-bounds, unsorted or repeated indices.
    """
    from flowloom.ops.array import array_ops

    if isinstance(sp_input, SparseTensorValue):
        sp_input = SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    if default_value is None:
        default_value = array_ops.zeros([], dtype=sp_input.dtype)
    return apply_op("SparseToDense", (sp_input.indices, sp_input.dense_shape, sp_input.values,
                                      default_value), name=name,
                    validate_indices=validate_indices).outputs[0]
