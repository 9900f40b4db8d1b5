"""Sorted search: LowerBound, UpperBound and `tf.searchsorted`.

Both ops take a 2-D `sorted_inputs` (each row sorted) and a 2-D `values` with as many rows,
and give, per row, the index in that row where each value would be inserted (before equal
elements for LowerBound, after them for UpperBound), as np.searchsorted's sides do.
"""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor


def _bound_shape(op):
    seq, values = op.inputs[0].shape, op.inputs[1].shape
    seq.with_rank(2)
    values = values.with_rank(2)
    if seq.dims is not None and values.dims is not None:
        seq[0].assert_is_compatible_with(values[0])
    return values


def _bound_kernel(side):
    def kernel(xp, sorted_inputs, values, *, out_type):
        if sorted_inputs.ndim != 2 or values.ndim != 2:
            raise errors.InvalidArgumentError(
                None, None, "sorted input argument must be a matrix, and values must be a "
                f"matrix: got shapes {list(sorted_inputs.shape)} and {list(values.shape)}")
        if sorted_inputs.shape[0] != values.shape[0]:
            raise errors.InvalidArgumentError(
                None, None, "Leading dim_size of both tensors must match.")
        out = np.empty(values.shape, dtype=dtypes.as_dtype(out_type).as_numpy_dtype)
        for row in range(values.shape[0]):
            out[row] = np.searchsorted(sorted_inputs[row], values[row], side=side)
        return out
    return kernel


for _type, _side in (("LowerBound", "left"), ("UpperBound", "right")):
    _od = defop(_type, inputs=["sorted_inputs: T", "values: T"], outputs=["output: out_type"],
                attrs={"out_type": dtypes.int32})
    _od.shape(_bound_shape)
    _od.kernel(_bound_kernel(_side))
    _od.no_gradient()


def lower_bound(sorted_inputs, values, out_type=dtypes.int32, name=None):
    """Per row, the first index at which each value could be inserted (op LowerBound)."""
    return apply_op("LowerBound", (sorted_inputs, values), name=name,
                    out_type=dtypes.as_dtype(out_type)).outputs[0]


def upper_bound(sorted_inputs, values, out_type=dtypes.int32, name=None):
    """Per row, the last index at which each value could be inserted (op UpperBound)."""
    return apply_op("UpperBound", (sorted_inputs, values), name=name,
                    out_type=dtypes.as_dtype(out_type)).outputs[0]


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """Searches for where `values` belong in the innermost dimension of `sorted_sequence`.

    Args:
      sorted_sequence: N-D `Tensor`, sorted along its innermost dimension.
      values: N-D `Tensor` with the same leading N-1 dimensions.
      side: "left" (LowerBound) or "right" (UpperBound).
      out_type: int32 or int64 output.
      name: A name for this operation (optional).

    Returns:
      An N-D `Tensor` shaped like `values`: indices in the innermost dimension.

    Raises:
      ValueError: If `side` is neither "left" nor "right".
    """
    from flowloom.ops.array import array_ops

    if side not in ("left", "right"):
        raise ValueError(f"side must be either 'right' or 'left'.  Saw: {side}.")
    with name_scope(name, "searchsorted", [sorted_sequence, values]) as scope:
        sorted_sequence = convert_to_tensor(sorted_sequence, name="sorted_sequence")
        values = convert_to_tensor(values, name="values")
        seq_2d = array_ops.reshape(sorted_sequence,
                                   [-1, array_ops.shape(sorted_sequence)[-1]])
        values_2d = array_ops.reshape(values, [-1, array_ops.shape(values)[-1]])
        fn = upper_bound if side == "right" else lower_bound
        out = fn(seq_2d, values_2d, out_type)
        result = array_ops.reshape(out, array_ops.shape(values), name=scope)
        if values.shape.ndims is not None:
            result.set_shape(values.shape)
        return result

