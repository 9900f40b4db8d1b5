"""Selecting elements: Where, Select/SelectV2, GatherV2, GatherNd, ScatterNd, boolean_mask."""

import builtins

import numpy as np

from flowloom.framework import common_shapes, dtypes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import get_default_graph, name_scope
from flowloom.framework.ops import (Tensor, convert_to_tensor)
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.framework.tensor_util import constant_value
from flowloom.framework.shape_eval import input_value, input_value_as_shape


_builtin_slice = builtins.slice

from flowloom.ops.array.array_ops import (_dense, _dims_str, _shape_str, concat, expand_dims, ones,
                                    rank, reshape, shape, size, squeeze, stack, transpose, zeros,
                                    zeros_like)


def _math():
    from flowloom.ops.math import math_ops

    return math_ops



# -- Where, GatherV2, boolean_mask -------------------------------------------------------------------
Where = defop("Where", inputs=["input: T"], outputs=["index: int64"], attrs={"T": dtypes.bool_})


@Where.shape
def _(op):
    return TensorShape([None, op._inputs[0]._shape.ndims])


@Where.kernel
def _(xp, x):
    return xp.argwhere(x).astype(np.int64)


Where.no_gradient()


GatherV2 = defop("GatherV2", inputs=["params: Tparams", "indices: Tindices", "axis: Taxis"],
                 outputs=["output: Tparams"], attrs={"batch_dims": 0})


def _batch_dims(batch_dims, indices_rank):
    batch_dims = int(batch_dims or 0)
    return batch_dims + indices_rank if batch_dims < 0 else batch_dims


@GatherV2.shape
def _(op):
    p, i, a = op._inputs
    av = input_value(a)
    if p._shape.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    if av is None:
        # TF: only the rank is known, params' + indices' - 1 - batch_dims.
        if p._shape.ndims is None or i._shape.ndims is None:
            return unknown_shape()
        return unknown_shape(p._shape.ndims + i._shape.ndims - 1 -
                             int(op._attrs.get("batch_dims", 0) or 0))
    axis = int(av)
    need = -axis if axis < 0 else axis + 1
    if p._shape.ndims is not None and p._shape.ndims < need:
        raise ValueError(f"Shape must be at least rank {need} but is rank {p._shape.ndims}")
    if p._shape.ndims is None or i._shape.ndims is None:
        return unknown_shape()
    dims = p._shape.as_list()
    if axis < 0:
        axis += len(dims)
    bd = _batch_dims(op._attrs.get("batch_dims", 0), i._shape.ndims)
    if not 0 <= bd <= axis:
        raise ValueError(f"batch_dims ({bd}) must be less than or equal to axis ({axis}) for "
                         f"'{op.name}' (op: 'GatherV2')")
    return TensorShape(dims[:axis] + i._shape.as_list()[bd:] + dims[axis + 1:])


@GatherV2.kernel
def _(xp, params, indices, axis, *, batch_dims):
    axis = int(axis)
    if not -params.ndim <= axis < params.ndim:
        raise errors.InvalidArgumentError(
            None, None, f"Expected axis in the range [{-params.ndim}, {params.ndim}), but got "
            f"{axis}")
    if axis < 0:
        axis += params.ndim
    bd = _batch_dims(batch_dims, indices.ndim)
    n = params.shape[axis]
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        k = int(np.argmax(((indices < 0) | (indices >= n)).ravel()))
        where = ",".join(str(int(j)) for j in np.unravel_index(k, indices.shape))
        raise errors.InvalidArgumentError(
            None, None, f"indices{'[' + where + ']' if indices.ndim else ''} = "
            f"{int(indices.ravel()[k])} is not in [0, {n})")
    if bd == 0:
        return xp.take(params, indices, axis=axis)
    if params.shape[:bd] != indices.shape[:bd]:
        raise errors.InvalidArgumentError(
            None, None, f"params.shape[:{bd}] {_shape_str(params.shape[:bd])} and "
            f"indices.shape[:{bd}] {_shape_str(indices.shape[:bd])} must match for batch_dims")
    batch = params.shape[:bd]
    flat_p = params.reshape((-1,) + params.shape[bd:])
    flat_i = indices.reshape((-1,) + indices.shape[bd:])
    out = [xp.take(flat_p[b], flat_i[b], axis=axis - bd) for b in range(flat_p.shape[0])]
    rest = (params.shape[bd:axis] + indices.shape[bd:] + params.shape[axis + 1:])
    if not out:
        return xp.zeros(batch + rest, dtype=params.dtype)
    return xp.stack(out).reshape(batch + rest)


@GatherV2.gradient
def _(op, grad):
    """Axis 0: the rows of grad as IndexedSlices of params. Other axes (and batch_dims):
    the gathered axis moved next to the batch dimensions, then a segment sum, as TF."""
    from flowloom.framework.indexed_slices import IndexedSlices
    from flowloom.ops.math import math_ops

    params, indices, axis = op._inputs
    from flowloom.ops.random.random_ops import seed_rules

    with get_default_graph().colocate_with(params):
        if seed_rules() == "1":  # TF 1.15: an int64 shape cast to int32 (one op more)
            params_shape = math_ops.cast(shape(params, out_type=dtypes.int64), dtypes.int32)
        else:
            params_shape = shape(params)
    indices_size = expand_dims(size(indices), 0)
    axis_static = constant_value(axis)
    batch_dims = op._attrs.get("batch_dims", 0) or 0
    if batch_dims < 0:
        if indices._shape.ndims is None:
            raise NotImplementedError("GatherV2 gradient with negative batch_dims and indices "
                                      "of unknown rank")
        batch_dims += indices._shape.ndims
    grad = _dense(grad)
    if axis_static is not None and int(axis_static) == 0 and batch_dims == 0:
        values_shape = concat([indices_size, params_shape[1:]], 0)
        values = reshape(grad, values_shape)
        indices = reshape(indices, indices_size)
        return [IndexedSlices(values, indices, params_shape), None, None]
    if axis_static is not None and int(axis_static) < 0:
        axis = axis + rank(params)
    outer_shape = params_shape[:axis]
    inner_shape = params_shape[axis:][1:]
    values_shape = concat([outer_shape, [-1], inner_shape], 0)
    values_dims = size(values_shape)
    axis_dims = size(outer_shape)
    outer_batches_indices = math_ops.range_(batch_dims)
    batch_axis_indices = math_ops.range_(batch_dims, axis_dims)
    inner_axes_indices = math_ops.range_(axis_dims + 1, values_dims)
    values = reshape(grad, values_shape)
    # Move the gathered axis next to the batch dimensions, sum the rows into params' axis,
    # move it back.
    transpose_dims = concat([outer_batches_indices, stack([axis_dims]), batch_axis_indices,
                             inner_axes_indices], 0)
    values_transpose = transpose(values, transpose_dims)
    if batch_dims == 0:
        gather(params_shape, transpose_dims)  # TF builds (and does not use) the permuted shape
    moved_shape = params_shape
    if batch_dims and not (axis_static is not None and int(axis_static) == batch_dims):
        # The batch offsets count the gathered axis, now next to the batch dimensions (TF
        # 1.15 used params' own dimension batch_dims there, which is wrong for axis >
        # batch_dims).
        moved_shape = concat([params_shape[:batch_dims], expand_dims(params_shape[axis], 0),
                              params_shape[batch_dims:axis], params_shape[axis:][1:]], 0)
    params_grad = _batch_gather_grad(moved_shape, values_transpose, indices, batch_dims,
                                     params_shape[axis])
    invert_dims = concat([outer_batches_indices, batch_axis_indices + 1, [batch_dims],
                          inner_axes_indices], 0)
    params_grad = transpose(params_grad, invert_dims)
    return [reshape(params_grad, shape(params)), None, None]


def _batch_indices(params_shape, indices, batch_dims):
    """`indices` plus the offset of each batch entry in the flattened batch dimensions."""
    from flowloom.ops.math import math_ops

    ndims = indices._shape.ndims
    dtype = indices.dtype.base_dtype
    params_shape = math_ops.cast(params_shape, dtype)
    accum = ones((), dtype=dtype)
    out = indices
    for dim in range(batch_dims, 0, -1):
        dim_value = params_shape[dim - 1]
        accum = accum * params_shape[dim]
        dim_indices = math_ops.range_(0, dim_value) * accum
        dim_shape = stack([1] * (dim - 1) + [dim_value] + [1] * (ndims - dim), axis=0)
        out = out + reshape(math_ops.cast(dim_indices, dtype), dim_shape)
    return out


def _batch_gather_grad(params_shape, values, indices, batch_dims, gather_dim_size):
    from flowloom.ops.math import math_ops
    from flowloom.ops.math import segment_ops

    indices_size = expand_dims(size(indices), 0)
    if batch_dims:
        values_shape = shape(values)
        outer_shape = values_shape[:batch_dims]
        inner_shape = values_shape[batch_dims:][1:]
        batch_size = math_ops.reduce_prod(outer_shape, [0])
        flat_values_shape = concat([[-1], inner_shape], 0)
        gather_dim_size = gather_dim_size * batch_size
        indices = _batch_indices(params_shape, indices, batch_dims)
        values = reshape(values, flat_values_shape)
    indices = reshape(indices, indices_size)
    params_grad = segment_ops.unsorted_segment_sum(values, indices, gather_dim_size)
    if batch_dims:
        params_grad = reshape(params_grad, concat([outer_shape, flat_values_shape], 0))
    return params_grad


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Gathers slices of `params` along `axis` at `indices`.

    With `batch_dims` = B, the first B dimensions of `params` and `indices` are batch
    dimensions gathered pairwise (`axis` defaults to B and must be at least B).
    """
    batch_dims = batch_dims or 0
    if axis is None:
        axis = batch_dims
    if batch_dims:
        if hasattr(params, "value") and not isinstance(params, Tensor):
            params = params.value()
        return apply_op("GatherV2", (params, indices, axis), name=name,
                        batch_dims=int(batch_dims)).outputs[0]
    if hasattr(params, "sparse_read") and (axis is None or axis == 0):
        # A resource variable: ResourceGather, whose gradient is IndexedSlices (as TF).
        return params.sparse_read(indices, name=name)
    if hasattr(params, "_as_graph_element") and hasattr(params, "value") and \
            not isinstance(params, Tensor):
        params = params.value()
    return apply_op("GatherV2", (params, indices, 0 if axis is None else axis),
                    name=name).outputs[0]


def where(condition, x=None, y=None, name=None):
    """With one argument: the coordinates of true elements. With three: see `tf.where`."""
    if x is None and y is None:
        return apply_op("Where", (condition,), name=name).outputs[0]
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return apply_op("Select", (condition, x, y), name=name).outputs[0]


Select = defop("Select", inputs=["condition: bool", "t: T", "e: T"], outputs=["output: T"])


@Select.shape
def _(op):
    # TF's rule: t and e merge; a condition of rank 0 selects whole tensors, of rank 1 (and
    # t of rank >= 1) the rows along t's first dimension, otherwise it has t's shape.
    c, t, e = (x._shape for x in op._inputs)
    data = common_shapes.merge(t, e)
    if c.ndims is None or data.ndims is None or c.ndims == 0:
        return data
    if c.ndims != 1 or data.ndims == 0:
        return common_shapes.merge(data, c)
    common_shapes.merge(c, data[:1])
    return data


@Select.kernel
def _(xp, c, t, e):
    if c.ndim == 1 and t.ndim > 1:
        c = c.reshape((-1,) + (1,) * (t.ndim - 1))
    return xp.where(c, t, e)


@Select.gradient
def _(op, grad):
    c, x, _ = op._inputs
    zeros = zeros_like(x)
    return None, where(c, grad, zeros), where(c, zeros, grad)


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The elements of `tensor` where `mask` is true (mask covers the leading dimensions)."""
    with name_scope(name, values=[tensor, mask]):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        axis = axis or 0
        ndims_mask = mask._shape.ndims
        if ndims_mask is None:
            raise ValueError("Number of mask dimensions must be specified, even if some "
                             "dimensions are None.  E.g. shape=[None] is ok, but shape=None is "
                             "not.")
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        lead_dims = tensor._shape[axis:axis + ndims_mask] if tensor._shape.ndims is not None \
            else None
        if lead_dims is not None and not lead_dims.is_compatible_with(mask._shape):
            raise ValueError(f"Shapes {lead_dims} and {mask._shape} are incompatible")
        if axis != 0 or ndims_mask != 1:
            from flowloom.ops.math import math_ops

            shape_t = shape(tensor)
            lead = math_ops.reduce_prod(shape_t[axis:axis + ndims_mask], [0])
            new_shape = concat([shape_t[:axis], [lead], shape_t[axis + ndims_mask:]], 0)
            tensor = reshape(tensor, new_shape)
            mask = reshape(mask, [-1])
        indices = squeeze(where(mask), axis=[1])
        return gather(tensor, indices, axis=axis)








GatherNd = defop("GatherNd", inputs=["params: Tparams", "indices: Tindices"],
                 outputs=["output: Tparams"])


def gather_nd_shape(p, i):
    """TF's GatherNd shape function on the params and indices shapes."""
    if p.ndims is None or i.ndims is None:
        return unknown_shape()
    depth = i.as_list()[-1] if i.ndims else None
    if depth is None:
        return unknown_shape()
    if depth > p.ndims:
        raise ValueError(f"indices.shape[-1] must be <= params.rank, but saw indices shape: "
                         f"{_dims_str(i)} and params shape: {_dims_str(p)}")
    return TensorShape(i.as_list()[:-1] + p.as_list()[depth:])


GatherNd.shape(lambda op: gather_nd_shape(op._inputs[0]._shape, op._inputs[1]._shape))


def _check_nd_indices(indices, shape, what):
    """The index rows of `indices` ([..., depth]) as a [rows, depth] array, each checked
    against `shape` (TF's message: indices[0,1] = [7] does not index into param shape [3])."""
    depth = indices.shape[-1]
    rows = int(np.prod(indices.shape[:-1], dtype=np.int64))
    flat = indices.reshape(rows, depth)
    bad = np.any((flat < 0) | (flat >= np.array(shape[:depth], dtype=np.int64)), axis=1)
    if bad.any():
        k = int(np.argmax(bad))
        pos = np.unravel_index(k, indices.shape[:-1])
        raise errors.InvalidArgumentError(
            None, None, "indices[%s] = [%s] does not index into %s %s" % (
                ",".join(str(int(j)) for j in pos), ", ".join(str(int(v)) for v in flat[k]),
                what, _shape_str(shape)))
    return flat


def gather_nd_array(xp, params, indices):
    """GatherNd's kernel on arrays (also ResourceGatherNd's)."""
    if params.ndim < 1:
        raise errors.InvalidArgumentError(
            None, None, f"params must be at least a vector: {_shape_str(params.shape)}")
    if indices.ndim < 1:
        raise errors.InvalidArgumentError(
            None, None, f"indices must be at least a vector: {_shape_str(indices.shape)}")
    depth = indices.shape[-1]
    if depth > params.ndim:
        raise errors.InvalidArgumentError(
            None, None, f"index innermost dimension length must be <= params rank; saw: "
            f"{depth} vs. {params.ndim}")
    if np.prod(indices.shape[:-1], dtype=np.int64) > 0 and params.size == 0:
        raise errors.InvalidArgumentError(
            None, None, "Requested more than 0 entries, but params is empty.  Params shape: "
            f"{_shape_str(params.shape)}")
    flat = _check_nd_indices(indices, params.shape, "param shape")
    out = params[tuple(flat.T)] if depth else np.broadcast_to(
        params, (flat.shape[0],) + params.shape)
    # (np.ascontiguousarray would make a 0-d result 1-d)
    return xp.array(out.reshape(indices.shape[:-1] + params.shape[depth:]), order="C")


GatherNd.kernel(gather_nd_array)


@GatherNd.gradient
def _(op, grad):
    """TF 1.15's: IndexedSlices when the indices pick rows ([N, 1]), else a ScatterNd."""
    from flowloom.framework.indexed_slices import IndexedSlices
    from flowloom.ops.array.array_ops import squeeze

    params, indices = op._inputs
    params_shape = shape(params, out_type=indices.dtype.base_dtype)
    i = indices._shape
    if i.ndims == 2 and i[-1].value == 1:
        return [IndexedSlices(grad, squeeze(indices, axis=-1), params_shape), None]
    return [scatter_nd(indices, grad, params_shape), None]


def gather_nd(params, indices, name=None, batch_dims=0):
    """Gathers slices of `params` addressed by the last dimension of `indices`.

    Args:
      params: the tensor to read.
      indices: int32/int64 tensor; `indices[..., :]` is an index into `params`.

    Returns:
      A tensor of shape `indices.shape[:-1] + params.shape[indices.shape[-1]:]`.
    """
    static_batch_dims = constant_value(batch_dims) if isinstance(batch_dims, Tensor) \
        else batch_dims
    if static_batch_dims is not None and np.size(static_batch_dims) == 1:
        batch_dims = int(np.reshape(static_batch_dims, -1)[0])
    if isinstance(batch_dims, Tensor) or batch_dims != 0:
        return batch_gather_nd(params, indices, batch_dims=batch_dims, name=name)
    if hasattr(params, "gather_nd") and hasattr(params, "sparse_read"):
        return params.gather_nd(indices, name=name)  # a resource variable: ResourceGatherNd
    if hasattr(params, "_as_graph_element") and hasattr(params, "value") and \
            not isinstance(params, Tensor):
        params = params.value()
    return apply_op("GatherNd", (params, indices), name=name).outputs[0]


def batch_gather_nd(params, indices, batch_dims, name=None):
    """`gather_nd` with `batch_dims` leading dimensions shared by `params` and `indices`
    (TF 1.15's construction: a grid of batch positions prepended to the indices).

    Raises:
      TypeError: if `batch_dims` is not an int.
      ValueError: if it is negative or not below the ranks of `params` and `indices`.
    """
    from flowloom.ops.array import array_ops, broadcast_ops, grid_ops
    from flowloom.ops.math import math_ops, reduction_ops

    with name_scope(name, "BatchGatherND", [params, indices]):
        indices = convert_to_tensor(indices, name="indices")
        params = convert_to_tensor(params, name="params")
        if not isinstance(batch_dims, int):
            raise TypeError(f"batch_dims must be an int; got {batch_dims!r}")
        if batch_dims < 0:
            raise ValueError("tf.gather_nd does not allow negative batch_dims.")
        params_ndims, indices_ndims = params.shape.ndims, indices.shape.ndims
        if indices_ndims is not None and batch_dims >= indices_ndims:
            raise ValueError(f"batch_dims = {batch_dims} must be less than rank(indices) = "
                             f"{indices_ndims}")
        if params_ndims is not None and batch_dims >= params_ndims:
            raise ValueError(f"batch_dims = {batch_dims} must be less than rank(params) = "
                             f"{params_ndims}")
        p_shape, i_shape, static_batch_dims = params.shape, indices.shape, batch_dims
        expand = batch_dims == 0
        if expand:
            params = array_ops.expand_dims(params, axis=0)
            indices = array_ops.expand_dims(indices, axis=0)
            batch_dims = 1
        params_shape = array_ops.shape(params)
        indices_shape = array_ops.shape(indices)
        batch_shape = params_shape[:batch_dims]
        batch_size = reduction_ops.reduce_prod(batch_shape, [0])
        index_internal_ndims = array_ops.rank(indices) - batch_dims - 1
        indices_internal_shape = indices_shape[batch_dims:-1]
        # A grid of every batch position, one row per batch element.
        dim_ranges = [math_ops.cast(math_ops.range_(0, x, 1), indices.dtype)
                      for x in array_ops.unstack(batch_shape, axis=0)]
        mesh_list = grid_ops.meshgrid(*dim_ranges, indexing="ij") if dim_ranges else []
        flat_list = [array_ops.reshape(x, shape=(-1,)) for x in mesh_list]
        index_grid = array_ops.transpose(array_ops.stack(flat_list, axis=0))
        index_grid_shape = array_ops.shape(index_grid)
        index_grid = array_ops.reshape(index_grid, array_ops.concat(
            [index_grid_shape[:1], array_ops.ones(index_internal_ndims, dtype=dtypes.int32),
             index_grid_shape[1:]], axis=0))
        tile_shape = array_ops.concat(((1,), indices_internal_shape, (1,)), axis=0)
        index_grid = broadcast_ops.tile(index_grid, multiples=tile_shape)
        flat_shape = array_ops.concat(([batch_size], indices_shape[batch_dims:]), axis=0)
        flat_indices = array_ops.reshape(indices, shape=flat_shape)
        indices = array_ops.concat((index_grid, flat_indices), axis=-1)
        out = apply_op("GatherNd", (params, indices)).outputs[0]
        out_shape = array_ops.shape(out)
        out = array_ops.reshape(out, shape=array_ops.concat((batch_shape, out_shape[1:]),
                                                            axis=0))
        if expand:
            out = array_ops.squeeze(out, axis=0)
        # The static shape TF's shape inference finds (it evaluates the shape arithmetic
        # above): batch dims + indices' inner dims + the params' dims not indexed.
        b = static_batch_dims
        if p_shape.ndims is not None and i_shape.ndims is not None and \
                i_shape[-1].value is not None:
            depth = i_shape[-1].value
            out.set_shape(p_shape[:b].merge_with(i_shape[:b]).concatenate(
                i_shape[b:-1]).concatenate(p_shape[b + depth:]))
    return out


ScatterNd = defop("ScatterNd", inputs=["indices: Tindices", "updates: T", "shape: Tindices"],
                  outputs=["output: T"])


@ScatterNd.shape
def _(op):
    from flowloom.ops.state.scatter_nd_ops import check_update_shapes

    target = input_value_as_shape(op._inputs[2])
    check_update_shapes(target, op._inputs[0]._shape, op._inputs[1]._shape)
    return target


@ScatterNd.kernel
def _(xp, indices, updates, shape):
    from flowloom.ops.state.scatter_nd_ops import check_empty_output

    shape = tuple(int(d) for d in shape)
    check_empty_output(shape, indices, updates)
    if int(np.prod(shape, dtype=np.int64)) == 0:
        return xp.zeros(shape, dtype=updates.dtype)
    depth = indices.shape[-1]
    want = indices.shape[:-1] + shape[depth:]
    if updates.shape != want:
        raise errors.InvalidArgumentError(
            None, None, f"Dimensions [0,{indices.ndim - 1}) of indices[shape="
            f"{_shape_str(indices.shape)}] = {_shape_str(indices.shape[:-1])} must match "
            f"dimensions [0,{updates.ndim - len(shape) + depth}) of updates[shape="
            f"{_shape_str(updates.shape)}]")
    flat = _check_nd_indices(indices, shape, "shape")
    if updates.dtype == object:  # strings: repeated indices concatenate, as TF's kernel
        out = np.full(shape, b"", dtype=object)
    else:
        out = xp.zeros(shape, dtype=updates.dtype)
    # Duplicate indices add up, as in TF.
    np.add.at(out, tuple(flat.T), updates.reshape((flat.shape[0],) + shape[depth:]))
    return out


@ScatterNd.gradient
def _(op, grad):
    return [None, gather_nd(grad, op._inputs[0]), None]


def scatter_nd(indices, updates, shape, name=None):
    """A zero tensor of `shape` with `updates` added at `indices` (duplicates add up)."""
    return apply_op("ScatterNd", (indices, updates, shape), name=name).outputs[0]




SelectV2 = defop("SelectV2", inputs=["condition: bool", "t: T", "e: T"], outputs=["output: T"])


@SelectV2.shape
def _(op):
    c, t, e = (x._shape for x in op._inputs)
    return common_shapes.broadcast(c, common_shapes.broadcast(t, e))


@SelectV2.kernel
def _(xp, c, t, e):
    try:
        return xp.where(c, t, e)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"condition {_shape_str(c.shape)}, then {_shape_str(t.shape)}, and "
            f"else {_shape_str(e.shape)} must be broadcastable") from None


@SelectV2.gradient
def _(op, grad):
    c, t, e = op._inputs
    zero = zeros([], dtype=grad.dtype.base_dtype)
    from flowloom.ops.array.broadcast_ops import sum_to_shape_of

    return [None, sum_to_shape_of(where_v2(c, grad, zero), t),
            sum_to_shape_of(where_v2(c, zero, grad), e)]


def where_v2(condition, x=None, y=None, name=None):
    """`tf.where_v2`: like `where`, with NumPy broadcasting among the three arguments."""
    if x is None and y is None:
        return apply_op("Where", (condition,), name=name).outputs[0]
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return apply_op("SelectV2", (condition, x, y), name=name).outputs[0]
