"""Reductions (Sum, Mean, Max, ...), arg reductions, top-k and cumulative sums."""

import builtins

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework import op_def as op_registry
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.framework.tensor_util import constant_value
from flowloom.ops.array import array_ops
from flowloom.ops.math.math_ops import (_rfloordiv_operator, cast, divide, equal, maximum,
                                   not_equal, range_, truediv)


# -- Reductions ---------------------------------------------------------------------------------
def _reduction_shape(op):
    x, axes = op._inputs
    keep = op._attrs["keep_dims"]
    if axes._shape.ndims is not None and axes._shape.ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {axes._shape.ndims} for "
                         f"'{op._name}' (op: '{op.type}') with input shapes: {x._shape}, "
                         f"{axes._shape}.")
    av = constant_value(axes)
    s = x._shape
    if s.ndims is None:
        return unknown_shape()
    if av is None:
        return unknown_shape(s.ndims if keep else None)
    nd = s.ndims
    dims = s.as_list()
    axes_set = set()
    for a in np.ravel(av):
        a = int(a)
        if a < -nd or a >= nd:
            raise ValueError(f"Invalid reduction dimension {a} for input with {nd} dimensions.")
        axes_set.add(a % nd if nd else a)
    if keep:
        return TensorShape([1 if i in axes_set else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in axes_set])


def _reducer(fn, cast_back=True):
    def kernel(xp, x, axes, *, keep_dims):
        axis = tuple(int(a) for a in np.ravel(axes))
        nd = x.ndim
        for a in axis:
            if a < -nd or a >= nd:
                raise errors.InvalidArgumentError(
                    None, None, f"Invalid reduction dimension ({a} for input with {nd} "
                    "dimension(s)")
        if not axis or x.ndim == 0:
            return np.array(x)  # nothing to reduce: the output is the input (TF's kernels)
        axis = tuple(sorted({a % nd for a in axis}))  # an axis named twice reduces once (TF)
        r = fn(x, axis=axis, keepdims=keep_dims)
        r = np.asarray(r)
        if cast_back and r.dtype != x.dtype:
            r = r.astype(x.dtype)
        return r

    def specialize(op, consts, general):
        # Constant axes: normalized once per input rank (the general kernel checks a rank
        # it has not seen, and any input that is not an array).
        if consts[1] is None or consts[0] is not None:
            return None
        raw = tuple(int(a) for a in np.ravel(consts[1]))
        keep = op._attrs["keep_dims"]
        by_rank = {}

        def reduce_over_constant_axes(x, axes):
            if type(x) is not np.ndarray:
                return general(x, axes)
            axis = by_rank.get(x.ndim)
            if axis is None:
                r = general(x, axes)  # checks the axes for this rank
                nd = x.ndim
                if raw and nd:
                    by_rank[nd] = tuple(sorted({a % nd for a in raw}))
                return r
            r = np.asarray(fn(x, axis=axis, keepdims=keep))
            if cast_back and r.dtype != x.dtype:
                r = r.astype(x.dtype)
            return r
        return reduce_over_constant_axes

    kernel.specialize = specialize
    return kernel


def _mean(x, axis, keepdims):
    if x.dtype.kind in "iu":
        n = int(np.prod([x.shape[a] for a in axis])) if axis else 1
        s = np.sum(x, axis=axis, keepdims=keepdims)
        return s // n if n else s
    if type(x) is np.ndarray and x.dtype in _SUM_IN_DTYPE:
        # np.mean's own steps (numpy/_core/_methods.py `_mean`) without its generic
        # set-up: the sum in the input's dtype, divided by the count as an intp
        n = 1
        for a in axis:
            n *= x.shape[a]
        if n:
            s = np.add.reduce(x, axis=axis, keepdims=keepdims)
            if type(s) is np.ndarray:
                return np.true_divide(s, np.intp(n), out=s, casting="unsafe")
            return s.dtype.type(s / np.intp(n))
    return np.mean(x, axis=axis, keepdims=keepdims)


_SUM_IN_DTYPE = (np.dtype(np.float32), np.dtype(np.float64))


def _extreme(fn):
    def r(x, axis, keepdims):
        if x.size == 0:
            ident = -np.inf if fn is np.max else np.inf
            if x.dtype.kind in "iu":
                info = np.iinfo(x.dtype)
                ident = info.min if fn is np.max else info.max
            shape = [1 if i in [a % x.ndim for a in axis] else d for i, d in enumerate(x.shape)]
            out = np.full(shape, ident, dtype=x.dtype)
            return out if keepdims else np.squeeze(out, axis=axis)
        return fn(x, axis=axis, keepdims=keepdims)
    return r


def _euclidean_norm(x, axis, keepdims):
    return np.sqrt(np.sum(x * np.conj(x), axis=axis, keepdims=keepdims))


_REDUCTIONS = [
    ("Sum", np.sum, "T"), ("Mean", _mean, "T"), ("Prod", np.prod, "T"),
    ("EuclideanNorm", _euclidean_norm, "T"),
    ("Max", _extreme(np.max), "T"), ("Min", _extreme(np.min), "T"),
    ("Any", np.any, "bool"), ("All", np.all, "bool"),
]
REDUCTION_OPS = {}
for _type, _fn, _t in _REDUCTIONS:
    _od = REDUCTION_OPS[_type] = defop(_type, inputs=[f"input: {_t}", "reduction_indices: Tidx"],
                outputs=[f"output: {_t}"], attrs={"keep_dims": False, "Tidx": dtypes.int32})
    _od.shape(_reduction_shape)
    _od.kernel(_reducer(_fn))
    if _t == "bool":
        _od.no_gradient()


def _sum_grad(op, grad):
    """Gradient of Sum: the incoming gradient broadcast back over the reduced axes."""
    from flowloom.ops.array import broadcast_ops

    x, axes = op._inputs
    in_shape = x._shape
    axes_value = constant_value(axes)
    if in_shape.ndims is not None and axes_value is not None:
        rank = in_shape.ndims
        dims = in_shape.as_list()
        if np.array_equal(axes_value, np.arange(rank)):  # reduce all: Reshape + Tile
            grad = array_ops.reshape(grad, [1] * rank)
            if None not in dims:
                shape = array_ops.constant(dims, dtype=dtypes.int32)
            else:
                shape = array_ops.shape(x)
            return [broadcast_ops.tile(grad, shape), None]
        if None not in dims:
            # TF caches this per graph; on a miss it builds (dead) Maximum and floordiv ops
            # for the tile multiples and folds them, so the first gradient names them.
            cache = op._graph.__dict__.setdefault("_reduced_shape_cache", {})
            key = (tuple(dims), tuple(int(a) for a in np.reshape(axes_value, -1)))
            if key not in cache:
                kept = broadcast_ops.reduced_shape(np.array(dims, dtype=np.int32), key[1])
                if _tf1_graphs():  # TF 1.15 builds (dead) reduced_shape ops first
                    reduced_shape(tuple(dims), key[1])
                _rfloordiv_operator(maximum(tuple(int(d) for d in kept), 1), tuple(dims))
                cache[key] = ([int(d) for d in kept],
                              [int(d) for d in np.array(dims) // np.maximum(kept, 1)])
            kept, scaling = cache[key]
            grad = array_ops.reshape(grad, kept)
            return [broadcast_ops.tile(grad, scaling), None]
    shape = array_ops.shape(x)
    if _tf1_graphs():
        # TF 1.15's ops (they count in its default op seeds): Reshape to the kept-dims shape
        # (always), Tile by shape // max(kept, 1)
        kept = reduced_shape(shape, axes)
        scaling = broadcast_ops.safe_shape_div(shape, kept)
        return [broadcast_ops.tile(array_ops.reshape(grad, kept), scaling), None]
    if not op._attrs["keep_dims"]:
        grad = array_ops.reshape(grad, broadcast_ops.reduced_shape(shape, axes))
    return [broadcast_ops.broadcast_to(grad, shape), None]


REDUCTION_OPS["Sum"].gradient(_sum_grad)


def _tf1_graphs():
    from flowloom.ops.random.random_ops import seed_rules

    return seed_rules() == "1"


@REDUCTION_OPS["Mean"].gradient
def _(op, grad):
    sum_grad = _sum_grad(op, grad)[0]
    in_shape, out_shape = op._inputs[0]._shape, op._outputs[0]._shape
    if in_shape.is_fully_defined() and out_shape.is_fully_defined():
        factor = int(np.prod(in_shape.as_list())) // builtins.max(
            int(np.prod(out_shape.as_list())), 1)
        factor = array_ops.constant(factor, dtype=sum_grad.dtype.base_dtype)
    elif _tf1_graphs():
        # TF 1.15's ops (they count in its default op seeds): prod(shape(x)) //
        # max(prod(shape(y)), 1)
        in_shape = array_ops.shape(op._inputs[0])
        out_shape = array_ops.shape(op._outputs[0])
        factor = reduce_prod(in_shape) // maximum(reduce_prod(out_shape), 1)
    else:
        shape = array_ops.shape(op._inputs[0])
        rank = array_ops.size(shape)
        axes = cast(op._inputs[1], rank.dtype.base_dtype)
        axes = (axes + rank) % rank
        factor = reduce_prod(array_ops.gather(shape, axes))
    return truediv(sum_grad, cast(factor, sum_grad.dtype.base_dtype)), None


def _min_or_max_grad(op, grad):
    from flowloom.ops.array import broadcast_ops

    x, axes = op._inputs
    shape = array_ops.shape(x)
    y = op._outputs[0]
    if _tf1_graphs():  # TF 1.15's ops: reduced_shape built and both reshaped, always
        kept = reduced_shape(shape, axes)
        y = array_ops.reshape(y, kept)
        grad = array_ops.reshape(grad, kept)
    elif not op._attrs["keep_dims"]:
        kept = broadcast_ops.reduced_shape(shape, axes)
        y = array_ops.reshape(y, kept)
        grad = array_ops.reshape(grad, kept)
    else:
        kept = array_ops.shape(y)
    # Ties share the gradient equally, as in TF.
    indicators = cast(equal(y, x), grad.dtype.base_dtype)
    num_selected = array_ops.reshape(reduce_sum(indicators, axes), kept)
    return [divide(indicators, num_selected) * grad, None]


REDUCTION_OPS["Max"].gradient(_min_or_max_grad)
REDUCTION_OPS["Min"].gradient(_min_or_max_grad)


@REDUCTION_OPS["Prod"].gradient
def _(op, grad):
    """Product of all other entries as exclusive cumprods from both ends (safe with zeros)."""
    from flowloom.framework.graph import device
    from flowloom.ops.array import broadcast_ops
    from flowloom.ops.math import scan_ops

    x, axes = op._inputs
    input_shape = array_ops.shape(x)
    reduction_indices = array_ops.reshape(axes, [-1])
    tf1 = _tf1_graphs()
    if tf1:  # TF 1.15's ops: Reshape to the kept dims and Tile
        kept = reduced_shape(input_shape, axes)
        scaling = broadcast_ops.safe_shape_div(input_shape, kept)
        grad = broadcast_ops.tile(array_ops.reshape(grad, kept), scaling)
    else:
        if not op._attrs["keep_dims"]:
            grad = array_ops.reshape(grad, broadcast_ops.reduced_shape(input_shape, axes))
        grad = broadcast_ops.broadcast_to(grad, input_shape)
    # Pack the reduced axes into one (first) dimension and the others into a second.
    with device("/cpu:0"):
        rank = array_ops.rank(x)
        if tf1:
            reduced = cast((reduction_indices + rank) % rank, dtypes.int32)
        else:
            reduction_indices = cast(reduction_indices, rank.dtype.base_dtype)
            reduced = (reduction_indices + rank) % rank
        idx = range_(0, rank)
        other, _ = array_ops.setdiff1d(idx, reduced, reduced.dtype.base_dtype)
        perm = array_ops.concat([reduced, other], 0)
        reduced_num = reduce_prod(array_ops.gather(input_shape, reduced))
        other_num = reduce_prod(array_ops.gather(input_shape, other))
    permuted = array_ops.transpose(x, perm)
    permuted_shape = array_ops.shape(permuted)
    reshaped = array_ops.reshape(permuted, (reduced_num, other_num))
    left = scan_ops.cumprod(reshaped, axis=0, exclusive=True)
    right = scan_ops.cumprod(reshaped, axis=0, exclusive=True, reverse=True)
    # complex inputs: the gradient is in the conjugate direction (as TF)
    from flowloom.ops.math.unary_ops import conj

    y = array_ops.reshape(conj(left) * conj(right), permuted_shape)
    out = grad * array_ops.transpose(y, array_ops.invert_permutation(perm))
    return array_ops.reshape(out, input_shape), None


def _reduction_dims(x, axis):
    if axis is not None:
        return axis
    r = x._shape.ndims
    if r is not None:
        return constant(np.arange(r, dtype=np.int32), name="Const")
    return range_(0, array_ops.rank(x), 1)


def constant(value, dtype=None, name="Const"):
    return array_ops.constant(value, dtype=dtype, name=name)


def _reduce(op_type, default_name):
    def fn(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
           keep_dims=None):
        if axis is not None and reduction_indices is not None:
            raise ValueError("Cannot specify both 'axis' and 'reduction_indices'.")
        axis = axis if axis is not None else reduction_indices
        keep = bool(keepdims if keepdims is not None else (keep_dims or False))
        # As TF: no name scope, so the all-axes Const is a sibling ("Const"), not "Sum/Const".
        # An op with a fixed input type (All, Any: bool) converts Python values to it.
        x = convert_to_tensor(input_tensor,
                              dtype=op_registry.get(op_type).input_args[0].fixed_dtype)
        out = apply_op(op_type, (x, _reduction_dims(x, axis)), name=name or default_name,
                       keep_dims=keep).outputs[0]
        if axis is None and not keep:
            out.set_shape([])  # reducing everything gives a scalar, whatever the rank
        return out
    fn.__name__ = f"reduce_{default_name.lower()}"
    fn.__doc__ = f"Reduces `input_tensor` along `axis` with {op_type} (all axes when None)."
    return fn


reduce_sum = _reduce("Sum", "Sum")
reduce_mean = _reduce("Mean", "Mean")
reduce_prod = _reduce("Prod", "Prod")
reduce_max = _reduce("Max", "Max")
reduce_min = _reduce("Min", "Min")
reduce_any = _reduce("Any", "Any")
reduce_all = _reduce("All", "All")
reduce_euclidean_norm = _reduce("EuclideanNorm", "EuclideanNorm")


@REDUCTION_OPS["EuclideanNorm"].gradient
def _(op, grad):
    output = op._outputs[0]
    if not op._attrs["keep_dims"]:
        kept = reduced_shape(array_ops.shape(op._inputs[0]), op._inputs[1])
        output = array_ops.reshape(output, kept)
        grad = array_ops.reshape(grad, kept)
    return [truediv(op._inputs[0], output / grad), None]


def reduced_shape(input_shape, axes):
    """The shape (a tensor) of a reduction of a tensor of shape `input_shape` over `axes`
    with keepdims: the reduced dimensions set to 1.

    Example:
      reduced_shape([2, 3, 5, 7], [1, 2])  # [2, 1, 1, 7]
    """
    from flowloom.ops.array import data_flow_ops
    from flowloom.ops.math import math_ops

    input_shape = cast(input_shape, dtypes.int32)
    axes = cast(axes, dtypes.int32)
    input_rank = array_ops.size(input_shape)
    axes = (axes + input_rank) % input_rank
    axes_shape = array_ops.shape(axes)
    return data_flow_ops.dynamic_stitch(
        [math_ops.range_(input_rank), axes], [input_shape, array_ops.fill(axes_shape, 1)])


def count_nonzero(input_tensor, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None):
    with name_scope(name, "count_nonzero", [input_tensor]):
        x = convert_to_tensor(input_tensor)
        zero = array_ops.zeros([], dtype=x.dtype)
        return cast(reduce_sum(cast(not_equal(x, zero), dtypes.int64), axis=axis,
                               keepdims=keepdims, reduction_indices=reduction_indices,
                               keep_dims=keep_dims), dtype)



# ================================================================================================
# Training ops (branch `ops`): arg reductions, cumulative sums, top-k, segment reductions.
# Their gradients stand next to them; `math_grad_helpers` style code lives with the ops.
# ================================================================================================
def _axis_value(op, index=1):
    v = constant_value(op._inputs[index])
    return None if v is None else int(np.ravel(v)[0])


def _arg_reduce_shape(op):
    s = op._inputs[0]._shape
    axis = _axis_value(op)
    if s.ndims is None:
        return unknown_shape()
    if axis is None:
        return unknown_shape(builtins.max(s.ndims - 1, 0))
    nd = s.ndims
    if axis < -nd or axis >= nd:
        raise ValueError(f"Expected dimension in the range [{-nd}, {nd}), but got {axis}")
    dims = s.as_list()
    del dims[axis % nd]
    return TensorShape(dims)


def _arg_reduce_kernel(fn):
    def kernel(xp, x, dimension, *, output_type):
        axis = int(np.ravel(dimension)[0])
        nd = x.ndim
        if axis < -nd or axis >= nd:
            raise errors.InvalidArgumentError(
                None, None, f"Expected dimension in the range [{-nd}, {nd}), but got {axis}")
        if x.shape[axis] == 0:
            raise errors.InvalidArgumentError(
                None, None, f"Reduction axis {axis} is empty in shape "
                f"[{','.join(map(str, x.shape))}]")
        return fn(x, axis=axis).astype(output_type.as_numpy_dtype)
    return kernel


for _type, _fn in (("ArgMax", np.argmax), ("ArgMin", np.argmin)):
    _od = defop(_type, inputs=["input: T", "dimension: Tidx"], outputs=["output: output_type"],
                attrs={"Tidx": dtypes.int32, "output_type": dtypes.int64})
    _od.shape(_arg_reduce_shape)
    _od.kernel(_arg_reduce_kernel(_fn))
    _od.no_gradient()


def _arg_reduce(op_type):
    def fn(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
        if axis is not None and dimension is not None:
            raise ValueError("Cannot specify both 'axis' and 'dimension'")
        axis = dimension if axis is None else axis
        return apply_op(op_type, (input, 0 if axis is None else axis), name=name,
                        output_type=dtypes.as_dtype(output_type)).outputs[0]
    fn.__name__ = op_type.lower()
    fn.__doc__ = (f"The index of the {op_type[3:].lower()}imum along `axis` (op `{op_type}`).\n\n"
                  "    Args:\n      input: a numeric tensor.\n      axis: the axis (default 0).\n"
                  "      output_type: int32 or int64.\n\n    Returns:\n      A tensor of "
                  "`output_type` with `axis` removed.\n")
    return fn


argmax = arg_max = _arg_reduce("ArgMax")
argmin = arg_min = _arg_reduce("ArgMin")


TopKV2 = defop("TopKV2", inputs=["input: T", "k: Tk"],
               outputs=["values: T", "indices: index_type"],
               attrs={"sorted": True, "Tk": dtypes.int32, "index_type": dtypes.int32})


@TopKV2.shape
def _(op):
    s = op._inputs[0]._shape
    kv = constant_value(op._inputs[1])
    if s.ndims is None:
        return [unknown_shape(), unknown_shape()]
    if s.ndims < 1:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    dims = s.as_list()
    if kv is not None:
        k = int(kv)
        if k < 0:
            raise ValueError(f"Input 'k' must be >= 0, but is {k}")
        if dims[-1] is not None and dims[-1] < k:
            raise ValueError(f"input must have last dimension >= k = {k} but is {dims[-1]}")
    out = TensorShape(dims[:-1] + [None if kv is None else int(kv)])
    return [out, out]


@TopKV2.kernel
def _(xp, x, k, *, sorted, index_type):  # noqa: A002 - TF's attr name
    k = int(k)
    if k < 0:
        raise errors.InvalidArgumentError(None, None, f"Need k >= 0, got {k}")
    if x.shape[-1] < k:
        raise errors.InvalidArgumentError(
            None, None, f"input must have at least k columns. Had {x.shape[-1]}, needed {k}")
    # Stable sort of the negated values: among equal values the lower index comes first.
    key = -x.astype(np.float64) if x.dtype.kind in "iub" else -x
    idx = xp.argsort(key, axis=-1, kind="stable")[..., :k].astype(index_type.as_numpy_dtype)
    return xp.take_along_axis(x, idx, axis=-1), idx


@TopKV2.gradient
def _(op, grad, _indices_grad):
    x = op._inputs[0]
    if grad is None:
        return [None, None]
    in_shape = array_ops.shape(x)
    last = array_ops.reshape(array_ops.slice(in_shape, array_ops.reshape(
        array_ops.rank(x) - 1, [1]), [1]), [])
    indices = op._outputs[1]
    k = array_ops.reshape(array_ops.slice(array_ops.shape(indices), array_ops.reshape(
        array_ops.rank(indices) - 1, [1]), [1]), [])
    ind_2d = array_ops.reshape(indices, array_ops.stack([-1, k]))
    outer = array_ops.slice(array_ops.shape(ind_2d), [0], [1])
    offsets = array_ops.expand_dims(range_(0, array_ops.reshape(outer, []) * last, last), -1)
    flat = array_ops.reshape(ind_2d + offsets, [-1, 1])
    total = reduce_prod(in_shape, keepdims=True)
    dx = array_ops.scatter_nd(flat, array_ops.reshape(grad, [-1]), total)
    return [array_ops.reshape(dx, in_shape), None]


def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):  # noqa: A002
    """The `k` largest entries of the last dimension and their indices.

    Args:
      input: a tensor with at least one dimension.
      k: how many entries to keep.
      sorted: ignored beyond TF's meaning: results are always in descending order.

    Returns:
      (values, indices), each shaped `input.shape[:-1] + [k]`.
    """
    op = apply_op("TopKV2", (input, k), name=name, sorted=sorted,
                  index_type=dtypes.as_dtype(index_type))
    return tuple(op.outputs)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum of `x` along `axis` (op `Cumsum`, defined in scan_ops)."""
    from flowloom.ops.math import scan_ops

    return scan_ops.cumsum(x, axis=axis, exclusive=exclusive, reverse=reverse, name=name)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums `data` per segment id, ids in any order, negative ids dropped (segment_ops)."""
    from flowloom.ops.math import segment_ops

    return segment_ops.unsorted_segment_sum(data, segment_ids, num_segments, name=name)
