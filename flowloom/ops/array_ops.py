"""Array ops: constants, placeholders, identity, shapes, reshaping, joining and slicing."""

import builtins

import numpy as np

from flowloom.framework import common_shapes
from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework import tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import get_default_graph, name_scope
from flowloom.framework.ops import (Tensor, convert_to_tensor, infer_dtype,
                                    tensor_value_to_numpy)
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.framework.tensor_util import constant_value, constant_value_as_shape


_builtin_slice = builtins.slice


def dtype_string(dt):
    """TF's DataTypeString: 'float' for float32, 'double' for float64."""
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dt.name, dt.name)


def _dims_str(shape):
    if shape.ndims is None:
        return "<unknown>"
    return "[%s]" % ",".join("?" if d is None else str(d) for d in shape.as_list())


# -- Const ------------------------------------------------------------------------------
Const = defop("Const", outputs=["output: dtype"], attrs={"value": None, "dtype": None})


@Const.shape
def _(op):
    return TensorShape(op._attrs["value"].shape)


@Const.kernel
def _(xp, *, value):
    return value


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """Creates a constant tensor from a Python or numpy value.

    Args:
      value: a scalar, (nested) list or numpy array.
      dtype: the element type; inferred when None (int → int32, float → float32).
      shape: optional shape; a scalar value is broadcast to it.
      name: the op's name.

    Returns:
      A `Tensor` of op type `Const`.
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
    else:
        dtype = infer_dtype(value)
    arr = tensor_value_to_numpy(value, dtype)
    if shape is not None:
        shape = tuple(tensor_shape.as_shape(shape).as_list())
        if verify_shape and arr.shape != shape:
            raise TypeError(f"Expected Tensor's shape: {shape}, got {arr.shape}.")
        if arr.shape != shape:
            if arr.size == 1:
                arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
            elif arr.size == int(np.prod(shape)):
                arr = arr.reshape(shape)
            else:
                raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor "
                                f"{value!r} (converted from {value!r}) has {arr.size} elements, "
                                f"but got `shape` {shape} with {int(np.prod(shape))} elements).")
    if arr is value or (isinstance(value, np.ndarray) and np.shares_memory(arr, value)):
        arr = arr.copy()
    arr.flags.writeable = False
    return _const(get_default_graph(), arr, dtype, name or "Const")


def _const(graph, arr, dtype, name):
    op_name = graph.unique_name(name) if not name.endswith("/") else name[:-1]
    return graph._create_op_internal(Const, [], [dtype], {"value": arr, "dtype": dtype},
                                     op_name)._outputs[0]


# -- Placeholders -------------------------------------------------------------------------
Placeholder = defop("Placeholder", outputs=["output: dtype"],
                    attrs={"dtype": None, "shape": unknown_shape()})


@Placeholder.shape
def _(op):
    return op._attrs["shape"]


@Placeholder.kernel
def _(xp, *, dtype, shape, ctx):
    raise errors.InvalidArgumentError(
        None, ctx.op, f"You must feed a value for placeholder tensor '{ctx.op.name}' with dtype "
        f"{dtype_string(dtype)}" + ("" if shape.ndims is None else
                                    f" and shape {_dims_str(shape)}"))


def placeholder(dtype, shape=None, name=None):
    """A tensor that must be fed at run time (`feed_dict={p: value}`)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    shape = tensor_shape.as_shape(shape) if shape is not None else unknown_shape()
    return apply_op("Placeholder", (), name=name, dtype=dtype, shape=shape).outputs[0]


PlaceholderWithDefault = defop("PlaceholderWithDefault", inputs=["input: dtype"],
                               outputs=["output: dtype"], attrs={"shape": unknown_shape()})


@PlaceholderWithDefault.shape
def _(op):
    return op._attrs["shape"]


@PlaceholderWithDefault.kernel
def _(xp, x):
    return x


def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF's argument name
    """A placeholder whose value is `input` when it is not fed."""
    x = convert_to_tensor(input)
    shape = tensor_shape.as_shape(shape)
    if not shape.is_compatible_with(x._shape):
        raise ValueError(f"Shapes {shape} and {x._shape} are incompatible")
    return apply_op("PlaceholderWithDefault", (x,), name=name, shape=shape).outputs[0]


# -- Identity ----------------------------------------------------------------------------------
Identity = defop("Identity", inputs=["input: T"], outputs=["output: T"], forwards_ref=True)
Identity.shape(common_shapes.unchanged)


@Identity.kernel
def _(xp, x):
    return x


def identity(input, name=None):  # noqa: A002
    """Returns a tensor with the same value as `input`: a new node in the graph.

    The new node is what makes it useful: it runs after the control dependencies of the
    block it is created in, it can carry a name, and it marks where a value is read (a
    variable's `read` op is an Identity).
    """
    if isinstance(input, (list, tuple)) and not isinstance(input, Tensor):
        input = stack(input) if _same_shapes(input) else _ragged(input)
    if hasattr(input, "_as_graph_element") and hasattr(input, "value") and \
            not isinstance(input, Tensor):
        input = input.value()
    return apply_op("Identity", (input,), name=name).outputs[0]


def _same_shapes(values):
    shapes = [convert_to_tensor(v)._shape for v in values]
    return all(s.is_compatible_with(shapes[0]) for s in shapes)


def _ragged(values):
    raise ValueError("Shapes of the tensors in the list passed to identity must be equal: "
                     f"{[convert_to_tensor(v)._shape.as_list() for v in values]}")


StopGradient = defop("StopGradient", inputs=["input: T"], outputs=["output: T"])
StopGradient.shape(common_shapes.unchanged)


@StopGradient.kernel
def _(xp, x):
    return x


def stop_gradient(input, name=None):  # noqa: A002
    return apply_op("StopGradient", (input,), name=name).outputs[0]


# -- Shape, Size, Rank ---------------------------------------------------------------------------
Shape = defop("Shape", inputs=["input: T"], outputs=["output: out_type"],
              attrs={"out_type": dtypes.int32})


@Shape.shape
def _(op):
    return TensorShape([op._inputs[0]._shape.ndims])


@Shape.kernel
def _(xp, x, *, out_type):
    return np.array(x.shape, dtype=out_type.as_numpy_dtype)


def shape(input, name=None, out_type=dtypes.int32, optimize=True):  # noqa: A002
    """The shape of `input` as a 1-D tensor (a constant when it is known statically)."""
    with name_scope(name, "Shape", [input]) as scope:
        input = convert_to_tensor(input)
        out_type = dtypes.as_dtype(out_type)
        if optimize and input._shape.is_fully_defined():
            return constant(input._shape.as_list(), dtype=out_type, name=scope)
        return apply_op("Shape", (input,), name=scope, out_type=out_type).outputs[0]


Size = defop("Size", inputs=["input: T"], outputs=["output: out_type"],
             attrs={"out_type": dtypes.int32})
Size.shape(common_shapes.scalar_shape)


@Size.kernel
def _(xp, x, *, out_type):
    return np.array(np.size(x), dtype=out_type.as_numpy_dtype)


def size(input, name=None, out_type=dtypes.int32, optimize=True):  # noqa: A002
    """The number of elements of `input` (a constant when it is known statically)."""
    with name_scope(name, "Size", [input]) as scope:
        input = convert_to_tensor(input)
        out_type = dtypes.as_dtype(out_type)
        if optimize and input._shape.is_fully_defined():
            return constant(input._shape.num_elements(), dtype=out_type, name=scope)
        return apply_op("Size", (input,), name=scope, out_type=out_type).outputs[0]


Rank = defop("Rank", inputs=["input: T"], outputs=["output: int32"])
Rank.shape(common_shapes.scalar_shape)


@Rank.kernel
def _(xp, x):
    return np.array(np.ndim(x), dtype=np.int32)


def rank(input, name=None):  # noqa: A002
    """The rank of `input` (a constant when it is known statically)."""
    with name_scope(name, "Rank", [input]) as scope:
        input = convert_to_tensor(input)
        if input._shape.ndims is not None:
            return constant(input._shape.ndims, dtype=dtypes.int32, name=scope)
        return apply_op("Rank", (input,), name=scope).outputs[0]


# -- Reshape, Transpose, ExpandDims, Squeeze ---------------------------------------------------------
Reshape = defop("Reshape", inputs=["tensor: T", "shape: Tshape"], outputs=["output: T"],
                attrs={"Tshape": dtypes.int32})


@Reshape.shape
def _(op):
    x, s = op._inputs
    target = constant_value_as_shape(s)
    if target.ndims is None:
        return unknown_shape()
    dims = list(target.as_list())
    sv = constant_value(s)
    minus = [i for i, d in enumerate(np.ravel(sv))] if sv is not None else []
    minus = [i for i in minus if int(np.ravel(sv)[i]) == -1]
    if len(minus) > 1:
        raise ValueError("Cannot infer multiple unknown dimensions in shape")
    n_in = x._shape.num_elements()
    known = [d for i, d in enumerate(dims) if d is not None]
    if minus and n_in is not None and None not in [d for i, d in enumerate(dims)
                                                   if i != minus[0]]:
        prod = int(np.prod(known)) if known else 1
        if prod == 0 or n_in % prod:
            raise ValueError(f"Cannot reshape a tensor with {n_in} elements to shape "
                             f"{_shape_list_str(sv)} ({prod} elements)")
        dims[minus[0]] = n_in // prod
    elif not minus and n_in is not None and None not in dims:
        if int(np.prod(dims)) != n_in:
            raise ValueError(f"Cannot reshape a tensor with {n_in} elements to shape "
                             f"{_shape_list_str(dims)} ({int(np.prod(dims))} elements)")
    return TensorShape(dims)


def _shape_list_str(v):
    return "[%s]" % ",".join(str(int(d)) for d in np.ravel(v))


@Reshape.kernel
def _(xp, x, shape):
    try:
        return xp.reshape(x, tuple(int(d) for d in shape))
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Input to reshape is a tensor with {np.size(x)} values, but the "
            f"requested shape has {int(np.prod(shape))}") from None


def reshape(tensor, shape, name=None):
    return apply_op("Reshape", (tensor, shape), name=name).outputs[0]


Transpose = defop("Transpose", inputs=["x: T", "perm: Tperm"], outputs=["y: T"],
                  attrs={"Tperm": dtypes.int32})


@Transpose.shape
def _(op):
    x, p = op._inputs
    pv = constant_value(p)
    if x._shape.ndims is None or pv is None:
        return unknown_shape(x._shape.ndims)
    dims = x._shape.as_list()
    if len(pv) != len(dims):
        raise ValueError(f"Dimension must be {len(dims)} but is {len(pv)}")
    return TensorShape([dims[int(i)] for i in pv])


@Transpose.kernel
def _(xp, x, perm):
    return xp.transpose(x, tuple(int(i) for i in perm))


def transpose(a, perm=None, name="transpose", conjugate=False):
    with name_scope(name, "transpose", [a]) as scope:
        a = convert_to_tensor(a)
        if perm is None:
            nd = a._shape.ndims
            if nd is not None:
                perm = list(range(nd - 1, -1, -1))
            else:
                r = rank(a)
                from flowloom.ops import math_ops

                perm = math_ops.range_(r - 1, -1, -1)
        return apply_op("Transpose", (a, perm), name=scope).outputs[0]


ExpandDims = defop("ExpandDims", inputs=["input: T", "dim: Tdim"], outputs=["output: T"],
                   attrs={"Tdim": dtypes.int32})


@ExpandDims.shape
def _(op):
    x, d = op._inputs
    dv = constant_value(d)
    if x._shape.ndims is None or dv is None:
        return unknown_shape()
    dims = x._shape.as_list()
    axis = int(np.ravel(dv)[0])
    if axis < -len(dims) - 1 or axis > len(dims):
        raise ValueError(f"Tried to expand dim index {axis} for tensor with {len(dims)} "
                         "dimensions.")
    if axis < 0:
        axis += len(dims) + 1
    return TensorShape(dims[:axis] + [1] + dims[axis:])


@ExpandDims.kernel
def _(xp, x, dim):
    return xp.expand_dims(x, int(np.ravel(dim)[0]))


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002
    if axis is None:
        axis = dim
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return apply_op("ExpandDims", (input, axis), name=name).outputs[0]


Squeeze = defop("Squeeze", inputs=["input: T"], outputs=["output: T"],
                attrs={"squeeze_dims": []})


@Squeeze.shape
def _(op):
    s = op._inputs[0]._shape
    axes = op._attrs["squeeze_dims"]
    if s.ndims is None:
        return unknown_shape()
    dims = s.as_list()
    nd = len(dims)
    if axes:
        norm = set()
        for a in axes:
            if a < -nd or a >= nd:
                raise ValueError(f"Tried to squeeze dim index {a} for tensor with {nd} "
                                 "dimensions.")
            a = a + nd if a < 0 else a
            if dims[a] not in (1, None):
                raise ValueError(f"Can not squeeze dim[{a}], expected a dimension of 1, got "
                                 f"{dims[a]}")
            norm.add(a)
        return TensorShape([d for i, d in enumerate(dims) if i not in norm])
    if None in dims:
        return unknown_shape()
    return TensorShape([d for d in dims if d != 1])


@Squeeze.kernel
def _(xp, x, *, squeeze_dims):
    if squeeze_dims:
        return xp.squeeze(x, axis=tuple(squeeze_dims))
    return xp.squeeze(x)


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    axis = axis if axis is not None else squeeze_dims
    if isinstance(axis, int):
        axis = [axis]
    return apply_op("Squeeze", (input,), name=name, squeeze_dims=list(axis or [])).outputs[0]


# -- Concat, Pack, Unpack -----------------------------------------------------------------------
ConcatV2 = defop("ConcatV2", inputs=["values: N * T", "axis: Tidx"], outputs=["output: T"],
                 attrs={"Tidx": dtypes.int32})


@ConcatV2.shape
def _(op):
    *xs, a = op._inputs
    av = constant_value(a)
    ranks = [x._shape.ndims for x in xs if x._shape.ndims is not None]
    if av is None or not ranks:
        return unknown_shape(ranks[0] if ranks else None)
    nd = ranks[0]
    axis = int(av)
    if axis < -nd or axis >= nd:
        raise ValueError(f"Expected concatenating dimensions in the range [{-nd}, {nd}), but "
                         f"got {axis}")
    axis = axis + nd if axis < 0 else axis
    out = None
    total = 0
    for x in xs:
        s = x._shape
        if s.ndims is None:
            total = None
            continue
        if s.ndims != nd:
            raise ValueError(f"Shape must be rank {nd} but is rank {s.ndims}")
        dims = s.as_list()
        if total is not None:
            total = None if dims[axis] is None else total + dims[axis]
        rest = dims[:axis] + [None] + dims[axis + 1:]
        if out is None:
            out = rest
        else:
            merged = TensorShape(out).merge_with(TensorShape(rest)) if True else None
            out = merged.as_list()
    out[axis] = total
    return TensorShape(out)


@ConcatV2.kernel
def _(xp, *args):
    return xp.concatenate(args[:-1], axis=int(args[-1]))


def concat(values, axis, name="concat"):
    """Concatenates tensors along dimension `axis`."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with name_scope(name) as scope:
            return identity(values[0], name=scope)
    return apply_op("ConcatV2", (list(values), axis), name=name).outputs[0]


Pack = defop("Pack", inputs=["values: N * T"], outputs=["output: T"], attrs={"axis": 0})


@Pack.shape
def _(op):
    s = unknown_shape()
    for x in op._inputs:
        s = s.merge_with(x._shape)
    if s.ndims is None:
        return unknown_shape()
    dims = s.as_list()
    axis = op._attrs["axis"]
    nd = len(dims) + 1
    if axis < -nd or axis >= nd:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-nd}, {nd})")
    if axis < 0:
        axis += nd
    return TensorShape(dims[:axis] + [len(op._inputs)] + dims[axis:])


@Pack.kernel
def _(xp, *values, axis):
    return xp.stack(values, axis=axis)


def stack(values, axis=0, name="stack"):
    """Stacks a list of rank-R tensors into one rank-(R+1) tensor."""
    if not isinstance(values, (list, tuple)):
        raise TypeError("values must be a list of tensors")
    if values and all(not isinstance(v, Tensor) and not hasattr(v, "_as_graph_element")
                      for v in values):
        try:
            if axis == 0:
                return constant(list(values), name=name)
            dtype = infer_dtype(list(values))
            return constant(np.stack([np.asarray(v) for v in values], axis=axis), dtype=dtype,
                            name=name)
        except (TypeError, ValueError):
            pass
    return apply_op("Pack", (list(values),), name=name, axis=axis).outputs[0]


Unpack = defop("Unpack", inputs=["value: T"], outputs=["output: num * T"], attrs={"axis": 0})


@Unpack.shape
def _(op):
    s = op._inputs[0]._shape
    num = op._attrs["num"]
    if s.ndims is None:
        return [unknown_shape()] * num
    dims = s.as_list()
    axis = op._attrs["axis"]
    del dims[axis]
    return [TensorShape(dims)] * num


@Unpack.kernel
def _(xp, x, *, axis, num):
    return [xp.take(x, i, axis=axis) for i in range(num)]


def unstack(value, num=None, axis=0, name="unstack"):
    """Splits dimension `axis` of `value` into a list of tensors."""
    value = convert_to_tensor(value)
    s = value._shape
    if num is None:
        if s.ndims is None:
            raise ValueError(f"Cannot infer argument `num` from shape {s}")
        nd = s.ndims
        if axis < -nd or axis >= nd:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-nd}, {nd})")
        num = s.as_list()[axis]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {s}")
    if s.ndims is not None and axis < 0:
        axis += s.ndims
    return apply_op("Unpack", (value,), name=name, axis=axis, num=num).outputs


# -- Slice, StridedSlice -----------------------------------------------------------------------------
Slice = defop("Slice", inputs=["input: T", "begin: Index", "size: Index"], outputs=["output: T"])


@Slice.shape
def _(op):
    x, b, sz = op._inputs
    bv, sv = constant_value(b), constant_value(sz)
    if x._shape.ndims is None:
        return unknown_shape(None if sv is None else len(sv))
    nd = x._shape.ndims
    if bv is None or sv is None:
        return unknown_shape(nd)
    dims = x._shape.as_list()
    out = []
    for d, bb, ss in zip(dims, bv, sv):
        ss = int(ss)
        out.append((None if d is None else d - int(bb)) if ss == -1 else ss)
    return TensorShape(out)


@Slice.kernel
def _(xp, x, begin, size):
    idx = tuple(_builtin_slice(int(b), None if int(s) == -1 else int(b) + int(s))
                for b, s in zip(begin, size))
    for b, s, d in zip(begin, size, x.shape):
        if b < 0 or (s != -1 and b + s > d):
            raise errors.InvalidArgumentError(
                None, None, f"Expected size[i] in [0, {d - b}], but got {s}")
    return x[idx]


def slice(input_, begin, size, name=None):  # noqa: A001 - TF's name
    return apply_op("Slice", (input_, begin, size), name=name).outputs[0]


StridedSlice = defop("StridedSlice", inputs=["input: T", "begin: Index", "end: Index",
                                             "strides: Index"], outputs=["output: T"],
                     attrs={"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0,
                            "new_axis_mask": 0, "shrink_axis_mask": 0})


def _python_index(nd, begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                  shrink_axis_mask):
    """The Python index tuple equivalent to a StridedSlice over a rank-`nd` input."""
    idx = []
    n_specs = len(begin)
    real = sum(1 for i in range(n_specs)
               if not (new_axis_mask >> i) & 1 and not (ellipsis_mask >> i) & 1)
    for i in range(n_specs):
        if (ellipsis_mask >> i) & 1:
            idx.append(Ellipsis)
            continue
        if (new_axis_mask >> i) & 1:
            idx.append(None)
            continue
        if (shrink_axis_mask >> i) & 1:
            idx.append(int(begin[i]))
            continue
        b = None if (begin_mask >> i) & 1 else int(begin[i])
        e = None if (end_mask >> i) & 1 else int(end[i])
        idx.append(_builtin_slice(b, e, int(strides[i])))
    del real
    return tuple(idx)




def strided_slice_np(xp, x, begin, end, strides, *, begin_mask=0, end_mask=0, ellipsis_mask=0,
                     new_axis_mask=0, shrink_axis_mask=0):
    x = np.asarray(x) if xp is np else x
    idx = _python_index(x.ndim, begin, end, strides, begin_mask, end_mask, ellipsis_mask,
                        new_axis_mask, shrink_axis_mask)
    for i, s in enumerate(strides):
        if int(s) == 0:
            raise errors.InvalidArgumentError(None, None, f"strides[{i}] must be non-zero")
    # Shrunk indices must be in range, as TF checks.
    dim = 0
    for i, k in enumerate(idx):
        if k is Ellipsis:
            dim += x.ndim - sum(1 for j in idx if j is not None and j is not Ellipsis)
            continue
        if k is None:
            continue
        if isinstance(k, int):
            n = x.shape[dim]
            if k < -n or k >= n:
                raise errors.InvalidArgumentError(
                    None, None, f"slice index {k} of dimension {dim} out of bounds.")
        dim += 1
    return x[idx]


StridedSlice.kernel(strided_slice_np)


def _partial_values(t, n):
    """The elements of a 1-D index tensor, None where an element is not known statically."""
    v = constant_value(t)
    if v is not None:
        return [int(x) for x in np.ravel(v)]
    if t._op._type == "Pack":
        out = []
        for x in t._op._inputs:
            xv = constant_value(x)
            out.append(None if xv is None else int(xv))
        return out
    return [None] * n


@StridedSlice.shape
def _(op):
    x, b, e, s = op._inputs
    a = op._attrs
    if x._shape.ndims is None or b._shape.ndims is None or b._shape[0].value is None:
        return unknown_shape()
    n = b._shape[0].value
    bv, ev, sv = (_partial_values(t, n) for t in (b, e, s))
    dims = x._shape.as_list()
    result = []
    dim = 0
    n_real = sum(1 for i in range(n) if not (a["new_axis_mask"] >> i) & 1
                 and not (a["ellipsis_mask"] >> i) & 1)
    for i in range(n):
        if (a["ellipsis_mask"] >> i) & 1:
            for _ in range(len(dims) - n_real):
                result.append(dims[dim])
                dim += 1
            continue
        if (a["new_axis_mask"] >> i) & 1:
            result.append(1)
            continue
        if dim >= len(dims):
            raise ValueError(f"Index out of range using input dim {dim}; input has only "
                             f"{len(dims)} dims")
        d = dims[dim]
        if (a["shrink_axis_mask"] >> i) & 1:
            if d is not None and bv[i] is not None and not -d <= bv[i] < d:
                raise ValueError(f"slice index {bv[i]} of dimension {dim} out of bounds.")
            dim += 1
            continue
        stride = sv[i]
        if stride == 0:
            raise ValueError("strides must be non-zero")
        begin = None if (a["begin_mask"] >> i) & 1 else bv[i]
        end = None if (a["end_mask"] >> i) & 1 else ev[i]
        unknown = d is None or stride is None or (begin is None and not (a["begin_mask"] >> i) & 1) \
            or (end is None and not (a["end_mask"] >> i) & 1)
        result.append(None if unknown else len(range(d)[_builtin_slice(begin, end, stride)]))
        dim += 1
    result.extend(dims[dim:])
    return TensorShape(result)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    if strides is None:
        strides = [1] * len(begin)
    return apply_op("StridedSlice", (input_, begin, end, strides), name=name,
                    begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                    new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask).outputs[0]


def _slice_helper(tensor, slice_spec, var=None):
    """`tensor[slice_spec]` with NumPy's basic indexing semantics, as a StridedSlice op."""
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for i, s in enumerate(slice_spec):
        if isinstance(s, _builtin_slice):
            for part in (s.start, s.stop, s.step):
                if part is not None and not isinstance(part, (int, np.integer, Tensor)):
                    raise TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis "
                                    "(`None`) and scalar tf.int32/tf.int64 tensors are valid "
                                    f"indices, got {s!r}")
            begin.append(0 if s.start is None else s.start)
            end.append(0 if s.stop is None else s.stop)
            strides.append(1 if s.step is None else s.step)
            if s.start is None:
                begin_mask |= 1 << i
            if s.stop is None:
                end_mask |= 1 << i
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= 1 << i
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= 1 << i
        elif isinstance(s, (int, np.integer)) and not isinstance(s, bool):
            begin.append(int(s))
            end.append(int(s) + 1)
            strides.append(1)
            shrink_axis_mask |= 1 << i
        elif isinstance(s, Tensor) and s.dtype.base_dtype in (dtypes.int32, dtypes.int64):
            from flowloom.ops import math_ops

            begin.append(s)
            end.append(math_ops.add(s, 1))
            strides.append(1)
            shrink_axis_mask |= 1 << i
        else:
            raise TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) "
                            "and scalar tf.int32/tf.int64 tensors are valid indices, got "
                            f"{s!r}")
    with name_scope(None, "strided_slice", [tensor] + begin + end + strides) as scope:
        if begin:
            packed_begin, packed_end, packed_strides = (stack(begin), stack(end),
                                                        stack(strides))
        else:
            empty = constant([], dtype=dtypes.int32)
            packed_begin = packed_end = packed_strides = empty
        return strided_slice(tensor, packed_begin, packed_end, packed_strides,
                             begin_mask=begin_mask, end_mask=end_mask,
                             ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                             shrink_axis_mask=shrink_axis_mask, var=var, name=scope)


Tensor._override_operator("__getitem__", _slice_helper)


def _contains_tensor(value):
    if isinstance(value, Tensor) or (hasattr(value, "_as_graph_element") and
                                     not isinstance(value, np.ndarray)):
        return True
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(v) for v in value)
    return False


def _autopack(value, dtype=None, name=None, as_ref=False):
    """A (nested) list holding tensors becomes a Pack of them, as TF converts it ("packed")."""
    if not _contains_tensor(value):
        return NotImplemented
    with name_scope(name or "packed") as scope:
        elems = [_autopack(v, dtype) if isinstance(v, (list, tuple)) else
                 convert_to_tensor(v, dtype=dtype) for v in value]
        target = dtype
        if target is None:
            for e in elems:
                if isinstance(e, Tensor):
                    target = e.dtype.base_dtype
                    break
        elems = [e if e.dtype.base_dtype == target else convert_to_tensor(e, dtype=target)
                 for e in elems]
        return apply_op("Pack", (elems,), name=scope, axis=0).outputs[0]


from flowloom.framework.ops import register_tensor_conversion_function  # noqa: E402

register_tensor_conversion_function((list, tuple), _autopack, priority=99)


# -- Fill, zeros, ones ----------------------------------------------------------------------------------
Fill = defop("Fill", inputs=["dims: index_type", "value: T"], outputs=["output: T"],
             attrs={"index_type": dtypes.int32})


@Fill.shape
def _(op):
    dims, value = op._inputs
    if value._shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {value._shape.ndims}")
    return constant_value_as_shape(dims)


@Fill.kernel
def _(xp, dims, value):
    return xp.full(tuple(int(d) for d in dims), value, dtype=value.dtype)


def fill(dims, value, name=None):
    return apply_op("Fill", (dims, value), name=name).outputs[0]


def _filled(shape, fill_value, dtype, name):
    dtype = dtypes.as_dtype(dtype).base_dtype
    if isinstance(shape, Tensor) or (isinstance(shape, (list, tuple)) and
                                     any(isinstance(d, Tensor) for d in shape)):
        with name_scope(name) as scope:
            shape_t = stack(shape) if isinstance(shape, (list, tuple)) else shape
            return fill(shape_t, constant(fill_value, dtype=dtype), name=scope)
    dims = tensor_shape.as_shape(shape).as_list()
    if int(np.prod(dims)) < 1000:
        return constant(np.full(dims, fill_value, dtype=dtype.as_numpy_dtype), dtype=dtype,
                        name=name)
    with name_scope(name) as scope:
        return fill(constant(dims, dtype=dtypes.int32, name="shape_as_tensor"),
                    constant(fill_value, dtype=dtype, name="Const"), name=scope)


def zeros(shape, dtype=dtypes.float32, name="zeros"):
    """A tensor of `shape` filled with zeros."""
    return _filled(shape, 0, dtype, name)


def ones(shape, dtype=dtypes.float32, name="ones"):
    """A tensor of `shape` filled with ones."""
    return _filled(shape, 1, dtype, name)


ZerosLike = defop("ZerosLike", inputs=["x: T"], outputs=["y: T"])
ZerosLike.shape(common_shapes.unchanged)


@ZerosLike.kernel
def _(xp, x):
    return xp.zeros_like(x)


OnesLike = defop("OnesLike", inputs=["x: T"], outputs=["y: T"])
OnesLike.shape(common_shapes.unchanged)


@OnesLike.kernel
def _(xp, x):
    return xp.ones_like(x)


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """A tensor of zeros with the shape (and by default the dtype) of `tensor`."""
    with name_scope(name, "zeros_like", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        dtype = tensor.dtype.base_dtype if dtype is None else dtypes.as_dtype(dtype)
        if optimize and tensor._shape.is_fully_defined():
            return zeros(tensor._shape.as_list(), dtype=dtype, name=scope)
        if dtype != tensor.dtype.base_dtype:
            return zeros(shape(tensor), dtype=dtype, name=scope)
        return apply_op("ZerosLike", (tensor,), name=scope).outputs[0]


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """A tensor of ones with the shape (and by default the dtype) of `tensor`."""
    with name_scope(name, "ones_like", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        dtype = tensor.dtype.base_dtype if dtype is None else dtypes.as_dtype(dtype)
        return ones(shape(tensor, optimize=optimize), dtype=dtype, name=scope)


newaxis = None


# -- Where, GatherV2, boolean_mask -------------------------------------------------------------------
Where = defop("Where", inputs=["input: T"], outputs=["index: int64"])


@Where.shape
def _(op):
    return TensorShape([None, op._inputs[0]._shape.ndims])


@Where.kernel
def _(xp, x):
    return xp.argwhere(x).astype(np.int64)


GatherV2 = defop("GatherV2", inputs=["params: Tparams", "indices: Tindices", "axis: Taxis"],
                 outputs=["output: Tparams"], attrs={"batch_dims": 0})


@GatherV2.shape
def _(op):
    p, i, a = op._inputs
    av = constant_value(a)
    if p._shape.ndims is None or i._shape.ndims is None or av is None:
        return unknown_shape()
    axis = int(av)
    dims = p._shape.as_list()
    if axis < 0:
        axis += len(dims)
    return TensorShape(dims[:axis] + i._shape.as_list() + dims[axis + 1:])


@GatherV2.kernel
def _(xp, params, indices, axis):
    axis = int(axis)
    n = params.shape[axis]
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        bad = indices[(indices < 0) | (indices >= n)].ravel()[0]
        raise errors.InvalidArgumentError(None, None, f"indices = {bad} is not in [0, {n})")
    return xp.take(params, indices, axis=axis)


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Gathers slices of `params` along `axis` at `indices`."""
    if batch_dims:
        raise NotImplementedError("tf.gather with batch_dims")
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
    c, t, e = (x._shape for x in op._inputs)
    return t.merge_with(e)


@Select.kernel
def _(xp, c, t, e):
    if c.ndim == 1 and t.ndim > 1:
        c = c.reshape((-1,) + (1,) * (t.ndim - 1))
    return xp.where(c, t, e)


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
        if axis != 0 or ndims_mask != 1:
            from flowloom.ops import math_ops

            shape_t = shape(tensor)
            lead = math_ops.reduce_prod(shape_t[axis:axis + ndims_mask], [0])
            new_shape = concat([shape_t[:axis], [lead], shape_t[axis + ndims_mask:]], 0)
            tensor = reshape(tensor, new_shape)
            mask = reshape(mask, [-1])
        indices = squeeze(where(mask), axis=[1])
        return gather(tensor, indices, axis=axis)
