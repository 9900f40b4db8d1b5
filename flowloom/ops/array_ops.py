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


PlaceholderWithDefault.gradient(lambda op, grad: grad)


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


Identity.gradient(lambda op, grad: grad)


IdentityN = defop("IdentityN", inputs=["input: list(T)"], outputs=["output: list(T)"])
IdentityN.shape(lambda op: [t._shape for t in op._inputs])


@IdentityN.kernel
def _(xp, *inputs):
    return list(inputs)


IdentityN.gradient(lambda op, *grads: list(grads))


def identity_n(input, name=None):  # noqa: A002
    """Each of the tensors in `input`, passed through one IdentityN op."""
    return apply_op("IdentityN", (list(input),), name=name).outputs


def identity(input, name=None):  # noqa: A002
    """Returns a tensor with the same value as `input`: a new node in the graph.

    The new node is what makes it useful: it runs after the control dependencies of the
    block it is created in, it can carry a name, and it marks where a value is read (a
    variable's `read` op is an Identity).
    """
    if isinstance(input, (list, tuple)) and not isinstance(input, Tensor):
        # TF converts a (nested) list or tuple of tensors by packing it: `<name>/input/0`,
        # ..., `<name>/input` (Pack), then `<name>` (Identity); a state tuple becomes one
        # tensor. Ragged elements fail as TF's conversion does.
        with name_scope(name, "Identity", _tensors_in(input)) as scope:
            packed = _pack_nested(input, "input")
            if not isinstance(packed, Tensor):  # no tensor inside: one Const, `<name>/input`
                packed = convert_to_tensor(packed, name="input")
            return apply_op("Identity", (packed,), name=scope).outputs[0]
    if hasattr(input, "_as_graph_element") and hasattr(input, "value") and \
            not isinstance(input, Tensor):
        input = input.value()
    return apply_op("Identity", (input,), name=name).outputs[0]


def _tensors_in(values):
    out = []
    for v in values:
        if isinstance(v, (list, tuple)) and not isinstance(v, Tensor):
            out.extend(_tensors_in(v))
        elif isinstance(v, Tensor):
            out.append(v)
    return out


def _pack_nested(values, name):
    """TF's auto-packing conversion of a nested list holding tensors (one Pack per level);
    a list without tensors is returned as it is (TF converts it as one constant)."""
    if not _tensors_in(values) and not any(
            hasattr(v, "_as_graph_element") for v in values):
        return list(values)
    with name_scope(name) as scope:
        elems = []
        has_tensor = False
        for i, v in enumerate(values):
            if isinstance(v, (list, tuple)) and not isinstance(v, Tensor):
                v = _pack_nested(v, str(i))
            if hasattr(v, "_as_graph_element") and hasattr(v, "value") and \
                    not isinstance(v, Tensor):
                v = v.value()
            has_tensor = has_tensor or isinstance(v, Tensor)
            elems.append(v)
        if not has_tensor:
            return elems  # plain values: converted as one constant by the caller
        dtype = next(v for v in elems if isinstance(v, Tensor)).dtype.base_dtype
        elems = [v if isinstance(v, Tensor) else constant(v, dtype=dtype, name=str(i))
                 for i, v in enumerate(elems)]
        _check_packable(elems)
        return apply_op("Pack", (elems,), name=scope, axis=0).outputs[0]


def _check_packable(tensors):
    merged = tensors[0]._shape
    for t in tensors[1:]:
        s = t._shape
        if merged.ndims is not None and s.ndims is not None:
            if merged.ndims != s.ndims:
                raise ValueError("Tried to convert 'input' to a tensor and failed. Error: "
                                 f"Shapes must be equal rank, but are {merged.ndims} and "
                                 f"{s.ndims}")
            for k, (a, b) in enumerate(zip(merged.as_list(), s.as_list())):
                if a is not None and b is not None and a != b:
                    raise ValueError(
                        "Tried to convert 'input' to a tensor and failed. Error: Dimension "
                        f"{k} in both shapes must be equal, but are {a} and {b}. Shapes are "
                        f"{_shape_text(merged)} and {_shape_text(s)}.")
        merged = merged.merge_with(s) if merged.ndims is not None else s


def _shape_text(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


StopGradient = defop("StopGradient", inputs=["input: T"], outputs=["output: T"])
StopGradient.shape(common_shapes.unchanged)


@StopGradient.kernel
def _(xp, x):
    return x


StopGradient.no_gradient()


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


Shape.no_gradient()


ShapeN = defop("ShapeN", inputs=["input: N * T"], outputs=["output: N * out_type"],
               attrs={"out_type": dtypes.int32})
ShapeN.shape(lambda op: [TensorShape([t._shape.ndims]) for t in op._inputs])


@ShapeN.kernel
def _(xp, *inputs, out_type):
    return [np.array(x.shape, dtype=out_type.as_numpy_dtype) for x in inputs]


ShapeN.no_gradient()


def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """The shapes of the tensors in `input`, as one ShapeN op (never folded to constants)."""
    return apply_op("ShapeN", (list(input),), name=name,
                    out_type=dtypes.as_dtype(out_type)).outputs


def shape(input, name=None, out_type=dtypes.int32, optimize=True):  # noqa: A002
    """The shape of `input` as a 1-D tensor (a Const when it is statically known, as in TF)."""
    out_type = dtypes.as_dtype(out_type)
    with name_scope(name, "Shape", [input]) as scope:
        input = convert_to_tensor(input)
        if optimize and input._shape.is_fully_defined():
            return constant(input._shape.as_list(), dtype=out_type, name=scope)
        return apply_op("Shape", (input,), name=scope, out_type=out_type).outputs[0]


Size = defop("Size", inputs=["input: T"], outputs=["output: out_type"],
             attrs={"out_type": dtypes.int32})
Size.shape(common_shapes.scalar_shape)


@Size.kernel
def _(xp, x, *, out_type):
    return np.array(np.size(x), dtype=out_type.as_numpy_dtype)


Size.no_gradient()


def size(input, name=None, out_type=dtypes.int32, optimize=True):  # noqa: A002
    """The number of elements of `input` (a Const when statically known, as in TF)."""
    out_type = dtypes.as_dtype(out_type)
    with name_scope(name, "Size", [input]) as scope:
        input = convert_to_tensor(input)
        if optimize and input._shape.is_fully_defined():
            return constant(input._shape.num_elements(), dtype=out_type, name=scope)
        return apply_op("Size", (input,), name=scope, out_type=out_type).outputs[0]


Rank = defop("Rank", inputs=["input: T"], outputs=["output: int32"])
Rank.shape(common_shapes.scalar_shape)


@Rank.kernel
def _(xp, x):
    return np.array(np.ndim(x), dtype=np.int32)


Rank.no_gradient()


def rank(input, name=None, optimize=True):  # noqa: A002
    """The rank of `input` (a Const when statically known, as in TF)."""
    with name_scope(name, "Rank", [input]) as scope:
        input = convert_to_tensor(input)
        if optimize and input._shape.ndims is not None:
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


def _reshape_to_input(op, grad):
    return reshape(_dense(grad), shape(op._inputs[0]))


def _dense(grad):
    """A gradient as a dense Tensor (IndexedSlices are summed into rows)."""
    return grad if isinstance(grad, Tensor) else convert_to_tensor(grad)


Reshape.gradient(lambda op, grad: [_reshape_to_input(op, grad), None])


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


@Transpose.gradient
def _(op, grad):
    return [transpose(grad, invert_permutation(op._inputs[1])), None]


InvertPermutation = defop("InvertPermutation", inputs=["x: T"], outputs=["y: T"])
InvertPermutation.shape(common_shapes.unchanged)


@InvertPermutation.kernel
def _(xp, x):
    n = x.size
    if x.ndim != 1 or sorted(x.tolist()) != list(range(n)):
        raise errors.InvalidArgumentError(None, None, f"{x.tolist()} is not a permutation")
    y = np.empty_like(x)
    y[x] = np.arange(n, dtype=x.dtype)
    return y


InvertPermutation.no_gradient()


def invert_permutation(x, name=None):
    """The inverse permutation of 1-D `x` (a Const when `x` is one)."""
    value = constant_value(x)
    if value is not None and name is None:
        return constant(np.argsort(np.asarray(value)).astype(np.int32), name="InvertPermutation")
    return apply_op("InvertPermutation", (x,), name=name).outputs[0]


ListDiff = defop("ListDiff", inputs=["x: T", "y: T"], outputs=["out: T", "idx: out_idx"],
                 attrs={"out_idx": dtypes.int32})
ListDiff.shape(lambda op: [unknown_shape(1), unknown_shape(1)])


@ListDiff.kernel
def _(xp, x, y, *, out_idx):
    if x.ndim != 1 or y.ndim != 1:
        raise errors.InvalidArgumentError(None, None, "x and y must be 1-D vectors")
    keep = ~np.isin(x, y)
    return x[keep], np.nonzero(keep)[0].astype(out_idx.as_numpy_dtype)


ListDiff.no_gradient()


def setdiff1d(x, y, index_dtype=dtypes.int32, name=None):
    """The values of 1-D `x` not in `y`, in x's order, and their positions in x (ListDiff)."""
    return apply_op("ListDiff", (x, y), name=name,
                    out_idx=dtypes.as_dtype(index_dtype)).outputs


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


ExpandDims.gradient(lambda op, grad: [_reshape_to_input(op, grad), None])


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


Squeeze.gradient(_reshape_to_input)


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


@ConcatV2.gradient
def _(op, grad):
    from flowloom.framework.indexed_slices import IndexedSlices

    *values, axis = op._inputs
    if len(values) == 1:
        return [grad, None]
    non_neg_axis = axis % rank(values[0])
    sizes = [shape(v) for v in values]
    if isinstance(grad, IndexedSlices):
        grad = convert_to_tensor(grad)
    offsets = apply_op("ConcatOffset", (non_neg_axis, sizes)).outputs
    return [slice(grad, begin, size) for begin, size in zip(offsets, sizes)] + [None]


ConcatOffset = defop("ConcatOffset", inputs=["concat_dim: int32", "shape: N * shape_type"],
                     outputs=["offset: N * shape_type"], attrs={"shape_type": dtypes.int32})
ConcatOffset.shape(lambda op: [t._shape for t in op._inputs[1:]])


@ConcatOffset.kernel
def _(xp, concat_dim, *shapes):
    axis = int(concat_dim)
    offsets = []
    position = 0
    for s in shapes:
        o = np.zeros_like(s)
        o[axis] = position
        position += int(s[axis])
        offsets.append(o)
    return offsets


ConcatOffset.no_gradient()


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


Pack.gradient(lambda op, grad: unstack(grad, num=op._attrs["N"], axis=op._attrs["axis"]))


def stack(values, axis=0, name="stack"):
    """Stacks a list of rank-R tensors into one rank-(R+1) tensor."""
    if isinstance(values, Tensor) and axis == 0:
        return values  # TF converts the input first: a tensor stacks to itself
    if not isinstance(values, (list, tuple)):
        raise TypeError("values must be a list of tensors")
    if values and all(not isinstance(v, Tensor) and not hasattr(v, "_as_graph_element")
                      for v in values):
        try:
            # Python numbers keep TF's inference (int → int32), which np.stack would lose.
            py_values = not any(isinstance(v, (np.ndarray, np.generic)) for v in values)
            dtype = infer_dtype(values) if py_values and values else None
            return constant(np.stack([np.asarray(v) for v in values], axis=axis)
                            if values else values, dtype=dtype, name=name)
        except (TypeError, ValueError):
            pass
    if axis == 0 and _contains_tensor(list(values)):
        return convert_to_tensor(list(values), name=name)  # TF packs through autopacking
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


Unpack.gradient(lambda op, *grads: stack(list(grads), axis=op._attrs["axis"]))


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


@Slice.gradient
def _(op, grad):
    """grad padded with zeros back to the input's shape."""
    x, begin, _ = op._inputs
    index_dtype = begin.dtype.base_dtype
    slice_size = shape(op._outputs[0], out_type=index_dtype)
    rank_shape = stack([rank(x), 1])
    before = reshape(begin, rank_shape)
    after = reshape(shape(x, out_type=index_dtype) - slice_size - begin, rank_shape)
    return pad(grad, concat([before, after], 1)), None, None


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


_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


@StridedSlice.gradient
def _(op, grad):
    x, begin, end, strides = op._inputs
    x_shape = shape(x, out_type=begin.dtype.base_dtype)
    # Statically known vectors become Consts of the grad op (`StridedSliceGrad/begin`), as TF.
    x_shape, begin, end, strides = (t if v is None else v for t, v in (
        (t, constant_value(t)) for t in (x_shape, begin, end, strides)))
    return [apply_op("StridedSliceGrad", (x_shape, begin, end, strides, grad),
                     **{k: op._attrs[k] for k in _MASKS}).outputs[0], None, None, None]


StridedSliceGrad = defop("StridedSliceGrad", inputs=["shape: Index", "begin: Index",
                                                     "end: Index", "strides: Index", "dy: T"],
                         outputs=["output: T"],
                         attrs={"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0,
                                "new_axis_mask": 0, "shrink_axis_mask": 0})
StridedSliceGrad.shape(lambda op: constant_value_as_shape(op._inputs[0]))


@StridedSliceGrad.kernel
def _(xp, shape, begin, end, strides, dy, **masks):
    out = xp.zeros(tuple(int(d) for d in shape), dtype=dy.dtype)
    idx = _python_index(out.ndim, begin, end, strides, **masks)
    view_shape = out[idx].shape
    out[idx] = dy.reshape(view_shape)
    return out


StridedSliceGrad.kernel_attrs = _MASKS


@StridedSliceGrad.gradient
def _(op, grad):
    _, begin, end, strides, _ = op._inputs
    return [None, None, None, None, strided_slice(
        grad, begin, end, strides, **{k: op._attrs[k] for k in _MASKS})]


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
        # Elements are named by position, as TF's autopacking names them (`stack/1`).
        elems = [_autopack(v, dtype, name=str(i)) if isinstance(v, (list, tuple)) else
                 convert_to_tensor(v, dtype=dtype, name=str(i)) for i, v in enumerate(value)]
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


@Fill.gradient
def _(op, grad):
    from flowloom.ops import math_ops

    return None, math_ops.reduce_sum(grad)


def fill(dims, value, name=None):
    return apply_op("Fill", (dims, value), name=name).outputs[0]


def _filled(shape, fill_value, dtype, name):
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype.is_bool:
        fill_value = bool(fill_value)
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


ZerosLike.no_gradient()
OnesLike.no_gradient()


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


Where.no_gradient()


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


@GatherV2.gradient
def _(op, grad):
    """Axis 0: the rows of grad as IndexedSlices of params. Other axes: a segment sum."""
    from flowloom.framework.indexed_slices import IndexedSlices
    from flowloom.framework.graph import get_default_graph
    from flowloom.ops import math_ops
    from flowloom.ops import segment_ops

    params, indices, axis = op._inputs
    if op._attrs.get("batch_dims", 0):
        raise NotImplementedError("GatherV2 gradient with batch_dims")
    with get_default_graph().colocate_with(params):
        params_shape = shape(params)
    indices_size = expand_dims(size(indices), 0)
    axis_static = constant_value(axis)
    grad = _dense(grad)
    if axis_static is not None and int(axis_static) == 0:
        values_shape = concat([indices_size, params_shape[1:]], 0)
        values = reshape(grad, values_shape)
        indices = reshape(indices, indices_size)
        return [IndexedSlices(values, indices, params_shape), None, None]
    outer_shape = params_shape[:axis]
    inner_shape = params_shape[axis:][1:]
    values_shape = concat([outer_shape, [-1], inner_shape], 0)
    values_dims = size(values_shape)
    axis_dims = size(outer_shape)
    outer_batches_indices = math_ops.range_(0)
    batch_axis_indices = math_ops.range_(0, axis_dims)
    inner_axes_indices = math_ops.range_(axis_dims + 1, values_dims)
    values = reshape(grad, values_shape)
    # Move the gathered axis to the front, sum the rows into params' axis, move it back.
    transpose_dims = concat([outer_batches_indices, stack([axis_dims]), batch_axis_indices,
                             inner_axes_indices], 0)
    values_transpose = transpose(values, transpose_dims)
    gather(params_shape, transpose_dims)  # TF builds (and does not use) the permuted shape
    indices_size = expand_dims(size(indices), 0)
    params_grad = segment_ops.unsorted_segment_sum(
        values_transpose, reshape(indices, indices_size), params_shape[axis])
    invert_dims = concat([outer_batches_indices, batch_axis_indices + 1, [0],
                          inner_axes_indices], 0)
    params_grad = transpose(params_grad, invert_dims)
    return [reshape(params_grad, shape(params)), None, None]


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
        if axis != 0 or ndims_mask != 1:
            from flowloom.ops import math_ops

            shape_t = shape(tensor)
            lead = math_ops.reduce_prod(shape_t[axis:axis + ndims_mask], [0])
            new_shape = concat([shape_t[:axis], [lead], shape_t[axis + ndims_mask:]], 0)
            tensor = reshape(tensor, new_shape)
            mask = reshape(mask, [-1])
        indices = squeeze(where(mask), axis=[1])
        return gather(tensor, indices, axis=axis)


# ================================================================================================
# Training ops (branch `ops`): gather_nd/scatter_nd, pad, tile, one_hot, split, reverse,
# sequence_mask, where_v2. Gradients stand next to their ops.
# ================================================================================================
def _math():
    from flowloom.ops import math_ops

    return math_ops


def _shape_str(shape):
    return "[" + ",".join(map(str, shape)) + "]"


GatherNd = defop("GatherNd", inputs=["params: Tparams", "indices: Tindices"],
                 outputs=["output: Tparams"])


@GatherNd.shape
def _(op):
    p, i = (t._shape for t in op._inputs)
    if p.ndims is None or i.ndims is None:
        return unknown_shape()
    depth = i.as_list()[-1]
    if depth is None:
        return unknown_shape()
    if depth > p.ndims:
        raise ValueError(f"indices.shape[-1] must be <= params.rank, but saw indices shape: "
                         f"{_dims_str(i)} and params shape: {_dims_str(p)}")
    return TensorShape(i.as_list()[:-1] + p.as_list()[depth:])


def _check_nd_indices(indices, shape, what):
    depth = indices.shape[-1]
    flat = indices.reshape(-1, depth)
    bad = np.any((flat < 0) | (flat >= np.array(shape[:depth], dtype=np.int64)), axis=1)
    if bad.any():
        k = int(np.argmax(bad))
        pos = np.unravel_index(k, indices.shape[:-1])
        raise errors.InvalidArgumentError(
            None, None, f"indices{list(map(int, pos))} = {list(map(int, flat[k]))} does not "
            f"index into {what} {_shape_str(shape)}")
    return flat


@GatherNd.kernel
def _(xp, params, indices):
    depth = indices.shape[-1]
    if depth > params.ndim:
        raise errors.InvalidArgumentError(
            None, None, f"index innermost dimension length must be <= params rank; saw: "
            f"{depth} vs. {params.ndim}")
    flat = _check_nd_indices(indices, params.shape, "param shape")
    out = params[tuple(flat.T)] if depth else np.broadcast_to(
        params, (flat.shape[0],) + params.shape)
    return xp.ascontiguousarray(out.reshape(indices.shape[:-1] + params.shape[depth:]))


@GatherNd.gradient
def _(op, grad):
    params, indices = op._inputs
    return [scatter_nd(indices, grad, shape(params, out_type=indices.dtype.base_dtype)), None]


def gather_nd(params, indices, name=None, batch_dims=0):
    """Gathers slices of `params` addressed by the last dimension of `indices`.

    Args:
      params: the tensor to read.
      indices: int32/int64 tensor; `indices[..., :]` is an index into `params`.

    Returns:
      A tensor of shape `indices.shape[:-1] + params.shape[indices.shape[-1]:]`.
    """
    if batch_dims:
        raise NotImplementedError("tf.gather_nd with batch_dims")
    if hasattr(params, "_as_graph_element") and hasattr(params, "value") and \
            not isinstance(params, Tensor):
        params = params.value()
    return apply_op("GatherNd", (params, indices), name=name).outputs[0]


ScatterNd = defop("ScatterNd", inputs=["indices: Tindices", "updates: T", "shape: Tindices"],
                  outputs=["output: T"])


@ScatterNd.shape
def _(op):
    return constant_value_as_shape(op._inputs[2])


@ScatterNd.kernel
def _(xp, indices, updates, shape):
    shape = tuple(int(d) for d in shape)
    depth = indices.shape[-1]
    want = indices.shape[:-1] + shape[depth:]
    if updates.shape != want:
        raise errors.InvalidArgumentError(
            None, None, f"Dimensions [0,{indices.ndim - 1}) of indices[shape="
            f"{_shape_str(indices.shape)}] = {_shape_str(indices.shape[:-1])} must match "
            f"dimensions [0,{updates.ndim - len(shape) + depth}) of updates[shape="
            f"{_shape_str(updates.shape)}]")
    flat = _check_nd_indices(indices, shape, "shape")
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


# -- Pad ----------------------------------------------------------------------------------------
def _pad_shape(op):
    x, p = op._inputs[0], op._inputs[1]
    pv = constant_value(p)
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
        return unknown_shape(s.ndims if s.ndims is not None else ps.as_list()[0])
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
    return xp.pad(x, _check_paddings(x, paddings))


PadV2 = defop("PadV2", inputs=["input: T", "paddings: Tpaddings", "constant_values: T"],
              outputs=["output: T"], attrs={"Tpaddings": dtypes.int32})
PadV2.shape(_pad_shape)


@PadV2.kernel
def _(xp, x, paddings, constant_values):
    return xp.pad(x, _check_paddings(x, paddings), constant_values=constant_values)


def _pad_grad(op, grad):
    x, p = op._inputs[0], op._inputs[1]
    before = slice(p, [0, 0], stack([rank(x), 1]))
    dx = slice(grad, reshape(before, [-1]), shape(x))
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
    pv = constant_value(p)
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
    return np.ascontiguousarray(out)


@MirrorPad.gradient
def _(op, grad):
    return [apply_op("MirrorPadGrad", (grad, op._inputs[1]),
                     mode=op.get_attr("mode")).outputs[0], None]


@MirrorPadGrad.gradient
def _(op, grad):
    return [apply_op("MirrorPad", (grad, op._inputs[1]), mode=op.get_attr("mode")).outputs[0],
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
            return apply_op("Pad", (tensor, paddings), name=name).outputs[0]
        tensor = convert_to_tensor(tensor, name="tensor")
        return apply_op("PadV2", (tensor, paddings, constant_values), name=name).outputs[0]
    if mode in ("REFLECT", "SYMMETRIC"):
        return apply_op("MirrorPad", (tensor, paddings), name=name, mode=mode).outputs[0]
    raise ValueError(f"Value of argument `mode` expected to be one of \"CONSTANT\", "
                     f"\"REFLECT\", or \"SYMMETRIC\". Received `mode` = {mode}")


# -- OneHot ---------------------------------------------------------------------------------------
OneHot = defop("OneHot", inputs=["indices: TI", "depth: int32", "on_value: T", "off_value: T"],
               outputs=["output: T"], attrs={"axis": -1, "TI": dtypes.int64})


@OneHot.shape
def _(op):
    ind, depth = op._inputs[0], op._inputs[1]
    dv = constant_value(depth)
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
    return xp.ascontiguousarray(out)


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
        if on_exists:
            on_value = convert_to_tensor(on_value, dtype=dtype)
        if off_exists:
            off_value = convert_to_tensor(off_value, dtype=dtype)
        on_dtype = on_value.dtype.base_dtype if on_exists else None
        off_dtype = off_value.dtype.base_dtype if off_exists else None
        if on_exists or off_exists:
            if dtype is not None:
                dtype = dtypes.as_dtype(dtype)
                for given, label in ((on_dtype, "on_value"), (off_dtype, "off_value")):
                    if given is not None and given != dtype:
                        raise TypeError(f"dtype {dtype!r} of {label} does not match "
                                        f"dtype parameter {given!r}")
            else:
                dtype = on_dtype if on_exists else off_dtype
        elif dtype is None:
            dtype = dtypes.float32
        dtype = dtypes.as_dtype(dtype)
        if on_exists and off_exists and on_dtype != off_dtype:
            raise TypeError(f"dtype {on_dtype!r} of on_value does not match dtype {off_dtype!r} "
                            "of off_value")
        if not on_exists:
            on_value = convert_to_tensor(1, dtype=dtype, name="on_value")
        if not off_exists:
            off_value = convert_to_tensor(0, dtype=dtype, name="off_value")
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
    dims, axis = _split_dims(op._inputs[1]._shape, constant_value(op._inputs[0]))
    if dims is None:
        return [unknown_shape(op._inputs[1]._shape.ndims)] * n
    if dims[axis] is not None and dims[axis] % n:
        raise ValueError(f"Dimension size must be evenly divisible by {n} but is {dims[axis]}")
    dims[axis] = None if dims[axis] is None else dims[axis] // n
    return [TensorShape(dims)] * n


@Split.kernel
def _(xp, split_dim, value, *, num_split):
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
    sizes = [int(s) for s in sizes]
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1:
        return None, "Only one dimensions can have a value of -1. Second one found at " \
            f"dimension {unknown[1]}"
    if unknown:
        if total is None:
            return sizes, None
        sizes[unknown[0]] = total - (sum(sizes) + 1)
    if total is not None and sum(sizes) != total:
        return None, "Determined shape must either match input shape along split_dim " \
            f"exactly if fully specified, or be less than the size of the input along " \
            f"split_dim if not fully specified.  Got: {sum(sizes)}"
    return sizes, None


@SplitV.shape
def _(op):
    n = op._attrs["num_split"]
    x, sizes_t, axis_t = op._inputs
    dims, axis = _split_dims(x._shape, constant_value(axis_t))
    sv = constant_value(sizes_t)
    if dims is None or sv is None:
        return [unknown_shape(x._shape.ndims)] * n
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
    axis = int(split_dim)
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
        return apply_op("Split", (axis, value), name=name,
                        num_split=int(num_or_size_splits)).outputs
    sizes = num_or_size_splits
    if num is None:
        sizes_t = convert_to_tensor(sizes) if not isinstance(sizes, Tensor) else sizes
        s = sizes_t._shape
        if s.ndims is None or s.as_list()[0] is None:
            raise ValueError(f"Cannot infer argument `num` from shape {s}")
        num = s.as_list()[0]
        if s.ndims == 0:
            raise ValueError(f"Cannot infer argument `num` from shape {s}")
    return apply_op("SplitV", (value, sizes, axis), name=name, num_split=num).outputs


# -- ReverseV2 ----------------------------------------------------------------------------------
ReverseV2 = defop("ReverseV2", inputs=["tensor: T", "axis: Tidx"], outputs=["output: T"],
                  attrs={"Tidx": dtypes.int32})


@ReverseV2.shape
def _(op):
    x, a = op._inputs
    av = constant_value(a)
    if av is not None and x._shape.ndims is not None:
        nd = x._shape.ndims
        for v in np.ravel(av):
            if v < -nd or v >= nd:
                raise ValueError(f"'axis'[0] = {int(v)} is out of valid range [0, {nd - 1}")
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
    return xp.ascontiguousarray(xp.flip(x, tuple(norm))) if norm else x


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
            raise ValueError("Argument `maxlen` must be scalar for sequence_mask, received "
                             f"`maxlen` = {maxlen} with shape '{maxlen._shape}' instead")
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


def _sum_to(grad, like):
    """Sums `grad` over the dimensions `like` was broadcast along (static shapes)."""
    gs, ls = grad._shape, like._shape
    if not (gs.is_fully_defined() and ls.is_fully_defined()):
        raise NotImplementedError("SelectV2 gradient with dynamic shapes")
    g, t = gs.as_list(), ls.as_list()
    if g == t:
        return grad
    lead = len(g) - len(t)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(t) if d == 1 and g[lead + i] != 1]
    out = _math().reduce_sum(grad, axes, keepdims=True) if axes else grad
    return reshape(out, t)


@SelectV2.gradient
def _(op, grad):
    c, t, e = op._inputs
    zero = zeros([], dtype=grad.dtype.base_dtype)
    return [None, _sum_to(where_v2(c, grad, zero), t), _sum_to(where_v2(c, zero, grad), e)]


def where_v2(condition, x=None, y=None, name=None):
    """`tf.where_v2`: like `where`, with NumPy broadcasting among the three arguments."""
    if x is None and y is None:
        return apply_op("Where", (condition,), name=name).outputs[0]
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return apply_op("SelectV2", (condition, x, y), name=name).outputs[0]


def tile(input, multiples, name=None):  # noqa: A002
    """Repeats `input` `multiples[i]` times along dimension i (op `Tile`, in broadcast_ops)."""
    from flowloom.ops import broadcast_ops

    return broadcast_ops.tile(input, multiples, name=name)
