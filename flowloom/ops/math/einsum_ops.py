"""Einsum (one op, any number of operands) and tensordot (TF's reshape/transpose/matmul
composition)."""

import string

import numpy as np

from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.ops.array import array_ops

Einsum = defop("Einsum", inputs=["inputs: N * T"], outputs=["output: T"],
               attrs={"equation": ""})


def _parse(equation, ranks):
    """(input subscripts, output subscripts) with '...' spelled out as capital letters when
    the ranks are known (None where a rank is unknown and an ellipsis needs it)."""
    equation = equation.replace(" ", "")
    lhs, arrow, out = equation.partition("->")
    subs = lhs.split(",")
    if len(subs) != len(ranks):
        raise ValueError(f"Expecting {len(subs)} inputs, got {len(ranks)} in einsum "
                         f"equation '{equation}'")
    width = 0
    for s, r in zip(subs, ranks):
        if "..." in s:
            if r is None:
                return None
            width = max(width, r - (len(s) - 3))
    ell = string.ascii_uppercase[:width]
    spelled = []
    for s, r in zip(subs, ranks):
        if "..." in s:
            k = r - (len(s) - 3)
            s = s.replace("...", ell[width - k:])
        elif r is not None and r != len(s):
            raise ValueError(f"Input has rank {r} but the einsum subscripts '{s}' name "
                             f"{len(s)} dimensions")
        spelled.append(s)
    if arrow:
        out = out.replace("...", ell)
    else:
        counts = {c: sum(s.count(c) for s in spelled) for c in set("".join(spelled))}
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    return spelled, out


@Einsum.shape
def _(op):
    ranks = [t._shape.ndims for t in op._inputs]
    parsed = _parse(op._attrs["equation"], ranks)
    if parsed is None or None in ranks:
        return unknown_shape()
    subs, out = parsed
    sizes = {}
    for s, t in zip(subs, op._inputs):
        for c, d in zip(s, t._shape.as_list()):
            if d is None or d == 1 and c in sizes:
                continue
            if sizes.get(c) not in (None, 1, d):
                raise ValueError(f"Expected dimension {sizes[c]} at axis of the input "
                                 f"labelled '{c}', got {d} (einsum '{op._attrs['equation']}')")
            sizes[c] = d
    return TensorShape([sizes.get(c) for c in out])


@Einsum.kernel
def _(xp, *inputs, equation):
    return xp.asarray(xp.einsum(equation, *inputs)).astype(inputs[0].dtype, copy=False)


@Einsum.gradient
def _(op, grad):
    ranks = [t._shape.ndims for t in op._inputs]
    parsed = _parse(op._attrs["equation"], ranks)
    if parsed is None:
        raise NotImplementedError("Einsum gradient with '...' on inputs of unknown rank")
    subs, out = parsed
    grads = []
    for i, (s, x) in enumerate(zip(subs, op._inputs)):
        if len(set(s)) != len(s):
            raise NotImplementedError(f"Einsum gradient for repeated subscripts ('{s}')")
        others = [(subs[j], op._inputs[j]) for j in range(len(subs)) if j != i]
        reachable = set(out).union(*(set(o) for o, _ in others))
        kept = "".join(c for c in s if c in reachable)
        g = einsum(",".join([out] + [o for o, _ in others]) + "->" + kept, grad,
                   *[t for _, t in others])
        if kept != s:
            # Labels summed out of this operand alone: their gradient is broadcast back.
            for axis, c in enumerate(s):
                if c not in reachable:
                    g = array_ops.expand_dims(g, axis)
            from flowloom.ops.array.broadcast_ops import broadcast_to

            g = broadcast_to(g, array_ops.shape(x))
        if "..." in op._attrs["equation"] and x._shape.is_fully_defined() and \
                g._shape.is_fully_defined() and g._shape != x._shape:
            g = _sum_to_shape(g, x._shape.as_list())
        grads.append(g)
    return grads


def _sum_to_shape(g, dims):
    """`g` summed over the dimensions that broadcasting added to an operand of shape dims."""
    from flowloom.ops.math.reduction_ops import reduce_sum

    gdims = g._shape.as_list()
    lead = len(gdims) - len(dims)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(dims)
                                if d == 1 and gdims[lead + i] != 1]
    return array_ops.reshape(reduce_sum(g, axes), dims)


def einsum(equation, *inputs, **kwargs):
    """Sums of products of `inputs`, as numpy.einsum spells them (`'ij,jk->ik'`).

    Args:
      equation: the subscripts, with an optional `->output`; `...` broadcasts.
      *inputs: the operands.
      name: an optional name.

    Returns:
      The tensor the equation describes.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"invalid keyword arguments for this function: {', '.join(kwargs)}")
    with name_scope(name, "einsum", inputs):
        tensors = [convert_to_tensor(x, name="input") for x in inputs]
        return apply_op("Einsum", (tensors,), equation=equation.replace(" ", "")).outputs[0]


# -- tensordot ------------------------------------------------------------------------------
def _tensordot_axes(a, axes):
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError("'axes' must be at least 0.")
        nd = a._shape.ndims
        if nd is None:
            raise NotImplementedError("tensordot with an integer 'axes' and inputs of "
                                      "unknown rank")
        if axes > nd:
            raise ValueError(f"'axes' must not be larger than the number of dimensions of "
                             f"tensor {a}.")
        return list(range(nd - axes, nd)), list(range(axes))
    axes = list(axes) if not hasattr(axes, "dtype") else axes
    if len(axes) != 2:
        raise ValueError("'axes' must be an integer or have length 2.")
    a_axes, b_axes = axes
    a_axes = [int(a_axes)] if np.ndim(a_axes) == 0 else [int(v) for v in a_axes]
    b_axes = [int(b_axes)] if np.ndim(b_axes) == 0 else [int(v) for v in b_axes]
    if len(a_axes) != len(b_axes):
        raise ValueError(f"Different number of contraction axes 'a' and 'b', "
                         f"{len(a_axes)} != {len(b_axes)}.")
    return a_axes, b_axes


def _reshape_for_matmul(x, axes, flipped):
    """x transposed so that `axes` come last (first if flipped) and reshaped to 2-D; also the
    free dims (a list when static, else a tensor)."""
    from flowloom.ops.math.reduction_ops import reduce_prod

    if x._shape.is_fully_defined():
        dims = x._shape.as_list()
        nd = len(dims)
        axes = [a if a >= 0 else a + nd for a in axes]
        free = [i for i in range(nd) if i not in axes]
        free_dims = [dims[i] for i in free]
        prod_free = int(np.prod(free_dims))
        prod_axes = int(np.prod([dims[a] for a in axes]))
        perm = axes + free if flipped else free + axes
        new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        if perm != list(range(nd)):
            x = array_ops.transpose(x, perm)
        if new_shape != dims:
            x = array_ops.reshape(x, new_shape)
        return x, free_dims
    nd = x._shape.ndims
    if nd is None:
        raise NotImplementedError("tensordot on inputs of unknown rank")
    axes = [a if a >= 0 else a + nd for a in axes]
    free = [i for i in range(nd) if i not in axes]
    shape = array_ops.shape(x)
    free_dims = array_ops.gather(shape, free)
    axes_dims = array_ops.gather(shape, axes)
    prod_free, prod_axes = reduce_prod(free_dims), reduce_prod(axes_dims)
    perm = axes + free if flipped else free + axes
    new_shape = array_ops.stack([prod_axes, prod_free] if flipped else [prod_free, prod_axes])
    x = array_ops.reshape(array_ops.transpose(x, perm), new_shape)
    return x, free_dims


def tensordot(a, b, axes, name=None):
    """Contracts `a` and `b` over the given axes (`axes`: an int N — the last N of `a` with
    the first N of `b` — or a pair of axis lists).

    Returns:
      A tensor of shape `a`'s free dims + `b`'s free dims.
    """
    from flowloom.ops.math.matmul_ops import matmul

    with name_scope(name, "Tensordot", [a, b, axes]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        a_axes, b_axes = _tensordot_axes(a, axes)
        a2, a_free = _reshape_for_matmul(a, a_axes, False)
        b2, b_free = _reshape_for_matmul(b, b_axes, True)
        product = matmul(a2, b2)
        if isinstance(a_free, list) and isinstance(b_free, list):
            return array_ops.reshape(product, a_free + b_free, name=scope)
        free = array_ops.concat([convert_to_tensor(f, dtype="int32") for f in (a_free, b_free)],
                                0)
        return array_ops.reshape(product, free, name=scope)
