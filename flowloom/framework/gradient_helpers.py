"""Helpers over `tf.gradients` under TF 1.15's names: `_hessian_vector_product`
(gradients_impl), `grad_pass_through` and `recompute_grad` (custom_gradient)."""

from flowloom.framework.gradients_impl import gradients


def _hessian_vector_product(ys, xs, v):
    """The product of the Hessian of `sum(ys)` w.r.t. `xs` with vectors `v` (one per x),
    by two backward passes (TF's `gradients_impl._hessian_vector_product`).

    Raises:
      ValueError: `xs` and `v` have different lengths.
    """
    from flowloom.ops.array import array_ops
    from flowloom.ops.math import math_ops

    if len(v) != len(xs):
        raise ValueError("xs and v must have the same length.")
    grads = gradients(ys, xs)
    if len(grads) != len(xs):
        raise ValueError("xs and v must have the same length.")
    products = [math_ops.multiply(g, array_ops.stop_gradient(e))
                for g, e in zip(grads, v) if g is not None]
    return gradients(products, xs)


def grad_pass_through(f):
    """`f` whose gradient is the identity: the gradients of its results flow unchanged to
    its input (for ops without a gradient, such as an assign).

    Example:
      y = tf.custom_gradient.grad_pass_through(lambda v: tf.assign(x, v))(z ** 2)
    """
    from flowloom.framework.custom_gradient import custom_gradient

    @custom_gradient
    def _pass_through(*args):
        def grad(*dys, **kwargs):
            dxs = dys[0] if len(dys) == 1 else dys
            variables = kwargs.get("variables")
            if variables is not None:
                return dxs, [None] * len(variables)  # the variables of `f` get none
            return dxs
        return f(*args), grad
    return _pass_through


def recompute_grad(f):
    """`f` whose forward ops are computed again for its gradient (TF's recompute_grad: a
    memory-for-compute trade; the gradient values are those of `f`)."""
    from flowloom.framework.custom_gradient import custom_gradient

    @custom_gradient
    def inner(*args, **kwargs):
        result = f(*args, **kwargs)

        def grad(*dresult, **grad_kwargs):
            variables = grad_kwargs.get("variables") or []
            from flowloom.framework.graph import control_dependencies
            from flowloom.ops.array import array_ops

            with control_dependencies(dresult):
                again = f(*[array_ops.identity(a) for a in args], **kwargs)
            flat = again if isinstance(again, (list, tuple)) else [again]
            grads = gradients(flat, list(args) + list(variables), grad_ys=list(dresult))
            if grad_kwargs.get("variables") is None:
                return grads[:len(args)]
            return grads[:len(args)], grads[len(args):]
        return result, grad
    return inner


def raise_no_grad_wrt_initial_loop_value(op, from_ops):
    """Raises TF's ValueError for a gradient, built inside a while loop, that would flow
    through the initial value of a loop variable (the loop's Switch `op`), naming the
    nearest x behind it."""
    from collections import deque

    target, queue, seen = None, deque([op]), set()
    while queue:
        current = queue.popleft()
        if current in seen:
            continue
        seen.add(current)
        if current in from_ops:
            target = current
            break
        queue.extend(t.op for t in current.inputs)
    raise ValueError(
        f"Cannot compute gradient inside while loop with respect to op "
        f"'{(target or op).name}'. We do not support taking the gradient wrt or through the "
        "initial value of a loop variable. Gradients can be computed through loop invariants "
        "or wrt the input parameters to the loop body.")
