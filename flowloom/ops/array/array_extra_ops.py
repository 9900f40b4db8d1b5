"""ConjugateTranspose, GuaranteeConst and Snapshot (TF's op types), and `tf.repeat` built as
TF 1.15 builds it (tile + sequence_mask + boolean_mask)."""

import numpy as np

from flowloom.framework import common_shapes, dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor

ConjugateTranspose = defop("ConjugateTranspose", inputs=["x: T", "perm: Tperm"],
                           outputs=["y: T"], attrs={"Tperm": dtypes.int32})


@ConjugateTranspose.shape
def _(op):
    from flowloom.framework import op_def

    return op_def.get("Transpose").shape_fn(op)


@ConjugateTranspose.kernel
def _(xp, x, perm):
    return xp.conj(xp.transpose(x, tuple(int(i) for i in perm)))


@ConjugateTranspose.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops

    return [conjugate_transpose(grad, array_ops.invert_permutation(op._inputs[1])), None]


def conjugate_transpose(x, perm, name=None):
    """The transpose of `x` by `perm`, conjugated."""
    return apply_op("ConjugateTranspose", (x, perm), name=name).outputs[0]


GuaranteeConst = defop("GuaranteeConst", inputs=["input: T"], outputs=["output: T"])
GuaranteeConst.shape(common_shapes.unchanged)


@GuaranteeConst.kernel
def _(xp, x, *, T):
    if T == dtypes.resource:
        raise errors.InvalidArgumentError(
            None, None, "Input tensor cannot be a resource variable handle.")
    return x


def guarantee_const(input, name=None):  # noqa: A002
    """`input`, promising the runtime that its value is constant during the session's
    lifetime (it may not be a resource variable handle).

    Raises:
      InvalidArgumentError (at run time): if `input` is a resource handle.
    """
    return apply_op("GuaranteeConst", (input,), name=name).outputs[0]


Snapshot = defop("Snapshot", inputs=["input: T"], outputs=["output: T"])
Snapshot.shape(common_shapes.unchanged)


@Snapshot.kernel
def _(xp, x):
    return xp.array(x, copy=True)


def snapshot(input, name=None):  # noqa: A002
    """A copy of `input`'s current value."""
    return apply_op("Snapshot", (input,), name=name).outputs[0]


def _with_nonzero_rank(data):
    from flowloom.ops.array import array_ops

    if data.shape.ndims is not None:
        return array_ops.stack([data]) if data.shape.ndims == 0 else data
    data_shape = array_ops.shape(data)
    data_ndims = array_ops.rank(data)
    return array_ops.reshape(data, array_ops.concat([[1], data_shape], axis=0)[-data_ndims:])


def _tile_one_dimension(data, axis, multiple):
    from flowloom.ops.array import array_ops

    if data.shape.ndims is not None:
        multiples = [1] * data.shape.ndims
        multiples[axis] = multiple
    else:
        ones_value = array_ops.ones(array_ops.rank(data), dtypes.int32)
        multiples = array_ops.concat([ones_value[:axis], [multiple], ones_value[axis + 1:]],
                                     axis=0)
    return array_ops.tile(data, multiples)


def repeat_with_axis(data, repeats, axis, name=None):
    """Repeats the slices of `data` along `axis`: slice i `repeats[i]` times (a scalar
    `repeats` repeats each slice that many times).

    Raises:
      TypeError: if `axis` is not an int.
      ValueError: if `repeats` has rank > 1 or does not fit `data`'s axis.
    """
    from flowloom.ops.array import array_ops, broadcast_ops
    from flowloom.ops.math import math_ops, reduction_ops

    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"axis must be an int; got {type(axis).__name__}")
    with name_scope(name, "Repeat", [data, repeats]):
        data = convert_to_tensor(data, name="data")
        repeats = convert_to_tensor(repeats, name="repeats")
        if not repeats.dtype.is_integer:
            repeats = math_ops.cast(repeats, dtypes.int32)
        repeats.shape.with_rank_at_most(1)
        data = _with_nonzero_rank(data)
        data_shape = array_ops.shape(data)
        ndims = data.shape.ndims
        if ndims is not None and not -ndims <= axis < ndims:
            raise ValueError(f"axis={axis} out of bounds: expected {-ndims}<=axis<{ndims}")
        if axis < 0:
            if ndims is None:
                raise ValueError("axis may only be negative if ndims is statically known.")
            axis += ndims
        if repeats.shape.ndims == 1:
            data.shape.dims[axis].assert_is_compatible_with(repeats.shape[0])
        if repeats.shape.ndims == 0:
            expanded = array_ops.expand_dims(data, axis + 1)
            tiled = _tile_one_dimension(expanded, axis + 1, repeats)
            result_shape = array_ops.concat([data_shape[:axis], [-1], data_shape[axis + 1:]],
                                            axis=0)
            return array_ops.reshape(tiled, result_shape)
        if repeats.shape.ndims != axis + 1:
            repeats_shape = array_ops.shape(repeats)
            repeats_ndims = array_ops.rank(repeats)
            broadcast_shape = array_ops.concat(
                [data_shape[:axis + 1 - repeats_ndims], repeats_shape], axis=0)
            repeats = broadcast_ops.broadcast_to(repeats, broadcast_shape)
            repeats.set_shape([None] * (axis + 1))
        max_repeat = math_ops.maximum(
            0, reduction_ops.reduce_max(repeats, list(range(repeats.shape.ndims))))
        mask = array_ops.sequence_mask(repeats, max_repeat)
        expanded = array_ops.expand_dims(data, axis + 1)
        tiled = _tile_one_dimension(expanded, axis + 1, max_repeat)
        masked = array_ops.boolean_mask(tiled, mask)
        if axis == 0:
            result = masked
        else:
            result_shape = array_ops.concat([data_shape[:axis], [-1], data_shape[axis + 1:]],
                                            axis=0)
            result = array_ops.reshape(masked, result_shape)
        if data.shape.ndims is not None:
            new_axis_size = 0 if repeats.shape[0] == 0 else None
            result.set_shape(data.shape[:axis].concatenate([new_axis_size]).concatenate(
                data.shape[axis + 1:]))
        return result


def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Repeats the elements of `input` (flattened when `axis` is None).

    Example:
      tf.repeat([[1, 2], [3, 4]], repeats=[2, 3], axis=0)
      # [[1, 2], [1, 2], [3, 4], [3, 4], [3, 4]]
    """
    from flowloom.ops.array import array_ops

    if axis is None:
        input = array_ops.reshape(input, [-1])
        axis = 0
    return repeat_with_axis(input, repeats, axis, name)
