"""Reshaping data: padding, one-hot encoding, splitting, reversing, tiling, sequence masks."""

import builtins

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import (Tensor, convert_to_tensor)
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.framework.tensor_util import constant_value
from flowloom.framework.shape_eval import input_value
from flowloom.ops.layout import c_order


_builtin_slice = builtins.slice

from flowloom.ops.array import slicing_ops
from flowloom.ops.array.array_ops import (_shape_str, concat, constant, expand_dims, rank, reshape,
                                    shape, stack, zeros_like)


def _math():
    from flowloom.ops.math import math_ops

    return math_ops



# -- Pad ----------------------------------------------------------------------------------------
def _pad_shape(op):
    x, p = op._inputs[0], op._inputs[1]
    pv = input_value(p)
    ps = p._shape
    if ps.ndims is not None and (ps.ndims != 2 or ps.as_list()[1] not in (None, 2)):
        raise ValueError(f"Shape must be rank 2 but is rank {ps.ndims}" if ps.ndims != 2 else
                         f"Dimension 1 in both shapes must be equal, but are "
                         f"{ps.as_list()[1]} and 2")
    s = x._shape
    if s.ndims is not None and ps.ndims == 2 and ps.as_list()[0] is not None and \
            ps.as_list()[0] != s.ndims:
        raise ValueError(f"Shape must be rank {ps.as_list()[0]} but is rank {s.ndims}")
    if pv is None:
        rank = s.ndims if s.ndims is not None else (ps.as_list()[0] if ps.ndims == 2 else None)
        return unknown_shape(rank)
    if np.any(pv < 0):
        raise ValueError("Paddings must be non-negative")
    dims = s.as_list() if s.ndims is not None else [None] * len(pv)
    return TensorShape([None if d is None else d + int(a) + int(b) for d, (a, b) in
                        zip(dims, pv)])


def _check_paddings(x, paddings):
    if paddings.shape != (x.ndim, 2):
        raise errors.InvalidArgumentError(
            None, None, f"The first dimension of paddings must be the rank of inputs"
            f"{_shape_str(paddings.shape)}, {_shape_str(x.shape)}")
    if np.any(paddings < 0):
        raise errors.InvalidArgumentError(None, None, "Paddings must be non-negative: "
                                          f"{int(paddings.min())}")
    return [(int(a), int(b)) for a, b in paddings]


Pad = defop("Pad", inputs=["input: T", "paddings: Tpaddings"], outputs=["output: T"],
            attrs={"Tpaddings": dtypes.int32})
Pad.shape(_pad_shape)


@Pad.kernel
def _(xp, x, paddings):
    pads = _check_paddings(x, paddings)
    return xp.pad(x, pads) if pads else x.copy()


PadV2 = defop("PadV2", inputs=["input: T", "paddings: Tpaddings", "constant_values: T"],
              outputs=["output: T"], attrs={"Tpaddings": dtypes.int32})
PadV2.shape(_pad_shape)


@PadV2.kernel
def _(xp, x, paddings, constant_values):
    pads = _check_paddings(x, paddings)
    return xp.pad(x, pads, constant_values=constant_values) if pads else x.copy()


def _pad_grad(op, grad):
    x, p = op._inputs[0], op._inputs[1]
    before = slicing_ops.slice(p, [0, 0], stack([rank(x), 1]))
    dx = slicing_ops.slice(grad, reshape(before, [-1]), shape(x))
    return [dx, None] + [None] * (len(op._inputs) - 2)


Pad.gradient(_pad_grad)
PadV2.gradient(_pad_grad)

MirrorPad = defop("MirrorPad", inputs=["input: T", "paddings: Tpaddings"],
                  outputs=["output: T"], attrs={"mode": None, "Tpaddings": dtypes.int32})
MirrorPad.shape(_pad_shape)


@MirrorPad.kernel
def _(xp, x, paddings, *, mode):
    pads = _check_paddings(x, paddings)
    offset = 0 if mode == "SYMMETRIC" else 1
    for d, (a, b) in enumerate(pads):
        if a > x.shape[d] - offset or b > x.shape[d] - offset:
            raise errors.InvalidArgumentError(
                None, None, f"paddings must be less than the dimension size: {a}, {b} not less "
                f"than {x.shape[d]}" if offset else f"paddings must be no greater than the "
                f"dimension size: {a}, {b} greater than {x.shape[d]}")
    return xp.pad(x, pads, mode="symmetric" if mode == "SYMMETRIC" else "reflect")


MirrorPadGrad = defop("MirrorPadGrad", inputs=["input: T", "paddings: Tpaddings"],
                      outputs=["output: T"], attrs={"mode": None, "Tpaddings": dtypes.int32})


@MirrorPadGrad.shape
def _(op):
    x, p = op._inputs
    pv = input_value(p)
    if pv is None or x._shape.ndims is None:
        return unknown_shape(x._shape.ndims)
    return TensorShape([None if d is None else d - int(a) - int(b)
                        for d, (a, b) in zip(x._shape.as_list(), pv)])


@MirrorPadGrad.kernel
def _(xp, g, paddings, *, mode):
    return _mirror_fold(xp, g, paddings, 0 if mode == "SYMMETRIC" else 1)


def _mirror_fold(xp, g, paddings, offset):
    """Folds each padded border back onto the entries it mirrors, one dimension at a time."""
    out = g
    for d, (a, b) in enumerate((int(r[0]), int(r[1])) for r in paddings):
        n = out.shape[d] - a - b
        core = np.moveaxis(out, d, 0)
        mid = core[a:a + n].copy()
        if a:
            mid[offset:offset + a] += core[:a][::-1]
        if b:
            mid[n - offset - b:n - offset] += core[a + n:][::-1]
        out = np.moveaxis(mid, 0, d)
    return c_order(np, out)


@MirrorPad.gradient
def _(op, grad):
    return [apply_op("MirrorPadGrad", (grad, op._inputs[1]),
                     mode=op._attrs["mode"]).outputs[0], None]


@MirrorPadGrad.gradient
def _(op, grad):
    return [apply_op("MirrorPad", (grad, op._inputs[1]), mode=op._attrs["mode"]).outputs[0],
            None]


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """Pads `tensor` by `paddings` ([rank, 2]: before and after each dimension).

    Args:
      tensor: the tensor to pad.
      paddings: int32 tensor of shape [rank(tensor), 2].
      mode: "CONSTANT", "REFLECT" or "SYMMETRIC" (case-insensitive).
      constant_values: the fill value in CONSTANT mode.

    Returns:
      The padded tensor.

    Raises:
      ValueError: for an unknown mode.
    """
    mode = mode.upper()
    if mode == "CONSTANT":
        if not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0 and \
                constant_values == 0:
            result = apply_op("Pad", (tensor, paddings), name=name).outputs[0]
        else:
            tensor = convert_to_tensor(tensor, name="tensor")
            result = apply_op("PadV2", (tensor, paddings, constant_values),
                              name=name).outputs[0]
    elif mode in ("REFLECT", "SYMMETRIC"):
        result = apply_op("MirrorPad", (tensor, paddings), name=name, mode=mode).outputs[0]
    else:
        raise ValueError(f"Unknown padding mode: {mode}")
    # As TF 1.15's wrapper: dims whose paddings are both known get their size even when the
    # paddings tensor as a whole is not constant.
    known = _paddings_constant(paddings)
    input_shape = result.op.inputs[0]._shape
    if input_shape.ndims is not None and not result._shape.is_fully_defined() and \
            known is not None:
        dims = []
        for padding, dim in zip(known, input_shape.as_list()):
            if padding is None or dim is None or any(x is None for x in padding):
                dims.append(None)
            else:
                dims.append(int(sum(padding)) + dim)
        result.set_shape(dims)
    return result


def _paddings_constant(paddings):
    """The known values of a paddings argument: nested lists with None where unknown."""
    if isinstance(paddings, Tensor):
        return constant_value(paddings, partial=True)
    if isinstance(paddings, (list, tuple)):
        return [_paddings_constant(x) for x in paddings]
    return paddings


# -- OneHot ---------------------------------------------------------------------------------------
OneHot = defop("OneHot", inputs=["indices: TI", "depth: int32", "on_value: T", "off_value: T"],
               outputs=["output: T"], attrs={"axis": -1, "TI": dtypes.int64})


@OneHot.shape
def _(op):
    ind, depth = op._inputs[0], op._inputs[1]
    dv = input_value(depth)
    axis = op._attrs["axis"]
    s = ind._shape
    if axis < -1:
        raise ValueError(f"axis must be >= -1 but got {axis}")
    if s.ndims is None:
        return unknown_shape()
    dims = s.as_list()
    d = None if dv is None else int(dv)
    if d is not None and d < 0:
        raise ValueError(f"depth must be non-negative, got: {d}")
    pos = len(dims) if axis == -1 else axis
    return TensorShape(dims[:pos] + [d] + dims[pos:])


@OneHot.kernel
def _(xp, indices, depth, on_value, off_value, *, axis):
    depth = int(depth)
    if depth < 0:
        raise errors.InvalidArgumentError(None, None, f"depth must be non-negative, got: {depth}")
    hot = indices[..., None] == np.arange(depth, dtype=indices.dtype)
    out = xp.where(hot, on_value, off_value).astype(on_value.dtype, copy=False)
    if axis != -1 and axis != indices.ndim:
        out = xp.moveaxis(out, -1, axis)
    return c_order(xp, out)


OneHot.no_gradient()


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A one-hot tensor: `on_value` where the index matches, `off_value` elsewhere.

    Args:
      indices: integer tensor of indices (out-of-range indices give an all-off row).
      depth: the size of the new dimension.
      on_value, off_value: scalars (default 1 and 0).
      axis: where the new dimension goes (default -1: last).
      dtype: the output type (default float32, or the type of on/off values).

    Returns:
      The one-hot tensor.

    Raises:
      TypeError: when dtype, on_value and off_value disagree.
    """
    with name_scope(name, "one_hot", [indices, depth, on_value, off_value, axis, dtype]) \
            as scope:
        on_exists, off_exists = on_value is not None, off_value is not None
        # As TF 1.15: the values' own dtypes (converted without `dtype`) must agree with it.
        on_dtype = convert_to_tensor(on_value).dtype.base_dtype if on_exists else None
        off_dtype = convert_to_tensor(off_value).dtype.base_dtype if off_exists else None
        if on_exists or off_exists:
            if dtype is not None:
                dtype = dtypes.as_dtype(dtype)
                for given, label in ((on_dtype, "on_value"), (off_dtype, "off_value")):
                    if given is not None and given != dtype:
                        raise TypeError(f"dtype {given!r} of {label} does not match "
                                        f"dtype parameter {dtype!r}")
            else:
                dtype = on_dtype if on_exists else off_dtype
        elif dtype is None:
            dtype = dtypes.float32
        dtype = dtypes.as_dtype(dtype)
        if not on_exists:
            on_value = convert_to_tensor(1, dtype=dtype, name="on_value")
            on_dtype = dtype
        if not off_exists:
            off_value = convert_to_tensor(0, dtype=dtype, name="off_value")
            off_dtype = dtype
        if on_dtype != off_dtype:
            raise TypeError(f"dtype {on_dtype!r} of on_value does not match dtype {off_dtype!r} "
                            "of off_value")
        return apply_op("OneHot", (indices, depth, on_value, off_value), name=scope,
                        axis=-1 if axis is None else axis).outputs[0]


# -- Split, SplitV -------------------------------------------------------------------------------
Split = defop("Split", inputs=["split_dim: int32", "value: T"], outputs=["output: num_split * T"])


def _split_dims(x_shape, axis_value):
    if x_shape.ndims is None or axis_value is None:
        return None, None
    nd = x_shape.ndims
    axis = int(axis_value)
    if axis < -nd or axis >= nd:
        raise ValueError(f"Dimension must be in range [{-nd}, {nd}), but is {axis}")
    return x_shape.as_list(), axis % nd


@Split.shape
def _(op):
    n = op._attrs["num_split"]
    dims, axis = _split_dims(op._inputs[1]._shape, input_value(op._inputs[0]))
    if dims is None:
        return [unknown_shape(op._inputs[1]._shape.ndims)] * n
    if dims[axis] is not None and dims[axis] % n:
        raise ValueError(f"Number of ways to split should evenly divide the split dimension, "
                         f"but got split_dim {axis} (size = {dims[axis]}) and num_split {n}")
    dims[axis] = None if dims[axis] is None else dims[axis] // n
    return [TensorShape(dims)] * n


@Split.kernel
def _(xp, split_dim, value, *, num_split):
    if np.ndim(split_dim) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"split_dim must be a scalar but has rank {np.ndim(split_dim)}")
    axis = int(split_dim)
    if axis < -value.ndim or axis >= value.ndim:
        raise errors.InvalidArgumentError(
            None, None, f"-input rank(-{value.ndim}) <= split_dim < input rank ({value.ndim}), "
            f"but got {axis}")
    if value.shape[axis] % num_split:
        raise errors.InvalidArgumentError(
            None, None, f"Number of ways to split should evenly divide the split dimension, but "
            f"got split_dim {axis} (size = {value.shape[axis]}) and num_split {num_split}")
    return xp.split(value, num_split, axis=axis)


SplitV = defop("SplitV", inputs=["value: T", "size_splits: Tlen", "split_dim: int32"],
               outputs=["output: num_split * T"], attrs={"Tlen": dtypes.int64})


def _resolve_sizes(sizes, total):
    """(sizes with the -1 worked out, error): TF's SplitV rule (one -1 at most; the known
    sizes sum to the dimension, or to at most it when one is -1)."""
    sizes = [int(s) for s in sizes]
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1:
        return None, "Only one dimensions can have a value of -1. Second one found at " \
            f"dimension {unknown[1]}"
    known = sum(s for s in sizes if s != -1)
    if total is None:
        return sizes, None
    if (known > total) if unknown else (known != total):
        return None, "Determined shape must either match input shape along split_dim " \
            f"exactly if fully specified, or be less than the size of the input along " \
            f"split_dim if not fully specified.  Got: {known}"
    if unknown:
        sizes[unknown[0]] = total - known
    return sizes, None


@SplitV.shape
def _(op):
    n = op._attrs["num_split"]
    x, sizes_t, axis_t = op._inputs
    dims, axis = _split_dims(x._shape, input_value(axis_t))
    sv = input_value(sizes_t)
    if sv is not None and np.size(sv) != n:
        raise ValueError("Length of size_splits should be equal to num_outputs")
    if dims is None:
        return [unknown_shape(x._shape.ndims)] * n
    if sv is None:
        # The split dimension is unknown; the others are the input's.
        return [TensorShape(dims[:axis] + [None] + dims[axis + 1:])] * n
    sizes, err = _resolve_sizes(np.ravel(sv), dims[axis])
    if err:
        raise ValueError(err)
    outs = []
    for s in sizes:
        d = list(dims)
        d[axis] = None if s == -1 else s
        outs.append(TensorShape(d))
    return outs


@SplitV.kernel
def _(xp, value, size_splits, split_dim, *, num_split):
    if np.size(split_dim) != 1:
        raise errors.InvalidArgumentError(
            None, None, "split_dim_tensor must have exactly one element.")
    if np.size(size_splits) != num_split:
        raise errors.InvalidArgumentError(
            None, None, f"Length of size_splits should be equal to num_outputs ({num_split})")
    axis = int(np.ravel(split_dim)[0])
    if axis < -value.ndim or axis >= value.ndim:
        raise errors.InvalidArgumentError(
            None, None, f"-input rank(-{value.ndim}) <= split_dim < input rank ({value.ndim}), "
            f"but got {axis}")
    sizes, err = _resolve_sizes(np.ravel(size_splits), value.shape[axis])
    if err:
        raise errors.InvalidArgumentError(None, None, err)
    return xp.split(value, np.cumsum(sizes)[:-1], axis=axis)


def _concat_grads(op, grads, axis):
    parts = [g if g is not None else zeros_like(out) for g, out in zip(grads, op._outputs)]
    return concat(parts, axis)


@Split.gradient
def _(op, *grads):
    return [None, _concat_grads(op, grads, op._inputs[0])]


@SplitV.gradient
def _(op, *grads):
    return [_concat_grads(op, grads, op._inputs[2]), None, None]


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits `value` along `axis` into `num_or_size_splits` pieces or pieces of those sizes.

    Args:
      value: the tensor to split.
      num_or_size_splits: an int (equal pieces, op `Split`) or a 1-D list/tensor of sizes
        (op `SplitV`; one size may be -1).
      axis: the dimension to split.
      num: the number of outputs when it cannot be inferred from `num_or_size_splits`.

    Returns:
      A list of tensors.

    Raises:
      ValueError: when the number of outputs cannot be inferred.
    """
    if isinstance(num_or_size_splits, (int, np.integer)) and \
            not isinstance(num_or_size_splits, bool):
        from flowloom.ops.random.random_ops import seed_rules

        if seed_rules() == "1":
            # TF 1.15 made the count a Const before its Split: the op counts in its seeds
            constant(num_or_size_splits)
        return apply_op("Split", (axis, value), name=name,
                        num_split=int(num_or_size_splits)).outputs
    sizes = num_or_size_splits
    sizes_t = convert_to_tensor(sizes) if not isinstance(sizes, Tensor) else sizes
    s = sizes_t._shape
    if s.ndims == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument "
                         f"to split. Argument provided: {num_or_size_splits}")
    if num is None:
        num = s[0].value if s.ndims is not None else None
        if num is None:
            raise ValueError(f"Cannot infer num from shape {num_or_size_splits}")
    return apply_op("SplitV", (value, sizes_t, axis), name=name, num_split=num).outputs


# -- ReverseV2 ----------------------------------------------------------------------------------
ReverseV2 = defop("ReverseV2", inputs=["tensor: T", "axis: Tidx"], outputs=["output: T"],
                  attrs={"Tidx": dtypes.int32})


@ReverseV2.shape
def _(op):
    x, a = op._inputs
    av = input_value(a)
    if av is not None and x._shape.ndims is not None:
        nd = x._shape.ndims
        seen = set()
        for v in np.ravel(av):
            if v < -nd or v >= nd:
                raise ValueError(f"'axis'[0] = {int(v)} is out of valid range [0, {nd - 1}")
            canonical = int(v) % nd
            if canonical in seen:
                raise ValueError(f"axis {canonical} specified more than once.")
            seen.add(canonical)
    return x._shape


@ReverseV2.kernel
def _(xp, x, axis):
    axes = [int(a) for a in np.ravel(axis)]
    for i, a in enumerate(axes):
        if a < -x.ndim or a >= x.ndim:
            raise errors.InvalidArgumentError(
                None, None, f"'axis'[{i}] = {a} is out of valid range [0, {x.ndim - 1}")
    norm = [a % x.ndim for a in axes]
    if len(set(norm)) != len(norm):
        raise errors.InvalidArgumentError(
            None, None, f"axis {norm[0]} specified more than once.")
    return c_order(xp, xp.flip(x, tuple(norm))) if norm else x


def _reverse_specialize(op, consts, general):
    """Constant axes (a random flip's): the reversing index for an input rank is made once
    the general kernel has accepted the axes for that rank."""
    if consts[1] is None or consts[0] is not None or not np.size(consts[1]):
        return None
    axes = [int(a) for a in np.ravel(consts[1])]
    by_rank = {}

    def reverse_by_constant_axes(x, axis):
        if type(x) is np.ndarray:
            idx = by_rank.get(x.ndim)
            if idx is not None:
                return c_order(np, x[idx])
        r = general(x, axis)
        if type(x) is np.ndarray and len(by_rank) < 16:
            norm = {a % x.ndim for a in axes}
            by_rank[x.ndim] = tuple(_builtin_slice(None, None, -1) if i in norm else
                                    _builtin_slice(None) for i in range(x.ndim))
        return r
    return reverse_by_constant_axes


ReverseV2.kernel_fn.specialize = _reverse_specialize


@ReverseV2.gradient
def _(op, grad):
    return [reverse(grad, op._inputs[1]), None]


def reverse(tensor, axis, name=None):
    """Reverses `tensor` along the dimensions in `axis` (op `ReverseV2`)."""
    return apply_op("ReverseV2", (tensor, axis), name=name).outputs[0]


reverse_v2 = reverse


# -- sequence_mask, SelectV2 ---------------------------------------------------------------
def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool_, name=None):
    """A mask `[..., maxlen]`: entry j of row i is `j < lengths[i]`.

    Args:
      lengths: integer tensor of lengths.
      maxlen: the mask width (default: the largest length).
      dtype: the output type.

    Returns:
      A `dtype` tensor of shape `lengths.shape + [maxlen]`.

    Raises:
      ValueError: if `maxlen` is not a scalar.
    """
    m = _math()
    with name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = convert_to_tensor(lengths)
        inferred = maxlen is None
        if maxlen is None:
            maxlen = m.reduce_max(lengths)
        else:
            maxlen = convert_to_tensor(maxlen)
        if maxlen._shape.ndims is not None and maxlen._shape.ndims != 0:
            raise ValueError("maxlen must be scalar for sequence_mask")
        # TF calls the Range op directly (`SequenceMask/Range`).
        row_vector = apply_op("Range", (constant(0, dtype=maxlen.dtype.base_dtype), maxlen,
                                        constant(1, dtype=maxlen.dtype.base_dtype)),
                              name="Range").outputs[0]
        # TF casts unconditionally (a Cast op even between equal types).
        matrix = apply_op("Cast", (expand_dims(lengths, -1),), name="Cast",
                          DstT=maxlen.dtype.base_dtype).outputs[0]
        result = row_vector < matrix
        # TF's shape inference evaluates small constant subgraphs (max of constant lengths).
        known = constant_value(lengths) if inferred else None
        if known is not None and known.size and result._shape.ndims is not None:
            result.set_shape(list(known.shape) + [int(np.max(known))])
        if dtype is None or dtypes.as_dtype(dtype) == dtypes.bool_:
            return result
        return m.cast(result, dtype)




def tile(input, multiples, name=None):  # noqa: A002
    """Repeats `input` `multiples[i]` times along dimension i (op `Tile`, in broadcast_ops)."""
    from flowloom.ops.array import broadcast_ops

    return broadcast_ops.tile(input, multiples, name=name)
