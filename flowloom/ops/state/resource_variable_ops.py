"""Resource variable ops: VarHandleOp, ReadVariableOp, AssignVariableOp and friends.

A resource variable is a scalar `resource` handle (VarHandleOp) naming a buffer the session
keeps, keyed by (container, shared_name) like a VariableV2's. The handle's value is that
buffer's `Ref`. Reads (ReadVariableOp, ResourceGather) return the stored array without a
copy; every update stores a new array (copy on write) under the variable's lock, so a value
read earlier in a run is a snapshot, as TF's resource variables give. Updates have no
outputs; the Python API (flowloom/resource_variable.py) reads after them where TF does.
"""

import numpy as np

from flowloom.framework import dtypes, errors, tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.runtime.executor import Ref

# Ops that pass a resource handle through unchanged (the variable's shape follows them).
_FORWARDING = frozenset(["Identity", "Enter", "Switch", "Merge", "RefIdentity", "Exit"])


def handle_shape(handle):
    """The static shape of the variable behind the `resource` tensor `handle`, if known."""
    seen = 0
    t = handle
    while t is not None and seen < 64:
        op = t.op
        if op.type == "VarHandleOp":
            return tensor_shape.as_shape(op.get_attr("shape"))
        if op.type not in _FORWARDING or not op.inputs:
            break
        t = op.inputs[0]
        seen += 1
    return tensor_shape.unknown_shape()


def handle_dtype(handle):
    """The dtype of the variable behind the `resource` tensor `handle`.

    Raises:
      ValueError: When `handle` does not come from a VarHandleOp.
    """
    t = handle
    for _ in range(64):
        op = t.op
        if op.type == "VarHandleOp":
            return dtypes.as_dtype(op.get_attr("dtype"))
        if op.type not in _FORWARDING or not op.inputs:
            break
        t = op.inputs[0]
    raise ValueError(f"Cannot find the variable dtype of resource tensor {handle.name} (it does "
                     "not come from a VarHandleOp)")


def _not_found(ref, ctx):
    return errors.FailedPreconditionError(
        None, None, f"Error while reading resource variable {ref.name} from Container: "
        "localhost. This could mean that the variable was uninitialized. Not found: Resource "
        f"localhost/{ref.name} does not exist.")


def _value(ref, ctx):
    v = ref.value
    if v is None:
        raise _not_found(ref, ctx)
    return v


def _check_dtype(ref, value, dtype, what):
    want = dtypes.as_dtype(dtype).as_numpy_dtype
    if ref.value is not None and ref.value.dtype != np.dtype(want):
        raise errors.InvalidArgumentError(
            None, None, f"Trying to {what} variable with wrong dtype. Expected "
            f"{dtypes.as_dtype(ref.value.dtype).name} got {dtypes.as_dtype(dtype).name}")


def copy_on_write(ref):
    """Gives `ref` a private copy of its array before an in-place update (caller holds the
    lock): arrays handed out by earlier reads keep their values."""
    if ref.value is not None:
        ref.value = np.array(ref.value, copy=True)


# -- the handle ---------------------------------------------------------------------------------
VarHandleOp = defop("VarHandleOp", outputs=["resource: resource"],
                    attrs={"container": "", "shared_name": "", "dtype": None, "shape": None},
                    stateful=True)
VarHandleOp.shape(lambda op: tensor_shape.TensorShape([]))


@VarHandleOp.kernel
def _(xp, *, container, shared_name, dtype, shape, ctx):
    key = (container, shared_name or ctx.op._name)
    ref = ctx.resources.get(key)
    if ref is None:
        ref = ctx.resources.setdefault(key, Ref(shared_name or ctx.op._name))
    return ref


VarHandleOp.no_gradient()


def var_handle_op(dtype, shape, container="", shared_name="", name=None):
    """A `resource` handle to the variable `shared_name` (op type VarHandleOp)."""
    return apply_op("VarHandleOp", (), name=name, dtype=dtypes.as_dtype(dtype).base_dtype,
                    shape=tensor_shape.as_shape(shape), container=container,
                    shared_name=shared_name).outputs[0]


VarIsInitializedOp = defop("VarIsInitializedOp", inputs=["resource: resource"],
                           outputs=["is_initialized: bool"], stateful=True)
VarIsInitializedOp.shape(lambda op: tensor_shape.TensorShape([]))
VarIsInitializedOp.kernel(lambda xp, ref: np.array(ref.value is not None))
VarIsInitializedOp.no_gradient()


def var_is_initialized_op(resource, name=None):
    """True when the variable behind `resource` holds a value."""
    return apply_op("VarIsInitializedOp", (resource,), name=name).outputs[0]


VariableShape = defop("VariableShape", inputs=["input: resource"], outputs=["output: out_type"],
                      attrs={"out_type": dtypes.int32}, stateful=True)
VariableShape.shape(lambda op: tensor_shape.TensorShape([handle_shape(op.inputs[0]).ndims]))


@VariableShape.kernel
def _(xp, ref, *, out_type, ctx):
    return np.array(_value(ref, ctx).shape, dtype=dtypes.as_dtype(out_type).as_numpy_dtype)


VariableShape.no_gradient()


def variable_shape(resource, out_type=dtypes.int32, name=None):
    """The shape of the variable behind `resource`, as a 1-D tensor."""
    return apply_op("VariableShape", (resource,), name=name, out_type=out_type).outputs[0]


# -- reads ---------------------------------------------------------------------------------------
ReadVariableOp = defop("ReadVariableOp", inputs=["resource: resource"], outputs=["value: dtype"],
                       attrs={"dtype": None}, stateful=True)
ReadVariableOp.shape(lambda op: handle_shape(op.inputs[0]))


@ReadVariableOp.kernel
def _(xp, ref, *, dtype, ctx):
    v = _value(ref, ctx)
    if v.dtype != np.dtype(dtypes.as_dtype(dtype).as_numpy_dtype):
        raise errors.InvalidArgumentError(
            None, None, f"Trying to read variable with wrong dtype. Expected "
            f"{dtypes.as_dtype(v.dtype).name} got {dtypes.as_dtype(dtype).name}")
    return v


ReadVariableOp.gradient(lambda op, grad: grad)


def read_variable_op(resource, dtype, name=None):
    """The value of the variable behind `resource` (op type ReadVariableOp)."""
    return apply_op("ReadVariableOp", (resource,), name=name,
                    dtype=dtypes.as_dtype(dtype).base_dtype).outputs[0]


ResourceGather = defop("ResourceGather", inputs=["resource: resource", "indices: Tindices"],
                       outputs=["output: dtype"],
                       attrs={"dtype": None, "batch_dims": 0, "validate_indices": True},
                       stateful=True)


@ResourceGather.shape
def _(op):
    params = handle_shape(op.inputs[0])
    indices = op.inputs[1].shape
    if params.ndims is None or indices.ndims is None:
        return tensor_shape.unknown_shape()
    return indices.concatenate(params[1:])


@ResourceGather.kernel
def _(xp, ref, indices, *, dtype, batch_dims, validate_indices, ctx):
    if batch_dims:
        raise NotImplementedError("ResourceGather with batch_dims != 0")
    params = _value(ref, ctx)
    flat = np.asarray(indices).reshape(-1)
    if flat.size and (flat.min() < 0 or flat.max() >= params.shape[0]):
        i = int(np.argmax((flat < 0) | (flat >= params.shape[0])))
        raise errors.InvalidArgumentError(
            None, None, f"indices[{i}] = {int(flat[i])} is not in [0, {params.shape[0]})")
    return params[np.asarray(indices)]


@ResourceGather.gradient
def _(op, grad):
    from flowloom.framework.indexed_slices import IndexedSlices
    from flowloom.ops.array import array_ops

    handle, indices = op.inputs
    params_shape = variable_shape(handle)
    size = array_ops.expand_dims(array_ops.size(indices), 0)
    values_shape = array_ops.concat([size, params_shape[1:]], 0)
    values = array_ops.reshape(grad, values_shape)
    indices = array_ops.reshape(indices, size)
    return [IndexedSlices(values, indices, params_shape), None]


def resource_gather(resource, indices, dtype, batch_dims=0, validate_indices=True, name=None):
    """The rows `indices` of the variable behind `resource` (op type ResourceGather)."""
    return apply_op("ResourceGather", (resource, indices), name=name,
                    dtype=dtypes.as_dtype(dtype).base_dtype, batch_dims=batch_dims,
                    validate_indices=validate_indices).outputs[0]


ResourceGatherNd = defop("ResourceGatherNd", inputs=["resource: resource", "indices: Tindices"],
                         outputs=["output: dtype"], attrs={"dtype": None}, stateful=True)


@ResourceGatherNd.shape
def _(op):
    from flowloom.ops.array.gather_ops import gather_nd_shape

    return gather_nd_shape(handle_shape(op.inputs[0]), op.inputs[1].shape)


@ResourceGatherNd.kernel
def _(xp, ref, indices, *, dtype, ctx):
    from flowloom.ops.array.gather_ops import gather_nd_array

    return gather_nd_array(xp, _value(ref, ctx), indices)


@ResourceGatherNd.gradient
def _(op, grad):
    from flowloom.ops.array.gather_ops import scatter_nd

    handle, indices = op.inputs
    return [scatter_nd(indices, grad, variable_shape(handle, out_type=indices.dtype)), None]


def resource_gather_nd(resource, indices, dtype, name=None):
    """`gather_nd` of the variable behind `resource` (op type ResourceGatherNd)."""
    return apply_op("ResourceGatherNd", (resource, indices), name=name,
                    dtype=dtypes.as_dtype(dtype).base_dtype).outputs[0]


# -- updates -------------------------------------------------------------------------------------
AssignVariableOp = defop("AssignVariableOp", inputs=["resource: resource", "value: dtype"],
                         attrs={"dtype": None}, stateful=True)
AssignVariableOp.shape(lambda op: [])


@AssignVariableOp.kernel
def _(xp, ref, value, *, dtype, ctx):
    _check_dtype(ref, value, dtype, "assign")
    # The variable owns its array: a fed array or a constant is never aliased.
    new = np.array(value, copy=True)
    with ref.lock:
        ref.value = new


AssignVariableOp.no_gradient()


def _update(verb, fn):
    def kernel(xp, ref, value, *, dtype, ctx):
        with ref.lock:
            old = _value(ref, ctx)
            if old.shape != np.shape(value) and np.size(value) != 1:
                raise errors.InvalidArgumentError(
                    None, None, f"Cannot update variable with shape "
                    f"[{','.join(map(str, old.shape))}] using a Tensor with shape "
                    f"[{','.join(map(str, np.shape(value)))}], shapes must be equal.")
            ref.value = fn(old, value).astype(old.dtype, copy=False)
    return kernel


for _type, _fn in (("AssignAddVariableOp", np.add), ("AssignSubVariableOp", np.subtract)):
    _od = defop(_type, inputs=["resource: resource", "value: dtype"], attrs={"dtype": None},
                stateful=True)
    _od.shape(lambda op: [])
    _od.kernel(_update(_type, _fn))
    _od.no_gradient()


def assign_variable_op(resource, value, name=None):
    """Stores `value` in the variable behind `resource` (op type AssignVariableOp)."""
    return apply_op("AssignVariableOp", (resource, value), name=name)


def assign_add_variable_op(resource, value, name=None):
    """Adds `value` to the variable behind `resource` (op type AssignAddVariableOp)."""
    return apply_op("AssignAddVariableOp", (resource, value), name=name)


def assign_sub_variable_op(resource, value, name=None):
    """Subtracts `value` from the variable behind `resource` (op AssignSubVariableOp)."""
    return apply_op("AssignSubVariableOp", (resource, value), name=name)


ResourceCountUpTo = defop("ResourceCountUpTo", inputs=["resource: resource"],
                          outputs=["output: T"], attrs={"limit": 0, "T": None}, stateful=True)
ResourceCountUpTo.shape(lambda op: handle_shape(op.inputs[0]))


@ResourceCountUpTo.kernel
def _(xp, ref, *, limit, T, ctx):
    with ref.lock:
        old = _value(ref, ctx)
        if old >= limit:
            raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
        ref.value = (old + 1).astype(old.dtype)  # a new array: earlier reads keep theirs
        return old


ResourceCountUpTo.no_gradient()


def resource_count_up_to(resource, limit, T, name=None):
    """Increments the integer variable behind `resource` until it reaches `limit` (then
    OutOfRangeError); returns its value before the increment (op type ResourceCountUpTo)."""
    return apply_op("ResourceCountUpTo", (resource,), name=name, limit=int(limit),
                    T=dtypes.as_dtype(T).base_dtype).outputs[0]


def _resource_scatter_shape(op):
    """TF's ResourceScatterUpdateShape: the ref scatters' check on the variable's shape."""
    from flowloom.ops.state import state_ops

    state_ops.check_scatter_updates(handle_shape(op.inputs[0]), op.inputs[1]._shape,
                                    op.inputs[2]._shape)
    return []


def _define_resource_scatters():
    from flowloom.ops.state import state_ops

    combine = {"Resource" + t: fn for t, (fn, _) in state_ops.SCATTER_COMBINE.items()}
    for type_name, fn in combine.items():
        od = defop(type_name, inputs=["resource: resource", "indices: Tindices",
                                      "updates: dtype"], attrs={"dtype": None}, stateful=True)
        od.shape(_resource_scatter_shape)
        ref_kernel = state_ops._scatter_kernel(fn)

        def kernel(xp, ref, indices, updates, *, dtype, ctx, _k=ref_kernel):
            with ref.lock:
                _value(ref, ctx)
                copy_on_write(ref)
                _k(xp, ref, indices, updates, use_locking=False)

        od.kernel(kernel)
        od.no_gradient()


_define_resource_scatters()


def resource_scatter(op_type, resource, indices, updates, name=None):
    """ref[indices] (op) updates for the variable behind `resource`; op_type is e.g.
    "ResourceScatterAdd"."""
    return apply_op(op_type, (resource, indices, updates), name=name)
