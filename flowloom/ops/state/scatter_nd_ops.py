"""N-d scatter updates: ScatterNd{Update,Add,Sub} on variables (and their Resource forms),
ScatterNdNonAliasingAdd and TensorScatter{Update,Add,Sub} on tensors.

`indices` has shape [..., K]: each row of its last dimension indexes the first K dimensions
of the target; `updates` has shape indices.shape[:-1] + target.shape[K:]. Repeated indices
apply one after another (adds sum up; for updates the last one wins).
"""

import numpy as np

from flowloom.framework import errors, tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop


def _shape_str(shape):
    return "[" + ",".join(map(str, shape)) + "]"


def check_empty_output(shape, indices, updates):
    """TF's run-time check: an empty output takes no indices or updates."""
    if int(np.prod(shape, dtype=np.int64)) == 0 and (np.size(indices) or np.size(updates)):
        raise errors.InvalidArgumentError(
            None, None, "Indices and updates specified for empty output shape")


def check_update_shapes(target, indices, updates):
    """TF's ScatterNdUpdateShape at build time (ValueError naming the mismatching parts)."""
    target, indices, updates = (tensor_shape.as_shape(s) for s in (target, indices, updates))
    if target.num_elements() == 0 and ((indices.num_elements() or 0) > 0 or
                                       (updates.num_elements() or 0) > 0):
        raise ValueError("Indices and updates specified for empty output shape")
    if indices.ndims is None or updates.ndims is None or indices[-1].value is None:
        return
    outer = indices.ndims - 1
    if updates.ndims < outer or not indices[:outer].is_compatible_with(updates[:outer]):
        raise ValueError(f"The outer {outer} dimensions of indices.shape={indices} must match "
                         f"the outer {outer} dimensions of updates.shape={updates}")
    if target.ndims is None:
        return
    depth = indices[-1].value
    inner = target[depth:]
    if not inner.is_compatible_with(updates[outer:]):
        raise ValueError(f"The inner {target.ndims - depth} dimensions of input.shape={target} "
                         f"must match the inner {updates.ndims - outer} dimensions of "
                         f"updates.shape={updates}")


def _flat_indices(indices, shape):
    indices = np.asarray(indices)
    depth = indices.shape[-1]
    flat = indices.reshape(int(np.prod(indices.shape[:-1], dtype=np.int64)), depth)
    bad = np.any((flat < 0) | (flat >= np.array(shape[:depth], dtype=np.int64)), axis=1)
    if bad.any():
        k = int(np.argmax(bad))
        raise errors.InvalidArgumentError(
            None, None, f"indices[{k}] = {_shape_str(flat[k])} does not index into shape "
            f"{_shape_str(shape)}")
    return flat, depth


def _apply(kind, target, indices, updates):
    """Applies the scatter `kind` ("update", "add", "sub") to the array `target` in place."""
    if target.ndim == 0:
        raise errors.InvalidArgumentError(None, None, "Output must be at least 1-D, got "
                                          "shape: []")
    check_empty_output(target.shape, indices, updates)
    if target.size == 0:
        return target
    flat, depth = _flat_indices(indices, target.shape)
    rows = np.asarray(updates).reshape((flat.shape[0],) + target.shape[depth:])
    where = tuple(flat.T)
    if kind == "update":
        for i in range(flat.shape[0]):  # in order: the last of repeated indices wins
            target[tuple(flat[i])] = rows[i]
    elif kind == "add":
        np.add.at(target, where, rows)
    else:
        np.subtract.at(target, where, rows)
    return target


def _define(kind):
    name = "ScatterNd" + kind.capitalize()
    ref_op = defop(name, inputs=["ref: Ref(T)", "indices: Tindices", "updates: T"],
                   outputs=["output_ref: Ref(T)"],
                   attrs={"use_locking": kind == "update"}, stateful=True)

    @ref_op.shape
    def _(op):
        ref, indices, updates = op.inputs
        check_update_shapes(ref.shape, indices.shape, updates.shape)
        return ref.shape

    @ref_op.kernel
    def _(xp, ref, indices, updates, *, use_locking):
        with ref.lock:
            if ref.value is None:
                raise errors.FailedPreconditionError(
                    None, None, f"Attempting to use uninitialized value {ref.name}")
            if not ref.value.flags.writeable:
                ref.value = ref.value.copy()
            _apply(kind, ref.value, indices, updates)
        return ref

    ref_op.no_gradient()

    res_op = defop("Resource" + name, inputs=["ref: resource", "indices: Tindices",
                                             "updates: T"], attrs={"use_locking": True},
                   stateful=True)
    res_op.shape(lambda op: [])

    @res_op.kernel
    def _(xp, ref, indices, updates, *, use_locking):
        from flowloom.ops.state.resource_variable_ops import copy_on_write

        with ref.lock:
            if ref.value is None:
                raise errors.FailedPreconditionError(
                    None, None, f"Error while reading resource variable {ref.name}: it is "
                    "uninitialized")
            copy_on_write(ref)
            _apply(kind, ref.value, indices, updates)

    res_op.no_gradient()


for _kind in ("update", "add", "sub"):
    _define(_kind)


def _scatter_nd_variable(kind, ref, indices, updates, use_locking, name):
    from flowloom.ops.state import resource_variable_ops as rvo
    from flowloom.resource_variable import is_resource_target, resource_handle
    from flowloom.framework.graph import control_dependencies
    from flowloom.framework.ops import convert_to_tensor

    op_name = "ScatterNd" + kind.capitalize()
    if is_resource_target(ref):
        handle = resource_handle(ref)
        dtype = rvo.handle_dtype(handle)
        updates = convert_to_tensor(updates, dtype=dtype)
        indices = convert_to_tensor(indices)
        check_update_shapes(rvo.handle_shape(handle), indices.shape, updates.shape)
        op = apply_op("Resource" + op_name, (handle, indices, updates), name=name,
                      use_locking=bool(use_locking))
        with control_dependencies([op]):
            return rvo.read_variable_op(handle, dtype)
    target = ref._ref() if hasattr(ref, "_ref") else ref
    return apply_op(op_name, (target, indices, updates), name=name,
                    use_locking=bool(use_locking)).outputs[0]


def scatter_nd_update(ref, indices, updates, use_locking=True, name=None):
    """Assigns `updates` at the n-d `indices` of the variable `ref` (op ScatterNdUpdate, or
    ResourceScatterNdUpdate for a resource variable); returns the variable after it.

    Raises:
      ValueError: If the shapes of `indices` and `updates` do not fit the variable.
    """
    return _scatter_nd_variable("update", ref, indices, updates, use_locking, name)


def scatter_nd_add(ref, indices, updates, use_locking=False, name=None):
    """Adds `updates` at the n-d `indices` of the variable `ref` (op ScatterNdAdd)."""
    return _scatter_nd_variable("add", ref, indices, updates, use_locking, name)


def scatter_nd_sub(ref, indices, updates, use_locking=False, name=None):
    """Subtracts `updates` at the n-d `indices` of the variable `ref` (op ScatterNdSub)."""
    return _scatter_nd_variable("sub", ref, indices, updates, use_locking, name)


# -- on tensors --------------------------------------------------------------------------------------
def _tensor_shape(op):
    tensor, indices, updates = op.inputs
    check_update_shapes(tensor.shape, indices.shape, updates.shape)
    return tensor.shape


def _tensor_kernel(kind):
    def kernel(xp, tensor, indices, updates):
        return _apply(kind, np.array(tensor, copy=True), indices, updates)
    return kernel


def _gather_nd(grad, indices):
    from flowloom.ops.array.gather_ops import gather_nd

    return gather_nd(grad, indices)


ScatterNdNonAliasingAdd = defop("ScatterNdNonAliasingAdd",
                                inputs=["input: T", "indices: Tindices", "updates: T"],
                                outputs=["output: T"])
ScatterNdNonAliasingAdd.shape(_tensor_shape)
ScatterNdNonAliasingAdd.kernel(_tensor_kernel("add"))
ScatterNdNonAliasingAdd.gradient(lambda op, grad: [grad, None, _gather_nd(grad, op.inputs[1])])

TensorScatterAdd = defop("TensorScatterAdd", inputs=["tensor: T", "indices: Tindices",
                                                     "updates: T"], outputs=["output: T"])
TensorScatterAdd.shape(_tensor_shape)
TensorScatterAdd.kernel(_tensor_kernel("add"))
TensorScatterAdd.gradient(lambda op, grad: [grad, None, _gather_nd(grad, op.inputs[1])])

TensorScatterSub = defop("TensorScatterSub", inputs=["tensor: T", "indices: Tindices",
                                                     "updates: T"], outputs=["output: T"])
TensorScatterSub.shape(_tensor_shape)
TensorScatterSub.kernel(_tensor_kernel("sub"))
TensorScatterSub.gradient(lambda op, grad: [grad, None, -_gather_nd(grad, op.inputs[1])])

TensorScatterUpdate = defop("TensorScatterUpdate", inputs=["tensor: T", "indices: Tindices",
                                                           "updates: T"], outputs=["output: T"])
TensorScatterUpdate.shape(_tensor_shape)
TensorScatterUpdate.kernel(_tensor_kernel("update"))


@TensorScatterUpdate.gradient
def _(op, grad):
    from flowloom.ops.array.array_ops import zeros_like

    indices, updates = op.inputs[1], op.inputs[2]
    tensor_grad = tensor_scatter_update(grad, indices, zeros_like(updates))
    return [tensor_grad, None, _gather_nd(grad, indices)]


def scatter_nd_non_aliasing_add(input, indices, updates, name=None):  # noqa: A002
    """`input` plus `updates` added at the n-d `indices` (a new tensor)."""
    return apply_op("ScatterNdNonAliasingAdd", (input, indices, updates), name=name).outputs[0]


def tensor_scatter_add(tensor, indices, updates, name=None):
    """`tensor` with `updates` added at the n-d `indices` (a new tensor)."""
    return apply_op("TensorScatterAdd", (tensor, indices, updates), name=name).outputs[0]


def tensor_scatter_sub(tensor, indices, updates, name=None):
    """`tensor` with `updates` subtracted at the n-d `indices` (a new tensor)."""
    return apply_op("TensorScatterSub", (tensor, indices, updates), name=name).outputs[0]


def tensor_scatter_update(tensor, indices, updates, name=None):
    """`tensor` with the n-d `indices` replaced by `updates` (a new tensor)."""
    return apply_op("TensorScatterUpdate", (tensor, indices, updates), name=name).outputs[0]
