"""Array ops: constants, placeholders, identity, shapes, reshaping, joining, filling.

Slicing, gathering/scattering and padding/splitting ops have files of their own."""

import builtins
import math
import sys

import numpy as np

from flowloom.framework import common_shapes
from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework import tensor_shape
from flowloom.framework import tensor_util
from flowloom.framework import variant
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import get_default_graph, name_scope
from flowloom.framework.ops import (Tensor, convert_to_tensor, infer_dtype,
                                    tensor_value_to_numpy)
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.framework.tensor_util import constant_value
from flowloom.framework.shape_eval import input_value, input_value_as_shape


_builtin_slice = builtins.slice


def dtype_string(dt):
    """TF's DataTypeString: 'float' for float32, 'double' for float64."""
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dt.name, dt.name)


def _shape_str(shape):
    return "[" + ",".join(map(str, shape)) + "]"


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
def _(xp, *, value, dtype):
    if dtype is dtypes.variant:
        return variant.decode_array(value)
    if value.dtype != dtype.as_numpy_dtype and dtype.as_numpy_dtype is not None:
        # An imported NodeDef can disagree with itself; TF's kernel refuses it when it runs.
        raise errors.InvalidArgumentError(
            None, None, f"Type mismatch between value ({_dtype_name(value.dtype)}) and dtype "
            f"({dtype.name})")
    return value


def _dtype_name(np_dtype):
    try:
        return dtypes.as_dtype(np_dtype).name
    except TypeError:
        return str(np_dtype)


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """Creates a constant tensor from a Python or numpy value.

    Args:
      value: a scalar, (nested) list or numpy array.
      dtype: the element type; inferred when None (int → int32, float → float32).
      shape: optional shape; a scalar value is broadcast to it.
      name: the op's name.

    Returns:
      A `Tensor` of op type `Const`.

    Raises:
      ValueError: If `value` is None (TF's "None values not supported.").
    """
    if value is None:
        raise ValueError("None values not supported.")
    if _is_tensor_proto(value):
        # As TF: the proto is the value attr as given, its dtype the Const's (`dtype` and
        # `shape` are not consulted).
        from flowloom.framework import tensor_proto

        arr = tensor_proto.to_numpy(value, "the TensorProto given to tf.constant")
        return _const(get_default_graph(), arr, dtypes.as_dtype(value.dtype), name or "Const")
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
    if isinstance(name, bytes):  # TF 1.15 takes bytes names (its op names are bytes-compatible)
        name = name.decode()
    if shape is None:
        # Python scalars and int lists (most constants a program writes): nothing to infer
        # or check.
        fast = _scalar_array(value, dtype)
        if fast is not None:
            return _const(get_default_graph(), fast[0], fast[1], name or "Const")
    if dtype is None:
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
            elif arr.size > int(np.prod(shape)):
                raise ValueError(f"Too many elements provided. Needed at most "
                                 f"{int(np.prod(shape))}, but received {arr.size}")
            else:
                # Fewer values than the shape holds: the last one fills the rest (TF 1.x's
                # tf.constant; no values at all give zeros).
                flat = (np.full(int(np.prod(shape)), b"", dtype=object) if arr.dtype == object
                        else np.zeros(int(np.prod(shape)), dtype=arr.dtype))
                if arr.size:
                    flat[:arr.size] = arr.reshape(-1)
                    flat[arr.size:] = arr.reshape(-1)[-1]
                arr = flat.reshape(shape)
    if arr is value or (isinstance(value, np.ndarray) and np.shares_memory(arr, value)):
        arr = arr.copy()
    arr.flags.writeable = False
    if isinstance(name, bytes):
        name = name.decode("utf-8")
    return _const(get_default_graph(), arr, dtype, name or "Const")


def _is_tensor_proto(value):
    # Without importing the protos: a TensorProto exists only once its module is loaded.
    protos = sys.modules.get("flowloom.proto.tensor_pb2")
    return protos is not None and isinstance(value, protos.TensorProto)


_INT32_MIN, _INT32_MAX = -2 ** 31, 2 ** 31 - 1
_INT_LIST_DTYPES = (None, dtypes.int32, dtypes.int64)


def _scalar_array(value, dtype):
    """(read-only array, dtype) of Python scalar `value` (a float, or an int in int32's
    range) as `dtype` (None: TF's inferred float32 / int32) when that needs no check; else
    None (the general path converts and checks)."""
    cls = type(value)
    if cls is float:
        if dtype is None:
            dtype = dtypes.float32
        elif not dtype.is_floating:
            return None
    elif cls is int:
        if not _INT32_MIN <= value <= _INT32_MAX:
            return None
        if dtype is None:
            dtype = dtypes.int32
        elif not (dtype.is_floating or dtype in (dtypes.int32, dtypes.int64)):
            return None
    elif (cls is list or cls is tuple) and value and dtype in _INT_LIST_DTYPES:
        # A flat list of ints in int32's range (shapes, axes).
        for v in value:
            if type(v) is not int or not _INT32_MIN <= v <= _INT32_MAX:
                return None
        if dtype is None:
            dtype = dtypes.int32
    else:
        return None
    arr = np.array(value, dtype=dtype.as_numpy_dtype)
    arr.flags.writeable = False
    return arr, dtype


def _const(graph, arr, dtype, name):
    op_name = graph.unique_name(name) if not name.endswith("/") else name[:-1]
    # (Called by constant() only: the user's line is above constant's frame, depth 4.)
    return graph._create_op_internal(Const, [], [dtype], {"value": arr, "dtype": dtype},
                                     op_name, depth=4)._outputs[0]


# -- Placeholders -------------------------------------------------------------------------
Placeholder = defop("Placeholder", outputs=["output: dtype"],
                    attrs={"dtype": None, "shape": unknown_shape()})


@Placeholder.shape
def _(op):
    shape = op._attrs["shape"]
    versions = op._graph._graph_def_versions
    if versions is not None and versions.producer <= 21 and not shape.ndims:
        # TF's legacy rule: before GraphDef version 22 a scalar shape attr meant "unknown".
        return unknown_shape()
    return shape


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
    return apply_op("Placeholder", (), name=name, dtype=dtype, shape=shape)._outputs[0]


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
def _identity(xp, x):
    return x


_identity.returns_its_input = True  # (a compiled plan assigns instead of calling it)


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
    return apply_op("Identity", (input,), name=name)._outputs[0]


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


def _sparse_dense_shape(value):
    """The dense-shape tensor of a SparseTensor or SparseTensorValue, else None."""
    from flowloom.framework.sparse_tensor import SparseTensor, SparseTensorValue

    if isinstance(value, SparseTensor):
        return value.dense_shape
    if isinstance(value, SparseTensorValue):
        return convert_to_tensor(value.dense_shape, dtype=dtypes.int64)
    return None


def shape(input, name=None, out_type=dtypes.int32, optimize=True):  # noqa: A002
    """The shape of `input` as a 1-D tensor (a Const when it is statically known, as in TF)."""
    out_type = dtypes.as_dtype(out_type)
    with name_scope(name, "Shape", [input]) as scope:
        dense_shape = _sparse_dense_shape(input)
        if dense_shape is not None:
            return apply_op("Cast", (dense_shape,), DstT=out_type).outputs[0]
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
        dense_shape = _sparse_dense_shape(input)
        if dense_shape is not None:
            dims = apply_op("Cast", (dense_shape,), DstT=out_type).outputs[0]
            return apply_op("Prod", (dims, constant(0)), name=scope).outputs[0]
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
        dense_shape = _sparse_dense_shape(input)
        if dense_shape is not None:
            return apply_op("Size", (dense_shape,), name=scope,
                            out_type=dtypes.int32).outputs[0]
        input = convert_to_tensor(input)
        if optimize and input._shape.ndims is not None:
            return constant(input._shape.ndims, dtype=dtypes.int32, name=scope)
        return apply_op("Rank", (input,), name=scope).outputs[0]


rank_internal = rank  # TF's name for rank with its `optimize` switch


# -- Reshape, Transpose, ExpandDims, Squeeze ---------------------------------------------------------
Reshape = defop("Reshape", inputs=["tensor: T", "shape: Tshape"], outputs=["output: T"],
                attrs={"Tshape": dtypes.int32})


@Reshape.shape
def _(op):
    """TF's SetOutputShapeForReshape: the target shape's known values; one unknown dim of the
    output (or input) inferred from the element counts when the rest is known."""
    x, s = op._inputs
    out = input_value_as_shape(s)
    if out.ndims is None or x._shape.ndims is None:
        return out
    out_dims, in_dims = out.as_list(), x._shape.as_list()

    def known_product(dims):
        unknown = [i for i, d in enumerate(dims) if d is None]
        return int(np.prod([d for d in dims if d is not None], dtype=np.int64)), unknown

    out_elems, out_unknown = known_product(out_dims)
    in_elems, in_unknown = known_product(in_dims)
    if len(out_unknown) > 1 or len(in_unknown) > 1:
        return out
    if not in_unknown and not out_unknown:
        if in_elems != out_elems:
            raise ValueError(f"Cannot reshape a tensor with {in_elems} elements to shape "
                             f"{_dims_str(out_dims)} ({out_elems} elements)")
    elif not in_unknown and out_elems > 0:
        if in_elems % out_elems:
            raise ValueError(f"Dimension size must be evenly divisible by {out_elems} but is "
                             f"{in_elems}")
        out_dims[out_unknown[0]] = in_elems // out_elems
    elif not out_unknown and in_elems != 0:
        if out_elems % in_elems:
            raise ValueError(f"Dimension size must be evenly divisible by {in_elems} but is "
                             f"{out_elems}")
    elif in_unknown and out_unknown and in_elems == out_elems:
        out_dims[out_unknown[0]] = in_dims[in_unknown[0]]
    return TensorShape(out_dims)


def _dims_str(dims):
    return "[%s]" % ",".join("?" if d is None else str(d) for d in dims)


def _shape_list_str(v):
    return "[%s]" % ",".join(str(int(d)) for d in np.ravel(v))


@Reshape.kernel
def _(xp, x, shape):
    if np.ndim(shape) != 1:
        raise errors.InvalidArgumentError(
            None, None, f"sizes input must be 1-D, not {list(np.shape(shape))}")
    dims = [int(d) for d in shape]
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1:
        raise errors.InvalidArgumentError(
            None, None, f"Only one input size may be -1, not both {unknown[0]} and "
            f"{unknown[1]}")
    for i, d in enumerate(dims):
        if d < -1:
            raise errors.InvalidArgumentError(None, None, f"Size {i} must be non-negative, "
                                              f"not {d}")
    if unknown:
        # As TF's kernel: zero dims count in neither product when the sizes have one, so the
        # -1 still gets the size the other dims imply.
        zero = 0 in dims
        product = int(np.prod([d for d in dims if d > 0], dtype=np.int64))
        elems = int(np.prod([d for d in x.shape if d > 0 or not zero], dtype=np.int64))
        missing = elems // product if product else 0
        if not (zero and 0 in x.shape) and product * missing != elems:
            raise errors.InvalidArgumentError(
                None, None, f"Input to reshape is a tensor with {elems} values, but the "
                f"requested shape requires a multiple of {product}")
        dims[unknown[0]] = missing
        return xp.reshape(x, dims)
    product = int(np.prod(dims, dtype=np.int64))
    if product != np.size(x):
        raise errors.InvalidArgumentError(
            None, None, f"Input to reshape is a tensor with {np.size(x)} values, but the "
            f"requested shape has {product}")
    return xp.reshape(x, dims)


def _reshape_specialize(op, consts, general):
    """A constant shape without -1 or negative sizes: checked once; each run only compares
    the element count (any other case runs the general kernel)."""
    shape = consts[1]
    if shape is None or consts[0] is not None or np.ndim(shape) != 1:
        return None
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        return None
    product = int(np.prod(dims, dtype=np.int64))

    def reshape_to_constant(x, shape):
        if np.size(x) != product:
            return general(x, shape)
        return np.reshape(x, dims)
    return reshape_to_constant


Reshape.kernel_fn.specialize = _reshape_specialize


def _reshape_to_input(op, grad):
    return reshape(_dense(grad), shape(op._inputs[0]))


def _dense(grad):
    """A gradient as a dense Tensor (IndexedSlices are summed into rows)."""
    return grad if isinstance(grad, Tensor) else convert_to_tensor(grad)


Reshape.gradient(lambda op, grad: [_reshape_to_input(op, grad), None])


def reshape(tensor, shape, name=None):
    """Reshapes `tensor` to `shape` (one dim may be -1). Op type `Reshape`."""
    result = apply_op("Reshape", (tensor, shape), name=name).outputs[0]
    tensor_util.maybe_set_static_shape(result, shape)
    return result


Transpose = defop("Transpose", inputs=["x: T", "perm: Tperm"], outputs=["y: T"],
                  attrs={"Tperm": dtypes.int32})


@Transpose.shape
def _(op):
    """TF's TransposeShapeFn: the rank from the input, perm's size or its value; the dims
    from perm's value."""
    x, p = op._inputs
    pv = input_value(p)
    perm_elems = p._shape.num_elements()
    if x._shape.ndims is None and perm_elems is None and pv is None:
        return unknown_shape()
    rank = x._shape.ndims if x._shape.ndims is not None else (
        perm_elems if perm_elems is not None else np.size(pv))
    if x._shape.ndims is None and rank < 2:
        return x._shape  # one perm value: a scalar or a vector, both returned unchanged
    if x._shape.ndims is not None and x._shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {x._shape.ndims}")
    if p._shape.ndims not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {p._shape.ndims}")
    if perm_elems is not None and perm_elems != rank:
        raise ValueError(f"Dimension must be {rank} but is {perm_elems}")
    if pv is None:
        return unknown_shape(rank)
    dims = x._shape.as_list() if x._shape.ndims is not None else [None] * rank
    out = []
    for i in np.ravel(pv):
        if int(i) >= rank:
            raise ValueError(f"perm dim {int(i)} is out of range of input rank {rank}")
        out.append(dims[int(i)])
    return TensorShape(out)


@Transpose.kernel
def _(xp, x, perm):
    perm = [int(i) for i in np.ravel(perm)]
    if np.ndim(x) != len(perm):
        raise errors.InvalidArgumentError(
            None, None, f"transpose expects a vector of size {np.ndim(x)}. But input(1) is a "
            f"vector of size {len(perm)}")
    for i in range(len(perm)):
        if i not in perm:
            raise errors.InvalidArgumentError(
                None, None, f"{i} is missing from {{{','.join(map(str, perm))}}}.")
    return xp.transpose(x, perm)


def _transpose_specialize(op, consts, general):
    """A constant perm: checked once (for inputs of its rank); each run transposes."""
    perm = consts[1]
    if perm is None or consts[0] is not None:
        return None
    perm = [int(i) for i in np.ravel(perm)]
    if sorted(perm) != list(range(len(perm))):
        return None
    rank = len(perm)

    def transpose_by_constant(x, p):
        if np.ndim(x) != rank:
            return general(x, p)
        return np.transpose(x, perm)
    return transpose_by_constant


Transpose.kernel_fn.specialize = _transpose_specialize


@Transpose.gradient
def _(op, grad):
    return [transpose(grad, invert_permutation(op._inputs[1])), None]


InvertPermutation = defop("InvertPermutation", inputs=["x: T"], outputs=["y: T"],
                         attrs={"T": dtypes.int32})
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
    """The inverse permutation of 1-D `x` (an InvertPermutation op even for a constant `x`,
    as TF 1.15 and 2.x build it)."""
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
                from flowloom.ops.math import math_ops

                perm = math_ops.range_(r - 1, -1, -1)
        op_type = "ConjugateTranspose" if conjugate and a.dtype.is_complex else "Transpose"
        return apply_op(op_type, (a, perm), name=scope).outputs[0]


ExpandDims = defop("ExpandDims", inputs=["input: T", "dim: Tdim"], outputs=["output: T"],
                   attrs={"Tdim": dtypes.int32})


@ExpandDims.shape
def _(op):
    x, d = op._inputs
    dv = input_value(d)
    if dv is not None and np.size(dv) != 1:
        raise ValueError(f"'dim' input must be a tensor with a single value for "
                         f"'{op._name}' (op: 'ExpandDims')")
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
    if np.size(dim) != 1:
        raise errors.InvalidArgumentError(None, None, "'dim' must be a tensor with a single "
                                          f"value, got shape [{','.join(map(str, np.shape(dim)))}]")
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
                 attrs={"Tidx": dtypes.int32},
                 allowed_types={"Tidx": (dtypes.int32, dtypes.int64)})


@ConcatV2.shape
def _(op):
    *xs, a = op._inputs
    av = input_value(a)
    ranks = [x._shape.ndims for x in xs if x._shape.ndims is not None]
    if 0 in ranks:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    if a._shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {a._shape.ndims}")
    if not ranks:
        return unknown_shape()
    nd = ranks[0]
    for r in ranks:
        if r != nd:
            raise ValueError(f"Shape must be rank {nd} but is rank {r}")
    if av is None:
        return unknown_shape(nd)
    axis = int(av)
    if axis < -nd or axis >= nd:
        raise ValueError(f"Expected concatenating dimensions in the range [{-nd}, {nd}), but "
                         f"got {axis}")
    axis = axis + nd if axis < 0 else axis
    out = unknown_shape(nd)
    total = 0
    for x in xs:
        s = x._shape
        if s.ndims is None:
            total = None
            continue
        dims = s.as_list()
        if total is not None:
            total = None if dims[axis] is None else total + dims[axis]
        rest = TensorShape(dims[:axis] + [None] + dims[axis + 1:])
        if not out.is_compatible_with(rest):
            raise ValueError(f"Dimensions of inputs should match: shape[0] = {out} vs. "
                             f"shape[{xs.index(x)}] = {s}")
        out = out.merge_with(rest)
    dims = out.as_list()
    dims[axis] = total
    return TensorShape(dims)


@ConcatV2.kernel
def _(xp, *args):
    values, axis = args[:-1], args[-1]
    if np.ndim(axis) != 0:
        raise errors.InvalidArgumentError(
            None, None, "axis tensor should be a scalar integer, but got shape "
            + _array_shape_str(axis))
    dims = values[0].ndim
    concat_dim = int(axis)
    a = concat_dim + dims if concat_dim < 0 else concat_dim
    if not 0 <= a < dims:
        raise errors.InvalidArgumentError(
            None, None, f"ConcatOp : Expected concatenating dimensions in the range "
            f"[{-dims}, {dims}), but got {concat_dim}")
    for i, v in enumerate(values):
        if v.ndim != dims or any(v.shape[j] != values[0].shape[j] for j in range(dims)
                                 if j != a):
            what = "Ranks of all input tensors should match" if v.ndim != dims else \
                "Dimensions of inputs should match"
            raise errors.InvalidArgumentError(
                None, None, f"ConcatOp : {what}: shape[0] = {_array_shape_str(values[0])} vs. "
                f"shape[{i}] = {_array_shape_str(v)}")
    return xp.concatenate(values, axis=a)


def _array_shape_str(a):
    """An array's shape as TF's TensorShape::DebugString writes it: `[2,3]`."""
    return _shape_str(np.shape(a))


@ConcatV2.gradient
def _(op, grad):
    from flowloom.framework.indexed_slices import IndexedSlices

    *values, axis = op._inputs
    if len(values) == 1:
        return [grad, None]
    non_neg_axis = axis % rank(values[0])
    if isinstance(grad, IndexedSlices):
        return _concat_indexed_slices_grad(values, axis, non_neg_axis, grad) + [None]
    sizes = _input_shapes(values)
    offsets = apply_op("ConcatOffset", (non_neg_axis, sizes)).outputs
    return [slice(grad, begin, size) for begin, size in zip(offsets, sizes)] + [None]


def _input_shapes(values):
    """TF's shapes of Concat's inputs: Consts when all are known, else one ShapeN (after the
    Shape op of the first input not known, which TF builds and drops)."""
    sizes = []
    for v in values:
        size = shape(v)
        if size._op._type != "Const":
            return shape_n(values)
        sizes.append(size)
    return sizes


def _concat_indexed_slices_grad(values, axis, non_neg_axis, grad):
    """Per-input IndexedSlices of an IndexedSlices gradient (TF's construction): along axis 0
    each input keeps the rows that fall in it, otherwise each keeps its columns of every row."""
    from flowloom.framework.indexed_slices import IndexedSlices
    from flowloom.ops.math import math_ops

    static = constant_value(axis)
    if static is None:
        raise ValueError("Can only compute IndexedSlices gradient with statically-known "
                         "concat_dim")
    static = int(static)
    if static < 0:
        nd = values[0]._shape.ndims
        if nd is None:
            raise ValueError("Can only compute IndexedSlices gradient with negative concat_dim "
                             "when first value rank is statically-known.")
        static %= nd
    sizes = [shape(v) for v in values]
    out = []
    if static > 0:
        shape_of_shape = shape(sizes[0])
        mask = concat([fill(expand_dims(non_neg_axis, 0), 0), [1],
                       fill(shape_of_shape - non_neg_axis - 1, 0)], 0)
        begin = fill(shape_of_shape, 0)
        for size in sizes:
            part = slice(grad.values, begin, concat([[-1], slice(size, [1], [-1])], 0))
            out.append(IndexedSlices(part, grad.indices, size))
            begin = math_ops.add(begin, size * mask)
        return out
    start = constant(0, dtype=grad.indices.dtype)
    for size in sizes:
        rows = math_ops.cast(gather(size, non_neg_axis), grad.indices.dtype)
        end = start + rows
        chosen = squeeze(where(math_ops.logical_and(grad.indices >= start, grad.indices < end)),
                         axis=[1])
        out.append(IndexedSlices(gather(grad.values, chosen),
                                 gather(grad.indices, chosen) - start, size))
        start = end
    return out


ConcatOffset = defop("ConcatOffset", inputs=["concat_dim: int32", "shape: N * shape_type"],
                     outputs=["offset: N * shape_type"], attrs={"shape_type": dtypes.int32})
ConcatOffset.shape(lambda op: [t._shape for t in op._inputs[1:]])


def _values_str(v):
    return " ".join(str(int(x)) for x in np.ravel(v)[:10]) + (" ..." if np.size(v) > 10 else "")


@ConcatOffset.kernel
def _(xp, concat_dim, *shapes):
    if np.size(concat_dim) != 1:
        raise errors.InvalidArgumentError(
            None, None, "Concat dim tensor should be a scalar integer, but got shape "
            f"{list(np.shape(concat_dim))}")
    for i, s in enumerate(shapes):
        if np.ndim(s) != 1:
            raise errors.InvalidArgumentError(
                None, None, f"input {i} should be a vector, but got shape {list(np.shape(s))}")
    dims = np.size(shapes[0])
    cdim = int(np.ravel(concat_dim)[0])
    axis = cdim + dims if cdim < 0 else cdim
    if not 0 <= axis < dims:
        raise errors.InvalidArgumentError(
            None, None, f"Concat dim is out of range: {cdim} vs. {dims}")
    offsets = []
    position = 0
    for i, s in enumerate(shapes):
        if np.size(s) != dims:
            raise errors.InvalidArgumentError(
                None, None, f"input {i} should contain {dims} elements, but got {np.size(s)}")
        same = np.asarray(s) == np.asarray(shapes[0])
        same[axis] = True
        if not same.all():
            raise errors.InvalidArgumentError(
                None, None, f"All dimensions except {axis} must match. Input {i} has shape "
                f"[{_values_str(s)}] and doesn't match input 0 with shape "
                f"[{_values_str(shapes[0])}].")
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
        with name_scope(name):
            # As TF: the axis must still be an int32 scalar.
            convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32).get_shape() \
                .assert_has_rank(0)
            return identity(values[0], name=name)
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
        raise ValueError(f"axis = {axis} not in [{-nd}, {nd})")
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
        if axis == 0 and isinstance(values, np.ndarray):
            return convert_to_tensor(values, name=name)  # TF converts before packing
        if not hasattr(values, "__iter__"):
            raise TypeError("values must be a list of tensors")
        values = list(values)
    if not values and axis == 0:
        return constant(values, name=name)  # TF: an empty list converts to float32 [0]
    # As TF: only an axis-0 stack converts its values as one constant; other axes Pack.
    if axis == 0 and values and all(not isinstance(v, Tensor) and
                                    not hasattr(v, "_as_graph_element") for v in values):
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
            raise ValueError(f"Cannot infer num from shape {s}")
        nd = s.ndims
        if axis < -nd or axis >= nd:
            raise ValueError(f"axis = {axis} not in [{-nd}, {nd})")
        num = s.as_list()[axis]
        if num is None:
            raise ValueError(f"Cannot infer num from shape {s}")
    if s.ndims is not None and axis < 0:
        axis += s.ndims
    return apply_op("Unpack", (value,), name=name, axis=axis, num=num).outputs


def _contains_tensor(value):
    if isinstance(value, Tensor) or (hasattr(value, "_as_graph_element") and
                                     not isinstance(value, np.ndarray)):
        return True
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(v) for v in value)
    return False


def _first_tensor_dtype(value):
    for v in value:
        if isinstance(v, (list, tuple)):
            found = _first_tensor_dtype(v)
            if found is not None:
                return found
        elif isinstance(v, Tensor) or hasattr(v, "_as_graph_element"):
            return v.dtype.base_dtype
    return None


def _cast_nested(value, dtype):
    out = []
    for v in value:
        if isinstance(v, (list, tuple)):
            v = _cast_nested(v, dtype)
        elif isinstance(v, Tensor) and v.dtype.base_dtype != dtype:
            v = apply_op("Cast", (v,), DstT=dtype, SrcT=v.dtype.base_dtype).outputs[0]
        out.append(v)
    return out


def _autopack(value, dtype=None, name=None, as_ref=False):
    """A (nested) list holding tensors becomes a Pack of them, as TF converts it ("packed")."""
    if not _contains_tensor(value):
        return NotImplemented
    if dtype is None:
        # As TF's _get_dtype_from_nested_lists: the first tensor in the list sets the dtype
        # (Python numbers beside it convert to that dtype).
        dtype = _first_tensor_dtype(value)
    elif dtype != _first_tensor_dtype(value):
        # As TF's _cast_nested_seqs_to_dtype: a dtype asked for that differs from the
        # inferred one casts every tensor of another dtype first.
        value = _cast_nested(value, dtypes.as_dtype(dtype).base_dtype)
    with name_scope(name or "packed") as scope:
        # As TF's autopacking: nested lists holding tensors are packed first; the other
        # elements (numbers, tensor-free lists, arrays) then become Consts of the packed
        # dtype, named by position (`stack/1`).
        elems = [_autopack(v, dtype, name=str(i)) if isinstance(v, (list, tuple)) and
                 _contains_tensor(v) else v for i, v in enumerate(value)]
        target = dtype
        if target is None:
            for e in elems:
                if isinstance(e, Tensor):
                    target = e.dtype.base_dtype
                    break
        # Tensors go to the Pack as they are (one of another dtype fails there: TypeError).
        elems = [e if isinstance(e, Tensor) else
                 convert_to_tensor(e, dtype=target, name=str(i)) for i, e in enumerate(elems)]
        return apply_op("Pack", (elems,), name=scope, axis=0).outputs[0]


from flowloom.framework.ops import register_tensor_conversion_function  # noqa: E402

register_tensor_conversion_function((list, tuple), _autopack, priority=99)


# -- Fill, zeros, ones ----------------------------------------------------------------------------------
Fill = defop("Fill", inputs=["dims: index_type", "value: T"], outputs=["output: T"],
             attrs={"index_type": dtypes.int32})


@Fill.shape
def _(op):
    dims, value = op._inputs
    for t, rank in ((dims, 1), (value, 0)):
        if t._shape.ndims not in (None, rank):
            raise ValueError(f"Shape must be rank {rank} but is rank {t._shape.ndims}")
    known = input_value(dims)
    if known is not None and np.any(np.asarray(known) < 0):
        # TF's Fill shape function: a negative static dimension is a build-time error.
        raise ValueError(f"Fill dimensions must be >= 0, got {np.asarray(known).tolist()}")
    return input_value_as_shape(dims)


@Fill.kernel
def _(xp, dims, value):
    if np.ndim(dims) != 1:
        raise errors.InvalidArgumentError(
            None, None, f"dims must be a vector, got shape {_array_shape_str(dims)}")
    if np.ndim(value) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"value must be a scalar, got shape {_array_shape_str(value)}")
    return xp.full(tuple(int(d) for d in dims), value, dtype=value.dtype)


@Fill.gradient
def _(op, grad):
    from flowloom.ops.math import math_ops

    return None, math_ops.reduce_sum(grad)


def fill(dims, value, name=None):
    """A tensor of shape `dims` filled with the scalar `value`. Op type `Fill`."""
    result = apply_op("Fill", (dims, value), name=name)._outputs[0]
    tensor_util.maybe_set_static_shape(result, dims)
    return result


def _filled(shape, fill_value, dtype, name):
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype.is_bool:
        fill_value = bool(fill_value)
    if isinstance(shape, Tensor) or (isinstance(shape, (list, tuple)) and
                                     any(isinstance(d, Tensor) for d in shape)):
        with name_scope(name) as scope:
            shape_t = stack(shape) if isinstance(shape, (list, tuple)) else shape
            if shape_t._shape.ndims == 0:
                shape_t = reshape(shape_t, [-1])  # a scalar shape is a vector of one (TF)
            return fill(shape_t, constant(fill_value, dtype=dtype), name=scope)
    dims = tensor_shape.as_shape(shape).as_list()
    if math.prod(dims) < 1000:
        if dtype is not dtypes.string and name.__class__ is str:
            # The Const constant() makes of this array (it would check and copy it).
            arr = np.full(dims, fill_value, dtype=dtype.as_numpy_dtype)
            arr.flags.writeable = False
            return _const(get_default_graph(), arr, dtype, name or "Const")
        return constant(np.full(dims, fill_value, dtype=dtype.as_numpy_dtype), dtype=dtype,
                        name=name)
    with name_scope(name) as scope:
        # int64 when a dimension needs it, as TF's TensorShape conversion does.
        shape_dtype = dtypes.int64 if any(d >= 2**31 for d in dims) else dtypes.int32
        return fill(constant(dims, dtype=shape_dtype, name="shape_as_tensor"),
                    constant(fill_value, dtype=dtype, name="Const"), name=scope)


def zeros(shape, dtype=dtypes.float32, name="zeros"):
    """A tensor of `shape` filled with zeros ("" for strings, False for bools, as in TF)."""
    dtype = dtypes.as_dtype(dtype)
    zero = b"" if dtype.base_dtype is dtypes.string else (False if dtype.is_bool else 0)
    return _filled(shape, zero, dtype, name)


def ones(shape, dtype=dtypes.float32, name="ones"):
    """A tensor of `shape` filled with ones."""
    return _filled(shape, 1, dtype, name)


ZerosLike = defop("ZerosLike", inputs=["x: T"], outputs=["y: T"])
ZerosLike.shape(common_shapes.unchanged)


@ZerosLike.kernel
def _(xp, x):
    if variant.is_variant_array(x):
        return variant.zeros_like_array(x)
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
        if optimize and tensor._shape.is_fully_defined() and dtype is not dtypes.variant:
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


# The other array-op families live in files of their own (slicing_ops, gather_ops, manip_ops);
# their public names stay reachable here, as in TF's array_ops.
from flowloom.ops.array.slicing_ops import (  # noqa: E402,F401
    Slice, slice, StridedSlice, strided_slice_np, StridedSliceGrad, strided_slice, _slice_helper,
    _SLICE_TYPE_ERROR, strided_slice_grad)
from flowloom.ops.array.gather_ops import (  # noqa: E402,F401
    Where, GatherV2, gather, where, Select, boolean_mask, GatherNd, gather_nd, ScatterNd,
    scatter_nd, SelectV2, where_v2, batch_gather_nd)
from flowloom.ops.array.manip_ops import (  # noqa: E402,F401
    Pad, PadV2, MirrorPad, MirrorPadGrad, pad, OneHot, one_hot, Split, SplitV, split, ReverseV2,
    reverse, reverse_v2, sequence_mask, tile)
