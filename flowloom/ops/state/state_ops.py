"""Variable ops: VariableV2 holds a buffer; Assign, AssignAdd and AssignSub update it."""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.ops import Tensor
from flowloom.framework.tensor_shape import as_shape, unknown_shape
from flowloom.runtime.executor import Ref

VariableV2 = defop("VariableV2", outputs=["ref: Ref(dtype)"],
                   attrs={"shape": None, "dtype": None, "container": "", "shared_name": ""},
                   stateful=True)


@VariableV2.shape
def _(op):
    return op._attrs["shape"]


@VariableV2.kernel
def _variable(xp, *, shared_name, container, ctx):
    key = (container, shared_name or ctx.op._name)
    ref = ctx.resources.get(key)
    if ref is None:
        ref = ctx.resources.setdefault(key, Ref(ctx.op._name))
    return ref


def _bind_variable(xp, *, shared_name, container, ctx):
    # The kernel with its key and container looked up once, when the plan is compiled.
    key = (container, shared_name or ctx.op._name)
    resources, name = ctx.resources, ctx.op._name

    def variable():
        ref = resources.get(key)
        if ref is None:
            ref = resources.setdefault(key, Ref(name))
        return ref
    return variable


_variable.bind_bound = _bind_variable


# The legacy variable op (TF's "Variable"): a VariableV2 whose `shape` attr may be unknown.
LegacyVariable = defop("Variable", outputs=["ref: Ref(dtype)"],
                       attrs={"shape": None, "dtype": None, "container": "", "shared_name": ""},
                       stateful=True)
LegacyVariable.shape(lambda op: op._attrs["shape"])
LegacyVariable.kernel(VariableV2.kernel_fn)


def variable_op(shape, dtype, name="Variable", set_shape=True, container="", shared_name=""):
    """Deprecated (TF 1.15 too): a legacy `Variable` op; with `set_shape=False` its static
    shape is unknown. Use variable_op_v2."""
    from flowloom.framework.tensor_shape import TensorShape, as_shape

    shape = as_shape(shape) if set_shape else TensorShape(None)
    return apply_op("Variable", (), name=name, shape=shape,
                    dtype=dtypes.as_dtype(dtype).base_dtype, container=container,
                    shared_name=shared_name)._outputs[0]


def variable_op_v2(shape, dtype, name="Variable", container="", shared_name=""):
    return apply_op("VariableV2", (), name=name, shape=as_shape(shape),
                    dtype=dtypes.as_dtype(dtype).base_dtype, container=container,
                    shared_name=shared_name)._outputs[0]


def _ref_shape(op):
    return op._inputs[0]._shape


Assign = defop("Assign", inputs=["ref: Ref(T)", "value: T"], outputs=["output_ref: Ref(T)"],
               attrs={"validate_shape": True, "use_locking": True}, stateful=True)


@Assign.shape
def _(op):
    ref, value = op._inputs
    if op._attrs["validate_shape"]:
        ref_shape = ref._shape
        # (an initializer's Assign: the two shapes are the same interned TensorShape)
        return ref_shape if ref_shape is value._shape else ref_shape.merge_with(value._shape)
    return value._shape


@Assign.kernel
def _(xp, ref, value, *, validate_shape, use_locking, ctx):
    old = ref.value
    lhs_shape = old.shape if old is not None else _declared_shape(ctx.op._inputs[0])
    if validate_shape and lhs_shape is not None and lhs_shape != value.shape:
        raise errors.InvalidArgumentError(
            None, None, "Assign requires shapes of both tensors to match. lhs shape= "
            f"[{','.join(map(str, lhs_shape))}] rhs shape= [{','.join(map(str, value.shape))}]")
    # Variables own their buffers: a fed array or a constant is never aliased.
    with ref.lock:
        old = ref.value
        if old is not None and old.shape == np.shape(value) and old.dtype == value.dtype \
                and old.flags.writeable and isinstance(old, np.ndarray):
            # As TF's kernel: a value of the variable's size is copied into its buffer, so
            # what aliases the variable (its `read` Identity) sees the new value.
            np.copyto(old, value)
        else:
            ref.value = xp.array(value, copy=True)
    return ref


Assign.no_gradient()


def _declared_shape(ref_tensor):
    # An uninitialized TF variable already has its declared shape (restoring a checkpoint
    # of another shape into it fails).
    shape = ref_tensor._shape
    return tuple(shape.as_list()) if shape.is_fully_defined() else None


def _update_kernel(fn, verb):
    def kernel(xp, ref, value, *, use_locking, ctx):
        # In place, as TF's kernel. TF leaves unlocked concurrent updates unordered; NumPy
        # releases the GIL inside the add, so element-wise interleaving could lose updates.
        # Holding the variable's lock for the short in-place add is one valid ordering of
        # TF's unlocked semantics and loses none (Hogwild trainers rely on that).
        del use_locking
        with ref.lock:
            old = ref.value
            if old is None:
                raise errors.FailedPreconditionError(
                    None, None, f"Attempting to use uninitialized value {ref.name}")
            if old.shape != np.shape(value) and np.size(value) != 1:
                raise errors.InvalidArgumentError(
                    None, None, f"Must have the same shape: [{','.join(map(str, old.shape))}] "
                    f"!= [{','.join(map(str, np.shape(value)))}]")
            if not old.flags.writeable:
                old = ref.value = old.copy()
            fn(old, value, out=old, casting="unsafe")
        return ref
    return kernel


def _merged_shape(op):
    # TF's MergeBothInputsShapeFn: the variable's and the value's static shapes together.
    return op._inputs[0]._shape.merge_with(op._inputs[1]._shape)


AssignAdd = defop("AssignAdd", inputs=["ref: Ref(T)", "value: T"],
                  outputs=["output_ref: Ref(T)"], attrs={"use_locking": False}, stateful=True)
AssignAdd.shape(_merged_shape)
AssignAdd.kernel(_update_kernel(np.add, "add"))

AssignSub = defop("AssignSub", inputs=["ref: Ref(T)", "value: T"],
                  outputs=["output_ref: Ref(T)"], attrs={"use_locking": False}, stateful=True)
AssignSub.shape(_merged_shape)
AssignSub.kernel(_update_kernel(np.subtract, "sub"))
AssignAdd.no_gradient()
AssignSub.no_gradient()

IsVariableInitialized = defop("IsVariableInitialized", inputs=["ref: Ref(dtype)"],
                              outputs=["is_initialized: bool"], stateful=True)
IsVariableInitialized.shape(lambda op: [()])


@IsVariableInitialized.kernel
def _(xp, ref):
    return np.array(ref.value is not None)


IsVariableInitialized.no_gradient()


def _ref_of(ref):
    if isinstance(ref, Tensor):
        return ref
    if hasattr(ref, "_ref"):
        return ref._ref()
    return ref


def _resource_update(kind, ref, value, name, indices=None):
    """The update `kind` of a resource variable (or `resource` handle), or None for others."""
    if type(ref) is Tensor and ref._dtype.base_dtype is not dtypes.resource:
        return None  # a variable's reference (the usual case): no resource to update
    from flowloom.resource_variable import is_resource_target, resource_update

    if not is_resource_target(ref):
        return None
    return resource_update(kind, ref, value, name=name, indices=indices)


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """Assigns `value` to the variable `ref`; returns the variable's reference after it (for
    a resource variable: the value read after the AssignVariableOp)."""
    done = _resource_update("assign", ref, value, name)
    if done is not None:
        return done
    from flowloom.ops.state.slice_assign_ops import is_slice

    if not (type(ref) is Tensor and ref._dtype._enum > 100) and is_slice(ref) and \
            not ref.dtype.is_ref_dtype:
        return ref.assign(value, name=name)  # a slice of a variable (TF: ref.assign)
    if validate_shape is None:
        validate_shape = True
    if use_locking is None:
        use_locking = True
    return apply_op("Assign", (_ref_of(ref), value), name=name, validate_shape=validate_shape,
                    use_locking=use_locking)._outputs[0]


def assign_add(ref, value, use_locking=None, name=None):
    """Adds `value` to the variable `ref` (op type AssignAdd; AssignAddVariableOp for a
    resource variable, then the value read after it)."""
    done = _resource_update("assign_add", ref, value, name)
    if done is not None:
        return done
    return apply_op("AssignAdd", (_ref_of(ref), value), name=name,
                    use_locking=bool(use_locking)).outputs[0]


def assign_sub(ref, value, use_locking=None, name=None):
    """Subtracts `value` from the variable `ref` (op type AssignSub; AssignSubVariableOp for
    a resource variable, then the value read after it)."""
    done = _resource_update("assign_sub", ref, value, name)
    if done is not None:
        return done
    return apply_op("AssignSub", (_ref_of(ref), value), name=name,
                    use_locking=bool(use_locking)).outputs[0]


def is_variable_initialized(ref, name=None):
    """A bool tensor: whether the variable `ref` holds a value."""
    from flowloom.resource_variable import is_resource_target, resource_handle

    if is_resource_target(ref):
        from flowloom.ops.state.resource_variable_ops import var_is_initialized_op

        return var_is_initialized_op(resource_handle(ref), name=name)
    return apply_op("IsVariableInitialized", (_ref_of(ref),), name=name).outputs[0]


del unknown_shape


# -- Scatter updates: rows of a variable ------------------------------------------------------------
def _scatter_kernel(combine):
    def kernel(xp, ref, indices, updates, *, use_locking):
        def apply():
            old = ref.value
            if old is None:
                raise errors.FailedPreconditionError(
                    None, None, f"Attempting to use uninitialized value {ref.name}")
            if not old.flags.writeable:
                old = ref.value = old.copy()
            idx = np.asarray(indices)
            if updates.shape != idx.shape + old.shape[1:] and np.size(updates) != 1:
                raise errors.InvalidArgumentError(
                    None, None, "Must have updates.shape = indices.shape + params.shape[1:] or "
                    f"updates.shape = [], got updates.shape [{','.join(map(str, updates.shape))}]"
                    f", indices.shape [{','.join(map(str, idx.shape))}], params.shape "
                    f"[{','.join(map(str, old.shape))}]")
            flat = idx.reshape(-1)
            if flat.size and (flat.min() < 0 or flat.max() >= old.shape[0]):
                i = int(np.argmax((flat < 0) | (flat >= old.shape[0])))
                raise errors.InvalidArgumentError(
                    None, None, f"indices[{i}] = {int(flat[i])} is not in [0, {old.shape[0]})")
            combine(old, idx, updates)
        if use_locking:
            with ref.lock:
                apply()
        else:
            apply()
        return ref
    return kernel


def _scatter_update(old, idx, updates):
    old[idx] = updates


def _scatter_div(old, idx, updates):
    if old.dtype.kind in "fc":
        np.divide.at(old, idx, updates)
        return
    # Integer division truncates toward zero (C++ `/`); dividing by each repeated update in
    # turn equals dividing once by their product.
    divisor = np.ones_like(old)
    np.multiply.at(divisor, idx, updates)
    if np.any(divisor == 0):
        raise errors.InvalidArgumentError(None, None, "Integer division by zero")
    q = np.abs(old) // np.abs(divisor)
    old[...] = np.where((old < 0) != (divisor < 0), -q, q)


# Op type -> (how updates combine into the rows, use_locking's default); shared with the
# resource variants (ResourceScatterAdd, ...).
SCATTER_COMBINE = {
    "ScatterAdd": (lambda old, i, u: np.add.at(old, i, u), False),
    "ScatterSub": (lambda old, i, u: np.subtract.at(old, i, u), False),
    "ScatterMul": (lambda old, i, u: np.multiply.at(old, i, u), False),
    "ScatterDiv": (_scatter_div, False),
    "ScatterMin": (lambda old, i, u: np.minimum.at(old, i, u), False),
    "ScatterMax": (lambda old, i, u: np.maximum.at(old, i, u), False),
    "ScatterUpdate": (_scatter_update, True),
}


def _scatter_shape(op):
    """TF's ScatterUpdateShape: updates (unless a scalar) are indices.shape + ref.shape[1:]."""
    ref, indices, updates = (t._shape for t in op._inputs[:3])
    check_scatter_updates(ref, indices, updates)
    return ref


def check_scatter_updates(ref, indices, updates):
    """Raises ValueError unless `updates` (a shape) is a scalar or indices + ref[1:] (the
    scatter ops of both variable kinds)."""
    if ref.ndims is not None and indices.ndims is not None and updates.ndims not in (None, 0):
        want = indices.concatenate(ref[1:])
        if not want.is_compatible_with(updates):
            # (the op's name, type and input shapes are appended by the creation path)
            raise ValueError(f"Shapes {updates} and {want} are not compatible (updates must "
                             "have shape indices.shape + ref.shape[1:])")


for _type, (_combine, _locking) in SCATTER_COMBINE.items():
    _od = defop(_type, inputs=["ref: Ref(T)", "indices: Tindices", "updates: T"],
                outputs=["output_ref: Ref(T)"], attrs={"use_locking": _locking}, stateful=True)
    _od.shape(_scatter_shape)
    _od.kernel(_scatter_kernel(_combine))
    _od.no_gradient()


def _scatter(op_type, ref, indices, updates, use_locking, name):
    done = _resource_update(op_type, ref, updates, name, indices=indices)
    if done is not None:
        return done
    kwargs = {} if use_locking is None else {"use_locking": bool(use_locking)}
    return apply_op(op_type, (_ref_of(ref), indices, updates), name=name, **kwargs).outputs[0]


def scatter_add(ref, indices, updates, use_locking=False, name=None):
    """ref[indices] += updates, summing repeated indices (op type ScatterAdd)."""
    return _scatter("ScatterAdd", ref, indices, updates, use_locking, name)


def scatter_sub(ref, indices, updates, use_locking=False, name=None):
    """ref[indices] -= updates, summing repeated indices (op type ScatterSub)."""
    return _scatter("ScatterSub", ref, indices, updates, use_locking, name)


def scatter_update(ref, indices, updates, use_locking=True, name=None):
    """ref[indices] = updates (op type ScatterUpdate)."""
    return _scatter("ScatterUpdate", ref, indices, updates, use_locking, name)


def scatter_mul(ref, indices, updates, use_locking=False, name=None):
    """ref[indices] *= updates, multiplying repeated indices in (op type ScatterMul)."""
    return _scatter("ScatterMul", ref, indices, updates, use_locking, name)


def scatter_div(ref, indices, updates, use_locking=False, name=None):
    """ref[indices] /= updates, dividing by repeated indices in turn (op type ScatterDiv)."""
    return _scatter("ScatterDiv", ref, indices, updates, use_locking, name)


def scatter_min(ref, indices, updates, use_locking=False, name=None):
    """ref[indices] = min(ref[indices], updates) over repeated indices (op type ScatterMin)."""
    return _scatter("ScatterMin", ref, indices, updates, use_locking, name)


def scatter_max(ref, indices, updates, use_locking=False, name=None):
    """ref[indices] = max(ref[indices], updates) over repeated indices (op type ScatterMax)."""
    return _scatter("ScatterMax", ref, indices, updates, use_locking, name)


CountUpTo = defop("CountUpTo", inputs=["ref: Ref(T)"], outputs=["output: T"],
                  attrs={"limit": 0}, stateful=True)
CountUpTo.shape(lambda op: op._inputs[0]._shape)


@CountUpTo.kernel
def _(xp, ref, *, limit):
    with ref.lock:
        old = ref.value
        if old is None:
            raise errors.FailedPreconditionError(
                None, None, f"Attempting to use uninitialized value {ref.name}")
        if old >= limit:
            raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
        ref.value = (old + 1).astype(old.dtype)
        return np.array(old, copy=True)


CountUpTo.no_gradient()


def count_up_to(ref, limit, name=None):
    """Increments the integer variable `ref` until it reaches `limit` (then OutOfRangeError);
    returns its value before the increment."""
    from flowloom.resource_variable import is_resource_target, resource_handle

    if is_resource_target(ref):
        from flowloom.ops.state import resource_variable_ops as rvo

        handle = resource_handle(ref)
        return rvo.resource_count_up_to(handle, limit, rvo.handle_dtype(handle), name=name)
    return apply_op("CountUpTo", (_ref_of(ref),), name=name, limit=int(limit)).outputs[0]
