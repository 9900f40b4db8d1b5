"""3-D convolution and pooling (NDHWC; NCDHW by transposition): Conv3D with its input and
filter gradients (Conv3DBackpropInputV2/FilterV2), MaxPool3D/AvgPool3D and their gradients.

The kernels are N-D: strided window views of the padded input, contracted with the filter."""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.ops.layout import c_order


# -- N-D helpers (spatial dims between batch and channels) ------------------------------------
def _out_and_pads(in_sizes, k_sizes, strides, dilations, padding):
    outs, pads = [], []
    for n, k, s, d in zip(in_sizes, k_sizes, strides, dilations):
        ek = (k - 1) * d + 1
        if padding == "VALID":
            o = (n - ek) // s + 1 if n >= ek else 0
            pads.append((0, 0))
        else:
            o = -(-n // s)
            total = max((o - 1) * s + ek - n, 0)
            pads.append((total // 2, total - total // 2))
        outs.append(o)
    return outs, pads


def _windows(xp_, x, k_sizes, strides, dilations, outs):
    """A view (N, *outs, *k_sizes, C) of padded x."""
    n_sp = len(k_sizes)
    st = x.strides
    shape = (x.shape[0],) + tuple(outs) + tuple(k_sizes) + (x.shape[-1],)
    strides_ = ((st[0],) + tuple(st[1 + i] * strides[i] for i in range(n_sp))
                + tuple(st[1 + i] * dilations[i] for i in range(n_sp)) + (st[-1],))
    return np.lib.stride_tricks.as_strided(x, shape, strides_, writeable=False)


def _pad(x, pads, value=0):
    if not any(p for pair in pads for p in pair):
        return x
    return np.pad(x, [(0, 0)] + list(pads) + [(0, 0)], constant_values=value)


def _spatial(attr, channels_first):
    return list(attr[2:]) if channels_first else list(attr[1:-1])


def _to_last(x, channels_first):
    return np.moveaxis(x, 1, -1) if channels_first else x


def _from_last(x, channels_first):
    return c_order(np, np.moveaxis(x, -1, 1)) if channels_first else x


def conv_nd(x, w, strides, dilations, padding):
    """x (N, *sp, Cin), w (*k, Cin, Cout) -> (N, *out, Cout)."""
    k = w.shape[:-2]
    outs, pads = _out_and_pads(x.shape[1:-1], k, strides, dilations, padding)
    win = _windows(np, _pad(x, pads), k, strides, dilations, outs)
    n_sp = len(k)
    axes = list(range(1 + n_sp, 2 + 2 * n_sp))
    return np.tensordot(win, w, axes=(axes, list(range(n_sp + 1)))).astype(x.dtype, copy=False)


def conv_nd_backprop_input(in_shape, w, dy, strides, dilations, padding):
    k = w.shape[:-2]
    outs, pads = _out_and_pads(in_shape[1:-1], k, strides, dilations, padding)
    padded = [n + a + b for n, (a, b) in zip(in_shape[1:-1], pads)]
    dx = np.zeros((in_shape[0],) + tuple(padded) + (in_shape[-1],), dy.dtype)
    for offset in np.ndindex(*k):
        index = tuple(slice(o * d, o * d + s * (m - 1) + 1, s)
                      for o, d, s, m in zip(offset, dilations, strides, outs))
        dx[(slice(None),) + index] += np.tensordot(dy, w[offset], axes=([-1], [-1]))
    crop = tuple(slice(a, a + n) for (a, _), n in zip(pads, in_shape[1:-1]))
    return c_order(np, dx[(slice(None),) + crop])


def conv_nd_backprop_filter(x, w_shape, dy, strides, dilations, padding):
    k = tuple(w_shape[:-2])
    outs, pads = _out_and_pads(x.shape[1:-1], k, strides, dilations, padding)
    xp_ = _pad(x, pads)
    dw = np.zeros(tuple(w_shape), dy.dtype)
    n_sp = len(k)
    for offset in np.ndindex(*k):
        index = tuple(slice(o * d, o * d + s * (m - 1) + 1, s)
                      for o, d, s, m in zip(offset, dilations, strides, outs))
        part = xp_[(slice(None),) + index]
        dw[offset] = np.tensordot(part, dy, axes=(list(range(n_sp + 1)),) * 2)
    return dw


# -- Conv3D -------------------------------------------------------------------------------------
_CONV3D_ATTRS = {"strides": None, "padding": None, "data_format": "NDHWC",
                 "dilations": [1, 1, 1, 1, 1]}


def _first(fmt):
    return fmt == "NCDHW"


def _check(strides, dilations, padding, fmt):
    if padding not in ("SAME", "VALID"):
        raise errors.InvalidArgumentError(None, None, f"Unknown padding type: {padding}")
    if strides[0] != 1 or strides[1 if _first(fmt) else -1] != 1:
        raise errors.InvalidArgumentError(
            None, None, "Current implementation does not yet support strides in the batch "
            "and depth dimensions.")


Conv3D = defop("Conv3D", inputs=["input: T", "filter: T"], outputs=["output: T"],
               attrs=dict(_CONV3D_ATTRS))


@Conv3D.shape
def _(op):
    x, w = (t._shape for t in op._inputs)
    if x.ndims is None or w.ndims is None:
        return unknown_shape(5)
    if x.ndims != 5 or w.ndims != 5:
        raise ValueError(f"Shape must be rank 5 but is rank {x.ndims if x.ndims != 5 else w.ndims}"
                         f" for '{op._name}' (op: 'Conv3D')")
    first = _first(op._attrs["data_format"])
    xd = x.as_list()
    cin = xd[1] if first else xd[-1]
    wd = w.as_list()
    if cin is not None and wd[3] is not None and cin != wd[3]:
        raise ValueError(f"Dimensions must be equal, but are {cin} and {wd[3]} for "
                         f"'{op._name}' (op: 'Conv3D')")
    sp = _spatial(xd, first)
    strides, dil = _spatial(op._attrs["strides"], first), _spatial(op._attrs["dilations"], first)
    out = []
    for n, k, s, d in zip(sp, wd[:3], strides, dil):
        if n is None or k is None:
            out.append(None)
        else:
            out.append(_out_and_pads([n], [k], [s], [d], op._attrs["padding"])[0][0])
    return TensorShape([xd[0], wd[4]] + out if first else [xd[0]] + out + [wd[4]])


@Conv3D.kernel
def _(xp, x, w, *, strides, padding, data_format, dilations):
    _check(strides, dilations, padding, data_format)
    first = _first(data_format)
    x = _to_last(x, first)
    if x.shape[-1] != w.shape[3]:
        raise errors.InvalidArgumentError(
            None, None, f"input depth must be evenly divisible by filter depth: "
            f"{x.shape[-1]} vs {w.shape[3]}")
    out = conv_nd(x, w, _spatial(strides, first), _spatial(dilations, first), padding)
    return _from_last(out, first)


def _conv_attrs(op):
    return {k: op._attrs[k] for k in ("strides", "padding", "data_format", "dilations")}


@Conv3D.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops

    x, w = op._inputs
    attrs = _conv_attrs(op)
    return [apply_op("Conv3DBackpropInputV2", (array_ops.shape(x), w, grad), **attrs).outputs[0],
            apply_op("Conv3DBackpropFilterV2", (x, array_ops.shape(w), grad),
                     **attrs).outputs[0]]


Conv3DBackpropInputV2 = defop(
    "Conv3DBackpropInputV2", inputs=["input_sizes: Tshape", "filter: T", "out_backprop: T"],
    outputs=["output: T"], attrs=dict(_CONV3D_ATTRS, Tshape=dtypes.int32))


@Conv3DBackpropInputV2.shape
def _(op):
    from flowloom.framework.tensor_util import constant_value_as_shape

    return constant_value_as_shape(op._inputs[0]) if op._inputs[0]._shape.ndims == 1 \
        else unknown_shape(5)


@Conv3DBackpropInputV2.kernel
def _(xp, input_sizes, w, dy, *, strides, padding, data_format, dilations):
    _check(strides, dilations, padding, data_format)
    first = _first(data_format)
    sizes = [int(s) for s in input_sizes]
    in_shape = [sizes[0]] + sizes[2:] + [sizes[1]] if first else sizes
    dx = conv_nd_backprop_input(in_shape, w, _to_last(dy, first), _spatial(strides, first),
                                _spatial(dilations, first), padding)
    return _from_last(dx.astype(dy.dtype, copy=False), first)


@Conv3DBackpropInputV2.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops

    _, w, dy = op._inputs
    attrs = _conv_attrs(op)
    return [None,
            apply_op("Conv3DBackpropFilterV2", (grad, array_ops.shape(w), dy),
                     **attrs).outputs[0],
            apply_op("Conv3D", (grad, w), **attrs).outputs[0]]


Conv3DBackpropFilterV2 = defop(
    "Conv3DBackpropFilterV2", inputs=["input: T", "filter_sizes: int32", "out_backprop: T"],
    outputs=["output: T"], attrs=dict(_CONV3D_ATTRS))


@Conv3DBackpropFilterV2.shape
def _(op):
    from flowloom.framework.tensor_util import constant_value_as_shape

    return constant_value_as_shape(op._inputs[1])


@Conv3DBackpropFilterV2.kernel
def _(xp, x, filter_sizes, dy, *, strides, padding, data_format, dilations):
    _check(strides, dilations, padding, data_format)
    first = _first(data_format)
    dw = conv_nd_backprop_filter(_to_last(x, first), [int(s) for s in filter_sizes],
                                 _to_last(dy, first), _spatial(strides, first),
                                 _spatial(dilations, first), padding)
    return dw.astype(dy.dtype, copy=False)


@Conv3DBackpropFilterV2.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops

    x, _, dy = op._inputs
    attrs = _conv_attrs(op)
    return [apply_op("Conv3DBackpropInputV2", (array_ops.shape(x), grad, dy), **attrs).outputs[0],
            None, apply_op("Conv3D", (x, grad), **attrs).outputs[0]]


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC",  # noqa: A002
           dilations=(1, 1, 1, 1, 1), name=None, filters=None):
    """3-D convolution of [batch, depth, height, width, in] by [d, h, w, in, out].

    Args:
      strides, dilations: 5 ints (1 at batch and channels).
      padding: 'SAME' or 'VALID'.
    """
    filter = filters if filter is None else filter  # noqa: A001
    return apply_op("Conv3D", (input, filter), name=name, strides=list(strides),
                    padding=padding, data_format=data_format,
                    dilations=list(dilations)).outputs[0]


def conv3d_transpose(value, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NDHWC", name=None, input=None,  # noqa: A002
                     filters=None, dilations=None):
    """The transpose of conv3d (Conv3DBackpropInputV2): `filter` is [d, h, w, out, in]."""
    value = input if value is None else value
    filter = filters if filter is None else filter  # noqa: A001
    with name_scope(name, "conv3d_transpose", [value, filter, output_shape]) as scope:
        value = convert_to_tensor(value, name="value")
        filter = convert_to_tensor(filter, name="filter")  # noqa: A001
        axis = 1 if data_format == "NCDHW" else 4
        if value._shape.ndims == 5 and filter._shape.ndims == 5:
            have, want = value._shape.as_list()[axis], filter._shape.as_list()[4]
            if have is not None and want is not None and have != want:
                raise ValueError(f"input channels does not match filter's input channels, "
                                 f"{have} != {want}")
        shape = convert_to_tensor(output_shape, dtype=dtypes.int32, name="output_shape")
        return apply_op("Conv3DBackpropInputV2", (shape, filter, value), name=scope,
                        strides=list(strides), padding=padding, data_format=data_format,
                        dilations=list(dilations or [1, 1, 1, 1, 1])).outputs[0]


# -- 3-D pooling ------------------------------------------------------------------------------
_POOL3D_ATTRS = {"ksize": None, "strides": None, "padding": None, "data_format": "NDHWC"}


def _pool3d_shape(op):
    x = op._inputs[0]._shape
    if x.ndims is None:
        return unknown_shape(5)
    if x.ndims != 5:
        raise ValueError(f"Shape must be rank 5 but is rank {x.ndims} for '{op._name}' "
                         f"(op: '{op._type}')")
    first = _first(op._attrs["data_format"])
    xd = x.as_list()
    k, s = _spatial(op._attrs["ksize"], first), _spatial(op._attrs["strides"], first)
    out = [None if n is None else _out_and_pads([n], [kk], [ss], [1], op._attrs["padding"])[0][0]
           for n, kk, ss in zip(_spatial(xd, first), k, s)]
    return TensorShape([xd[0], xd[1]] + out if first else [xd[0]] + out + [xd[-1]])


def _pool_windows(x, ksize, strides, padding, first, fill):
    x = _to_last(x, first)
    k, s = _spatial(ksize, first), _spatial(strides, first)
    outs, pads = _out_and_pads(x.shape[1:-1], k, s, [1] * len(k), padding)
    return x, _windows(np, _pad(x, pads, fill), k, s, [1] * len(k), outs), k, s, outs, pads


_POOL3D_TYPES = {"T": (dtypes.float16, dtypes.bfloat16, dtypes.float32)}
MaxPool3D = defop("MaxPool3D", inputs=["input: T"], outputs=["output: T"],
                  attrs=dict(_POOL3D_ATTRS), allowed_types=_POOL3D_TYPES)
MaxPool3D.shape(_pool3d_shape)


@MaxPool3D.kernel
def _(xp, x, *, ksize, strides, padding, data_format):
    first = _first(data_format)
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    _, win, *_ = _pool_windows(x, ksize, strides, padding, first, low)
    return _from_last(win.max(axis=(-4, -3, -2)).astype(x.dtype, copy=False), first)


AvgPool3D = defop("AvgPool3D", inputs=["input: T"], outputs=["output: T"],
                  attrs=dict(_POOL3D_ATTRS), allowed_types=_POOL3D_TYPES)
AvgPool3D.shape(_pool3d_shape)


def _avg_counts(shape, k, s, outs, pads):
    ones = np.ones((1,) + tuple(shape[1:-1]) + (1,), np.float64)
    return _windows(np, _pad(ones, pads), k, s, [1] * len(k), outs).sum(axis=(-4, -3, -2))


@AvgPool3D.kernel
def _(xp, x, *, ksize, strides, padding, data_format):
    first = _first(data_format)
    xl, win, k, s, outs, pads = _pool_windows(x, ksize, strides, padding, first, 0)
    total = win.sum(axis=(-4, -3, -2), dtype=np.float64)
    return _from_last((total / _avg_counts(xl.shape, k, s, outs, pads)).astype(x.dtype), first)


MaxPool3DGrad = defop("MaxPool3DGrad", inputs=["orig_input: TInput", "orig_output: TInput",
                                               "grad: T"],
                      outputs=["output: T"],
                      attrs=dict(_POOL3D_ATTRS, T=dtypes.float32, TInput=dtypes.float32))
MaxPool3DGrad.shape(lambda op: op._inputs[0]._shape)


@MaxPool3DGrad.kernel
def _(xp, x, y, dy, *, ksize, strides, padding, data_format):
    first = _first(data_format)
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xl, win, k, s, outs, pads = _pool_windows(x, ksize, strides, padding, first, low)
    flat = win.reshape(win.shape[:4] + (-1, win.shape[-1]))
    arg = flat.argmax(axis=4)  # the first maximum of each window
    offs = np.unravel_index(arg, k)
    dyl = _to_last(dy, first)
    grid = np.meshgrid(*[np.arange(n) for n in (xl.shape[0], *outs, xl.shape[-1])],
                       indexing="ij")
    padded = [n + a + b for n, (a, b) in zip(xl.shape[1:-1], pads)]
    dx = np.zeros((xl.shape[0],) + tuple(padded) + (xl.shape[-1],), dy.dtype)
    coords = [grid[1 + i] * s[i] + offs[i] for i in range(3)]
    np.add.at(dx, (grid[0],) + tuple(coords) + (grid[-1],), dyl)
    crop = tuple(slice(a, a + n) for (a, _), n in zip(pads, xl.shape[1:-1]))
    return _from_last(c_order(np, dx[(slice(None),) + crop]), first)


AvgPool3DGrad = defop("AvgPool3DGrad", inputs=["orig_input_shape: int32", "grad: T"],
                      outputs=["output: T"], attrs=dict(_POOL3D_ATTRS))


@AvgPool3DGrad.shape
def _(op):
    from flowloom.framework.tensor_util import constant_value_as_shape

    return constant_value_as_shape(op._inputs[0])


@AvgPool3DGrad.kernel
def _(xp, orig_input_shape, dy, *, ksize, strides, padding, data_format):
    first = _first(data_format)
    sizes = [int(v) for v in orig_input_shape]
    shape = [sizes[0]] + sizes[2:] + [sizes[1]] if first else sizes
    k, s = _spatial(ksize, first), _spatial(strides, first)
    outs, pads = _out_and_pads(shape[1:-1], k, s, [1] * 3, padding)
    dyl = _to_last(dy, first) / _avg_counts(shape, k, s, outs, pads)
    padded = [n + a + b for n, (a, b) in zip(shape[1:-1], pads)]
    dx = np.zeros((shape[0],) + tuple(padded) + (shape[-1],), np.float64)
    for offset in np.ndindex(*k):
        index = tuple(slice(o, o + st * (m - 1) + 1, st) for o, st, m in zip(offset, s, outs))
        dx[(slice(None),) + index] += dyl
    crop = tuple(slice(a, a + n) for (a, _), n in zip(pads, shape[1:-1]))
    return _from_last(c_order(np, dx[(slice(None),) + crop]).astype(dy.dtype), first)


def _pool_attrs(op):
    return {k: op._attrs[k] for k in ("ksize", "strides", "padding", "data_format")}


@MaxPool3D.gradient
def _(op, grad):
    return [apply_op("MaxPool3DGrad", (op._inputs[0], op._outputs[0], grad),
                     TInput=op._inputs[0].dtype, **_pool_attrs(op)).outputs[0]]


@AvgPool3D.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops

    return [apply_op("AvgPool3DGrad", (array_ops.shape(op._inputs[0]), grad),
                     **_pool_attrs(op)).outputs[0]]


@AvgPool3DGrad.gradient
def _(op, grad):
    return [None, apply_op("AvgPool3D", (grad,), **_pool_attrs(op)).outputs[0]]


def _pool3d(op_type):
    def pool(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
        def full(v):
            v = [v] * 3 if isinstance(v, int) else list(v)
            if len(v) == 5:
                return v
            return [1] + v + [1] if data_format == "NDHWC" else [1, 1] + v
        return apply_op(op_type, (input,), name=name, ksize=full(ksize), strides=full(strides),
                        padding=padding, data_format=data_format).outputs[0]
    pool.__name__ = op_type.lower()
    pool.__doc__ = f"{op_type} over [batch, depth, height, width, channels] windows."
    return pool


max_pool3d = _pool3d("MaxPool3D")
avg_pool3d = _pool3d("AvgPool3D")
