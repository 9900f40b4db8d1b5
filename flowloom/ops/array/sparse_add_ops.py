"""Sparse addition: SparseAdd (sparse + sparse), SparseTensorDenseAdd (sparse + dense),
SparseAddGrad, and `tf.sparse_add` / `tf.sparse.add` (TF 1.15's).

SparseAdd merges two SparseTensors of one dense shape whose indices are in row-major order
(as TF assumes): entries at the same index are summed, and a sum whose magnitude is below
`thresh` is dropped; the others are kept as they are.
"""

import numpy as np

from flowloom.framework import dtypes, errors, tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.sparse_tensor import SparseTensor, SparseTensorValue
from flowloom.framework.tensor_conversion import convert_to_tensor

SparseAdd = defop("SparseAdd", inputs=["a_indices: int64", "a_values: T", "a_shape: int64",
                                       "b_indices: int64", "b_values: T", "b_shape: int64",
                                       "thresh: Treal"],
                  outputs=["sum_indices: int64", "sum_values: T", "sum_shape: int64"])


@SparseAdd.shape
def _(op):
    a_indices, a_values, a_shape = (t._shape for t in op._inputs[:3])
    rank = a_shape[0].value if a_shape.ndims == 1 else None
    if rank is None and a_indices.ndims == 2:
        rank = a_indices[1].value
    return [tensor_shape.TensorShape([None, rank]), tensor_shape.TensorShape([None]),
            tensor_shape.TensorShape([rank])]


def _shape_str(v):
    return "[" + ",".join(str(int(d)) for d in np.ravel(v)) + "]"


@SparseAdd.kernel
def _(xp, a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    a_indices, b_indices = np.asarray(a_indices), np.asarray(b_indices)
    for name, ind, val in (("a", a_indices, a_values), ("b", b_indices, b_values)):
        if ind.ndim != 2 or np.ndim(val) != 1 or ind.shape[0] != np.size(val):
            raise errors.InvalidArgumentError(
                None, None, f"Input indices should be a matrix and values a vector of the same "
                f"length, but received shapes: {_shape_str(np.shape(ind))} and "
                f"{_shape_str(np.shape(val))} ({name})")
    if np.size(a_shape) != np.size(b_shape):
        raise errors.InvalidArgumentError(
            None, None, f"Operands do not have the same ranks; got shapes: "
            f"{_shape_str(a_shape)} and {_shape_str(b_shape)}")
    for i, (x, y) in enumerate(zip(np.ravel(a_shape), np.ravel(b_shape))):
        if x != y:
            raise errors.InvalidArgumentError(
                None, None, f"Operands' shapes do not match: got {int(x)} and {int(y)} for "
                f"dimension {i}")
    indices, values = [], []
    i = j = 0
    na, nb = len(a_indices), len(b_indices)
    while i < na or j < nb:
        if j >= nb or (i < na and tuple(a_indices[i]) < tuple(b_indices[j])):
            indices.append(a_indices[i])
            values.append(a_values[i])
            i += 1
        elif i >= na or tuple(b_indices[j]) < tuple(a_indices[i]):
            indices.append(b_indices[j])
            values.append(b_values[j])
            j += 1
        else:
            total = a_values[i] + b_values[j]
            if np.abs(total) >= thresh:
                indices.append(a_indices[i])
                values.append(total)
            i += 1
            j += 1
    rank = np.size(a_shape)
    out_indices = np.array(indices, dtype=np.int64).reshape(len(indices), rank)
    out_values = np.array(values, dtype=np.asarray(a_values).dtype).reshape(len(values))
    return [out_indices, out_values, np.array(a_shape, dtype=np.int64, copy=True)]


SparseAddGrad = defop("SparseAddGrad", inputs=["backprop_val_grad: T", "a_indices: int64",
                                               "b_indices: int64", "sum_indices: int64"],
                      outputs=["a_val_grad: T", "b_val_grad: T"])


@SparseAddGrad.shape
def _(op):
    return [tensor_shape.TensorShape([op._inputs[k]._shape[0].value
                                      if op._inputs[k]._shape.ndims else None])
            for k in (1, 2)]


@SparseAddGrad.kernel
def _(xp, grad, a_indices, b_indices, sum_indices):
    where = {tuple(int(v) for v in row): k for k, row in enumerate(np.asarray(sum_indices))}
    grad = np.asarray(grad)

    def routed(indices):
        out = np.zeros(len(indices), dtype=grad.dtype)
        for n, row in enumerate(np.asarray(indices)):
            k = where.get(tuple(int(v) for v in row))
            if k is not None:
                out[n] = grad[k]
        return out
    return [routed(a_indices), routed(b_indices)]


SparseAddGrad.no_gradient()


@SparseAdd.gradient
def _(op, *grads):
    a_grad, b_grad = apply_op("SparseAddGrad", (grads[1], op._inputs[0], op._inputs[3],
                                                 op._outputs[0])).outputs
    a_grad.set_shape(op._inputs[1].get_shape())
    b_grad.set_shape(op._inputs[4].get_shape())
    return [None, a_grad, None, None, b_grad, None, None]


SparseTensorDenseAdd = defop("SparseTensorDenseAdd",
                             inputs=["a_indices: Tindices", "a_values: T", "a_shape: Tindices",
                                     "b: T"], outputs=["output: T"],
                             allowed_types={"Tindices": (dtypes.int32, dtypes.int64)})
SparseTensorDenseAdd.shape(lambda op: op._inputs[3]._shape)


@SparseTensorDenseAdd.kernel
def _(xp, a_indices, a_values, a_shape, b):
    if tuple(int(d) for d in np.ravel(a_shape)) != np.shape(b):
        raise errors.InvalidArgumentError(
            None, None, f"Dimension mismatch: expected a.shape == b.shape: "
            f"{_shape_str(a_shape)} vs. {_shape_str(np.shape(b))}")
    out = np.array(b, copy=True)
    np.add.at(out, tuple(np.asarray(a_indices, dtype=np.int64).T), a_values)
    return out


@SparseTensorDenseAdd.gradient
def _(op, grad):
    from flowloom.ops.array.gather_ops import gather_nd

    return [None, gather_nd(grad, op._inputs[0]), None, grad]


def _as_sparse(x):
    if isinstance(x, SparseTensorValue):
        return SparseTensor.from_value(x)
    return x


def sparse_add(a, b, threshold=None, thresh=None):
    """Adds two tensors, at least one of them a SparseTensor (`tf.sparse.add`).

    Two SparseTensors give a SparseTensor (SparseAdd: sums with magnitude below `threshold`
    are dropped); a SparseTensor and a dense tensor give a dense tensor
    (SparseTensorDenseAdd).

    Args:
      a, b: SparseTensors (or SparseTensorValues) or one of them a dense tensor.
      threshold: the smallest magnitude a summed value keeps (default 0).
      thresh: the deprecated name of `threshold`.

    Raises:
      TypeError: when neither input is sparse.
    """
    if threshold is not None and thresh is not None:
        raise ValueError("Cannot specify both 'threshold' and 'thresh'")
    threshold = thresh if threshold is None else threshold
    threshold = 0 if threshold is None else threshold
    sparse = (SparseTensor, SparseTensorValue)
    if not any(isinstance(x, sparse) for x in (a, b)):
        raise TypeError("At least one input should be SparseTensor; do you mean to use "
                        "tf.add()?")
    if all(isinstance(x, sparse) for x in (a, b)):
        a, b = _as_sparse(a), _as_sparse(b)
        real = a.values.dtype.real_dtype.base_dtype
        threshold = convert_to_tensor(threshold, dtype=real, name="threshold")
        ind, val, shape = apply_op("SparseAdd", (a.indices, a.values, a.dense_shape,
                                                 b.indices, b.values, b.dense_shape,
                                                 threshold)).outputs
        a.get_shape().assert_is_compatible_with(b.get_shape())
        static = a.get_shape().merge_with(b.get_shape())
        if static.is_fully_defined():
            shape = static.as_list()
        return SparseTensor(ind, val, shape)
    if isinstance(b, sparse):
        a, b = b, a
    a = _as_sparse(a)
    return apply_op("SparseTensorDenseAdd", (a.indices, a.values, a.dense_shape, b)).outputs[0]
