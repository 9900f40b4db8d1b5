"""The optimizer update ops (TF's training_ops): Apply* and SparseApply* with TF's op types.

Each op takes the variable and its slots as references and updates their buffers in place
(a variable owns its buffer: Assign copies what it stores), returning the variable's
reference. `use_locking` holds the variable's lock during the update.
"""

import numpy as np

from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop


def _value(ref):
    v = ref.value
    if v is None:
        raise errors.FailedPreconditionError(
            None, None, f"Attempting to use uninitialized value {ref.name}")
    if not v.flags.writeable:
        v = ref.value = v.copy()
    return v


def _shape_str(shape):
    return "[%s]" % ",".join(map(str, shape))


def _check_same_shape(what, a, b):
    if a.shape != b.shape:
        raise errors.InvalidArgumentError(
            None, None, f"{what} do not have the same shape{_shape_str(a.shape)} "
            f"{_shape_str(b.shape)}")


def _check_scalar(name, x):
    if (x.ndim if type(x) is np.ndarray else np.ndim(x)) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"{name} is not a scalar: {_shape_str(np.shape(x))}")


def _defapply(type_name, slots, scalars, update, extra_attrs=None, sparse=False, after=()):
    """Defines `type_name`: inputs var, *slots (refs), *scalars, grad[, indices], *after.

    `update(var, *slots, *scalars, grad, *after, **attrs)` updates the arrays in place; for
    the sparse op it receives the selected rows and the op writes them back.
    """
    inputs = ["var: Ref(T)"] + [f"{s}: Ref(T)" for s in slots] + \
        [f"{s}: T" for s in scalars] + ["grad: T"] + \
        (["indices: Tindices"] if sparse else []) + [f"{s}: T" for s in after]
    attrs = {"use_locking": False}
    attrs.update(extra_attrs or {})
    od = defop(type_name, inputs=inputs, outputs=["out: Ref(T)"], attrs=attrs, stateful=True)
    od.shape(lambda op: op._inputs[0]._shape)
    n_slots, n_scalars = len(slots), len(scalars)
    extra_names = tuple(extra_attrs or ())
    scalar_names = list(scalars) + list(after)

    def update_refs(var_ref, slot_refs, args, extra):
        scalar_values = args[n_slots:n_slots + n_scalars]
        grad = args[n_slots + n_scalars]
        rest = args[n_slots + n_scalars + 1:]
        indices, after_values = (rest[0], rest[1:]) if sparse else (None, rest)
        for name, value in zip(scalar_names, scalar_values + after_values):
            _check_scalar(name, value)
        var = _value(var_ref)
        slot_values = [_value(r) for r in slot_refs]
        for name, s in zip(slots, slot_values):
            if s.shape != var.shape:
                _check_same_shape(f"var and {name}", var, s)
        if sparse:
            _sparse_update(update, var, slot_values, scalar_values, grad, after_values,
                           indices, extra)
        else:
            _check_same_shape("var and grad", var, grad)
            update(var, *slot_values, *scalar_values, grad, *after_values, **extra)

    def kernel(xp, var_ref, *args, use_locking, **extra):
        if not use_locking:
            update_refs(var_ref, args[:n_slots], args, extra)
            return var_ref
        with var_ref.lock:
            update_refs(var_ref, args[:n_slots], args, extra)
        return var_ref

    od.kernel(kernel)
    od.kernel_attrs = ("use_locking",) + extra_names
    od.no_gradient()

    # The resource form (TF's Resource<type>): handles instead of references, no output. The
    # update runs under the variable's lock on fresh copies of the buffers (copy on write),
    # so values read earlier in the run keep theirs.
    rinputs = ["var: resource"] + [f"{s}: resource" for s in slots] + inputs[1 + n_slots:]
    rod = defop("Resource" + type_name, inputs=rinputs, attrs=dict(attrs, T=None),
                stateful=True)
    rod.shape(lambda op: [])

    def resource_kernel(xp, var_ref, *args, use_locking, T, **extra):
        del use_locking
        from flowloom.ops.state.resource_variable_ops import copy_on_write

        refs = [var_ref] + list(args[:n_slots])
        with var_ref.lock:
            for r in refs:
                _value(r)
                copy_on_write(r)
            update_refs(var_ref, args[:n_slots], args, extra)

    rod.kernel(resource_kernel)
    rod.kernel_attrs = ("use_locking", "T") + extra_names
    rod.no_gradient()
    return od


def _sparse_update(update, var, slots, scalars, grad, after, indices, extra):
    indices = np.asarray(indices).reshape(-1)
    if grad.shape[:1] != indices.shape or grad.shape[1:] != var.shape[1:]:
        raise errors.InvalidArgumentError(
            None, None, "grad must be the same shape as var except the first dimension and "
            f"indices: {_shape_str(grad.shape)} vs {_shape_str(var.shape)}")
    if indices.size and (indices.min() < 0 or indices.max() >= var.shape[0]):
        bad = indices[(indices < 0) | (indices >= var.shape[0])][0]
        raise errors.InvalidArgumentError(
            None, None, f"Index {int(bad)} at offset 0 in indices is out of range")
    if np.unique(indices).size == indices.size:
        rows = [var[indices]] + [s[indices] for s in slots]
        update(*rows, *scalars, grad, *after, **extra)
        var[indices] = rows[0]
        for s, r in zip(slots, rows[1:]):
            s[indices] = r
        return
    for i, row in zip(indices, grad):  # repeated indices apply one after another, as in TF
        rows = [var[i:i + 1]] + [s[i:i + 1] for s in slots]
        update(*rows, *scalars, row[None], *after, **extra)


# -- the update rules, in place on (rows of) the arrays ---------------------------------------
_CHUNK = 1 << 16  # elements per product: a few rows at a time, not a temporary of var's size


def _gradient_descent(var, alpha, delta):
    if var.size > _CHUNK and var.flags.c_contiguous and delta.flags.c_contiguous and \
            var.shape == delta.shape:
        flat_var, flat_delta = var.reshape(-1), delta.reshape(-1)
        for a in range(0, var.size, _CHUNK):
            flat_var[a:a + _CHUNK] -= alpha * flat_delta[a:a + _CHUNK]
        return
    var -= alpha * delta


def _proximal_gradient_descent(var, alpha, l1, l2, delta):
    """TF's proximal step: a gradient step, then L1 shrinkage and L2 scaling."""
    prox = var - alpha * delta
    if l1 > 0:
        prox = np.sign(prox) * np.maximum(np.abs(prox) - alpha * l1, 0)
    var[...] = prox / (1 + alpha * l2)


def _momentum(var, accum, lr, grad, momentum, use_nesterov):
    accum *= momentum
    accum += grad
    if use_nesterov:
        var -= grad * lr + accum * momentum * lr
    else:
        var -= lr * accum


def _one(dtype):
    one = _ONES.get(dtype)
    if one is None:
        one = _ONES[dtype] = np.ones((), dtype=dtype)
        one.flags.writeable = False
    return one


_ONES = {}


def _all_of_dtype(dtype, *values):
    for x in values:
        if getattr(x, "dtype", None) != dtype:
            return False
    return True


def _adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_nesterov):
    one = _one(var.dtype)
    lr_t = lr * np.sqrt(one - beta2_power) / (one - beta1_power)
    if not var.ndim or not _all_of_dtype(var.dtype, m, v, grad, beta1, beta2, epsilon, lr_t):
        m += (grad - m) * (one - beta1)
        v += (grad * grad - v) * (one - beta2)
        if use_nesterov:
            var -= ((grad * (one - beta1) + beta1 * m) * lr_t) / (np.sqrt(v) + epsilon)
        else:
            var -= (m * lr_t) / (np.sqrt(v) + epsilon)
        return
    # The same operations in the same order and dtype, through two temporaries.
    t = np.subtract(grad, m)
    t *= one - beta1
    m += t
    np.multiply(grad, grad, out=t)
    t -= v
    t *= one - beta2
    v += t
    d = np.sqrt(v)
    d += epsilon
    if use_nesterov:
        np.multiply(grad, one - beta1, out=t)
        t += beta1 * m
        t *= lr_t
    else:
        np.multiply(m, lr_t, out=t)
    t /= d
    var -= t


def _adagrad(var, accum, lr, grad, update_slots):
    if update_slots:
        accum += grad * grad
    var -= grad * lr / np.sqrt(accum)


def _rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad):
    one = _one(var.dtype)
    ms += (grad * grad - ms) * (one - rho)
    mom *= momentum
    mom += lr * grad / np.sqrt(ms + epsilon)
    var -= mom


def _centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
    one = _one(var.dtype)
    ms += (grad * grad - ms) * (one - rho)
    mg += (grad - mg) * (one - rho)
    denom = (ms - mg * mg) + epsilon
    mom *= momentum
    mom += lr * grad / np.sqrt(denom)
    var -= mom


def _adadelta(var, accum, accum_update, lr, rho, epsilon, grad):
    one = _one(var.dtype)
    accum *= rho
    accum += grad * grad * (one - rho)
    update = np.sqrt(accum_update + epsilon) / np.sqrt(accum + epsilon) * grad
    accum_update *= rho
    accum_update += update * update * (one - rho)
    var -= update * lr


def _ftrl(var, accum, linear, grad, lr, l1, l2, *rest, multiply_linear_by_lr=False):
    # rest = (lr_power,) for Ftrl, (l2_shrinkage, lr_power) for FtrlV2.
    lr_power = rest[-1]
    shrunk_grad = grad if len(rest) == 1 else grad + 2 * rest[0] * var
    new_accum = accum + grad * grad
    if lr_power == -0.5:
        sigma = np.sqrt(new_accum) - np.sqrt(accum)
        y_accum = np.sqrt(new_accum)
    else:
        sigma = new_accum ** -lr_power - accum ** -lr_power
        y_accum = new_accum ** -lr_power
    if multiply_linear_by_lr:
        linear += shrunk_grad * lr - sigma * var
        l1_eff = l1 * lr
        y = y_accum + 2 * l2 * lr
    else:
        linear += shrunk_grad - sigma / lr * var
        l1_eff = l1
        y = y_accum / lr + 2 * l2
    x = l1_eff * np.sign(linear) - linear
    var[...] = np.where(np.abs(linear) > l1_eff, x / y, np.zeros((), dtype=var.dtype))
    accum[...] = new_accum


_NESTEROV = {"use_nesterov": False}

ApplyProximalGradientDescent = _defapply("ApplyProximalGradientDescent", [],
                                         ["alpha", "l1", "l2"], _proximal_gradient_descent)
SparseApplyProximalGradientDescent = _defapply(
    "SparseApplyProximalGradientDescent", [], ["alpha", "l1", "l2"],
    _proximal_gradient_descent, sparse=True)

ApplyGradientDescent = _defapply("ApplyGradientDescent", [], ["alpha"], _gradient_descent)
ApplyMomentum = _defapply("ApplyMomentum", ["accum"], ["lr"], _momentum, _NESTEROV,
                          after=["momentum"])
SparseApplyMomentum = _defapply("SparseApplyMomentum", ["accum"], ["lr"], _momentum, _NESTEROV,
                                sparse=True, after=["momentum"])
ApplyAdam = _defapply("ApplyAdam", ["m", "v"], ["beta1_power", "beta2_power", "lr", "beta1",
                                               "beta2", "epsilon"], _adam, _NESTEROV)
def _adam_group(ops):
    """All the ApplyAdam updates of `ops` (one optimizer's: the same scalars and attrs) as one
    `_adam` over their arrays laid end to end (runtime/rewrite_group_updates.py)."""
    attrs = ops[0]._attrs
    if attrs["use_locking"]:
        return None
    nesterov = attrs["use_nesterov"]

    def apply_all(*args):
        n = (len(args) - 6) // 4
        scalars = args[4 * n:]
        for x in scalars:
            if type(x) is not np.ndarray or x.ndim:
                return False
        bufs, grads, seen = ([], [], []), [], set()
        dtype = None
        for k in range(0, 4 * n, 4):
            grad = args[k + 3]
            if type(grad) is not np.ndarray or grad.base is not None or not grad.ndim:
                return False
            shape = grad.shape
            dtype = dtype or grad.dtype
            for i in range(3):
                x = args[k + i].value
                # Arrays of their own (no two of them overlap), of one dtype, writeable.
                if type(x) is not np.ndarray or x.base is not None or x.shape != shape or \
                        x.dtype != dtype or not x.flags.writeable:
                    return False
                bufs[i].append(x)
                seen.add(id(x))
            grads.append(grad)
        if len(seen) != 3 * n or any(id(g) in seen for g in grads):
            return False  # a buffer updated twice, or a gradient that is a buffer
        flat = [np.concatenate(b, axis=None) for b in bufs]
        _adam(*flat, *scalars, np.concatenate(grads, axis=None), nesterov)
        start = 0
        for k, var in enumerate(bufs[0]):
            stop = start + var.size
            for b, f in zip(bufs, flat):
                np.copyto(b[k], f[start:stop].reshape(var.shape))
            start = stop
        return True
    return apply_all


ApplyAdam.kernel_fn.group = (range(3, 9), _adam_group)


ApplyAdagrad = _defapply("ApplyAdagrad", ["accum"], ["lr"], _adagrad, {"update_slots": True})
ApplyRMSProp = _defapply("ApplyRMSProp", ["ms", "mom"], ["lr", "rho", "momentum", "epsilon"],
                         _rms_prop)
ApplyCenteredRMSProp = _defapply("ApplyCenteredRMSProp", ["mg", "ms", "mom"],
                                 ["lr", "rho", "momentum", "epsilon"], _centered_rms_prop)
ApplyAdadelta = _defapply("ApplyAdadelta", ["accum", "accum_update"], ["lr", "rho", "epsilon"],
                          _adadelta)
_FTRL_ATTRS = {"multiply_linear_by_lr": False}
ApplyFtrl = _defapply("ApplyFtrl", ["accum", "linear"], [], _ftrl, _FTRL_ATTRS,
                      after=["lr", "l1", "l2", "lr_power"])
ApplyFtrlV2 = _defapply("ApplyFtrlV2", ["accum", "linear"], [], _ftrl, _FTRL_ATTRS,
                        after=["lr", "l1", "l2", "l2_shrinkage", "lr_power"])
SparseApplyFtrl = _defapply("SparseApplyFtrl", ["accum", "linear"], [], _ftrl, _FTRL_ATTRS,
                            sparse=True, after=["lr", "l1", "l2", "lr_power"])
SparseApplyFtrlV2 = _defapply("SparseApplyFtrlV2", ["accum", "linear"], [], _ftrl, _FTRL_ATTRS,
                              sparse=True, after=["lr", "l1", "l2", "l2_shrinkage", "lr_power"])
SparseApplyAdagrad = _defapply("SparseApplyAdagrad", ["accum"], ["lr"], _adagrad,
                               {"update_slots": True}, sparse=True)
SparseApplyRMSProp = _defapply("SparseApplyRMSProp", ["ms", "mom"],
                               ["lr", "rho", "momentum", "epsilon"], _rms_prop, sparse=True)
SparseApplyCenteredRMSProp = _defapply("SparseApplyCenteredRMSProp", ["mg", "ms", "mom"],
                                       ["lr", "rho", "momentum", "epsilon"],
                                       _centered_rms_prop, sparse=True)
SparseApplyAdadelta = _defapply("SparseApplyAdadelta", ["accum", "accum_update"],
                                ["lr", "rho", "epsilon"], _adadelta, sparse=True)


def update_op(result):
    """The Operation of an update: the op of a ref update's output, or the resource op."""
    return result if not hasattr(result, "op") else result.op


def _apply(op_type, inputs, use_locking, name=None, **attrs):
    """Builds `op_type`, or its Resource form when the variable is a resource variable
    (its slots then are too): returns the updated reference, or the resource op."""
    from flowloom.resource_variable import is_resource_target, resource_handle

    if is_resource_target(inputs[0]):
        handles = []
        for x in inputs:
            handles.append(resource_handle(x) if is_resource_target(x) else x)
        return apply_op("Resource" + op_type, tuple(handles), name=name,
                        use_locking=bool(use_locking), **attrs)
    return apply_op(op_type, tuple(inputs), name=name, use_locking=bool(use_locking),
                    **attrs).outputs[0]


def apply_gradient_descent(var, alpha, delta, use_locking=False, name=None):
    """var -= alpha * delta (op type ApplyGradientDescent)."""
    return _apply("ApplyGradientDescent", (var, alpha, delta), use_locking, name)


def apply_proximal_gradient_descent(var, alpha, l1, l2, delta, use_locking=False, name=None):
    """var = prox(var - alpha * delta) with L1 `l1` and L2 `l2` (ApplyProximalGradientDescent)."""
    return _apply("ApplyProximalGradientDescent", (var, alpha, l1, l2, delta), use_locking, name)


def sparse_apply_proximal_gradient_descent(var, alpha, l1, l2, grad, indices,
                                           use_locking=False, name=None):
    """The proximal step on the rows `indices` (SparseApplyProximalGradientDescent)."""
    return _apply("SparseApplyProximalGradientDescent", (var, alpha, l1, l2, grad, indices),
                  use_locking, name)


def apply_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False,
                   name=None):
    """accum = accum * momentum + grad; var -= lr * accum (or the Nesterov form)."""
    return _apply("ApplyMomentum", (var, accum, lr, grad, momentum), use_locking, name,
                  use_nesterov=use_nesterov)


def sparse_apply_momentum(var, accum, lr, grad, indices, momentum, use_locking=False,
                          use_nesterov=False, name=None):
    return _apply("SparseApplyMomentum", (var, accum, lr, grad, indices, momentum),
                  use_locking, name, use_nesterov=use_nesterov)


def apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
               use_locking=False, use_nesterov=False, name=None):
    """One Adam step on var and its slots m and v (op type ApplyAdam)."""
    return _apply("ApplyAdam", (var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                                grad), use_locking, name, use_nesterov=use_nesterov)


def apply_adagrad(var, accum, lr, grad, use_locking=False, update_slots=True, name=None):
    """accum += grad^2; var -= lr * grad / sqrt(accum) (op type ApplyAdagrad)."""
    return _apply("ApplyAdagrad", (var, accum, lr, grad), use_locking, name,
                  update_slots=update_slots)


def sparse_apply_adagrad(var, accum, lr, grad, indices, use_locking=False, update_slots=True,
                         name=None):
    return _apply("SparseApplyAdagrad", (var, accum, lr, grad, indices), use_locking, name,
                  update_slots=update_slots)


def apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False,
                   name=None):
    """One RMSProp step (op type ApplyRMSProp)."""
    return _apply("ApplyRMSProp", (var, ms, mom, lr, rho, momentum, epsilon, grad), use_locking,
                  name)


def sparse_apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, indices,
                          use_locking=False, name=None):
    return _apply("SparseApplyRMSProp", (var, ms, mom, lr, rho, momentum, epsilon, grad,
                                         indices), use_locking, name)


def apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad,
                            use_locking=False, name=None):
    """One centered RMSProp step (op type ApplyCenteredRMSProp)."""
    return _apply("ApplyCenteredRMSProp", (var, mg, ms, mom, lr, rho, momentum, epsilon, grad),
                  use_locking, name)


def sparse_apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices,
                                   use_locking=False, name=None):
    return _apply("SparseApplyCenteredRMSProp", (var, mg, ms, mom, lr, rho, momentum, epsilon,
                                                 grad, indices), use_locking, name)


def apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, use_locking=False,
                   name=None):
    """One Adadelta step (op type ApplyAdadelta)."""
    return _apply("ApplyAdadelta", (var, accum, accum_update, lr, rho, epsilon, grad),
                  use_locking, name)


def sparse_apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, indices,
                          use_locking=False, name=None):
    return _apply("SparseApplyAdadelta", (var, accum, accum_update, lr, rho, epsilon, grad,
                                          indices), use_locking, name)


def apply_ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, use_locking=False,
               multiply_linear_by_lr=False, name=None):
    """One FTRL-Proximal step (op type ApplyFtrl)."""
    return _apply("ApplyFtrl", (var, accum, linear, grad, lr, l1, l2, lr_power), use_locking,
                  name, multiply_linear_by_lr=multiply_linear_by_lr)


def apply_ftrl_v2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power,
                  use_locking=False, multiply_linear_by_lr=False, name=None):
    """One FTRL-Proximal step with L2 shrinkage (op type ApplyFtrlV2)."""
    return _apply("ApplyFtrlV2", (var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power),
                  use_locking, name, multiply_linear_by_lr=multiply_linear_by_lr)


def sparse_apply_ftrl(var, accum, linear, grad, indices, lr, l1, l2, lr_power,
                      use_locking=False, multiply_linear_by_lr=False, name=None):
    return _apply("SparseApplyFtrl", (var, accum, linear, grad, indices, lr, l1, l2, lr_power),
                  use_locking, name, multiply_linear_by_lr=multiply_linear_by_lr)


def sparse_apply_ftrl_v2(var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power,
                         use_locking=False, multiply_linear_by_lr=False, name=None):
    return _apply("SparseApplyFtrlV2", (var, accum, linear, grad, indices, lr, l1, l2,
                                        l2_shrinkage, lr_power), use_locking, name,
                  multiply_linear_by_lr=multiply_linear_by_lr)
