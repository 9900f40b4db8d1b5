"""Sliced assignment to variables: StridedSliceAssign (ref variables) and
ResourceStridedSliceAssign (resource variables), TF's op types behind `v[1:3, ::2].assign(x)`.

A slice made by indexing (`var[spec]`) has an `assign` attribute that builds the update of
that region of the variable it was taken from (TF attaches the same closure to its
StridedSlice output). The value must
have the slice's shape exactly (TF: UnimplementedError, no broadcasting yet).
"""

import functools
import weakref

import numpy as np

from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.ops import Tensor, convert_to_tensor

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
_ATTRS = {m: 0 for m in _MASKS}
# slice tensor -> (variable or None, begin, end, strides, masks, parent name)
_SLICES = weakref.WeakKeyDictionary()


def _slice_assign(tensor, value, name=None):
    """Assigns `value` to the slice `tensor` of its variable (`tensor.assign`).

    Raises:
      ValueError: if the slice was not taken from a variable.
    """
    var, begin, end, strides, masks, parent_name = _SLICES[tensor]
    if var is None:
        raise ValueError("Sliced assignment is only supported for variables")
    if name is None:
        name = parent_name + "_assign"
    return var._strided_slice_assign(begin=begin, end=end, strides=strides, value=value,
                                     name=name, **masks)


def _assign_attribute(tensor):
    # Only a slice made by indexing has `assign` (hasattr is False for other tensors, as TF).
    if tensor not in _SLICES:
        raise AttributeError("'Tensor' object has no attribute 'assign'")
    return functools.partial(_slice_assign, tensor)


Tensor.assign = property(_assign_attribute)


def is_slice(tensor):
    """Whether `tensor` is a slice made by indexing (it has `assign`)."""
    return isinstance(tensor, Tensor) and tensor in _SLICES


def mark_slice(tensor, var, begin, end, strides, masks, parent_name):
    """Remembers the slice the StridedSlice output `tensor` took (for `tensor.assign`)."""
    _SLICES[tensor] = (var, begin, end, strides, dict(masks), parent_name)
    return tensor


def _assign_region(ref, begin, end, strides, value, masks):
    """ref.value[slice] = value, TF's checks first (the caller holds the lock)."""
    from flowloom.ops.array.slicing_ops import _python_index

    old = ref.value
    if old is None:
        raise errors.FailedPreconditionError(
            None, None, f"Attempting to use uninitialized value {ref.name}")
    for i, s in enumerate(strides):
        if int(s) == 0:
            raise errors.InvalidArgumentError(None, None, f"strides[{i}] must be non-zero")
    idx = _python_index(old.ndim, begin, end, strides, **masks)
    target = old[idx].shape
    if int(np.prod(target)) == 0:
        return
    value = np.asarray(value)
    if value.shape != target:
        raise errors.UnimplementedError(
            None, None, f"sliced l-value shape [{','.join(map(str, target))}] does not match "
            f"r-value shape [{','.join(map(str, value.shape))}]. Automatic broadcasting not yet "
            "implemented.")
    if not old.flags.writeable:
        old = ref.value = old.copy()
    old[idx] = value


StridedSliceAssign = defop(
    "StridedSliceAssign",
    inputs=["ref: Ref(T)", "begin: Index", "end: Index", "strides: Index", "value: T"],
    outputs=["output_ref: Ref(T)"], attrs=_ATTRS, stateful=True)
StridedSliceAssign.shape(lambda op: op._inputs[0]._shape)
StridedSliceAssign.no_gradient()


@StridedSliceAssign.kernel
def _(xp, ref, begin, end, strides, value, *, begin_mask, end_mask, ellipsis_mask,
      new_axis_mask, shrink_axis_mask):
    masks = dict(begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                 new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)
    with ref.lock:
        _assign_region(ref, begin, end, strides, value, masks)
    return ref


ResourceStridedSliceAssign = defop(
    "ResourceStridedSliceAssign",
    inputs=["ref: resource", "begin: Index", "end: Index", "strides: Index", "value: T"],
    attrs=_ATTRS, stateful=True)
ResourceStridedSliceAssign.shape(lambda op: [])
ResourceStridedSliceAssign.no_gradient()


@ResourceStridedSliceAssign.kernel
def _(xp, ref, begin, end, strides, value, *, begin_mask, end_mask, ellipsis_mask,
      new_axis_mask, shrink_axis_mask, ctx):
    from flowloom.ops.state.resource_variable_ops import _value, copy_on_write

    masks = dict(begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                 new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)
    with ref.lock:
        _value(ref, ctx)
        copy_on_write(ref)
        _assign_region(ref, begin, end, strides, value, masks)


def strided_slice_assign(ref, begin, end, strides, value, name=None, **masks):
    """ref[slice] = value for a ref variable's reference; returns the reference after it."""
    return apply_op("StridedSliceAssign", (ref, begin, end, strides, value), name=name,
                    **masks).outputs[0]


def resource_strided_slice_assign(handle, begin, end, strides, value, name=None, **masks):
    """ref[slice] = value for the variable behind `handle` (the Operation)."""
    return apply_op("ResourceStridedSliceAssign", (handle, begin, end, strides, value),
                    name=name, **masks)


def value_for(variable, value):
    """`value` as a tensor of the variable's dtype (ValueError for another dtype, as TF)."""
    return convert_to_tensor(value, dtype=variable.dtype.base_dtype)
