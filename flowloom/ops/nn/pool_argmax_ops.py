"""MaxPoolWithArgmax (NHWC): the pooled values and the flat index of each maximum, and the
gradient that routes through those indices (MaxPoolGradWithArgmax)."""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.ops.nn.conv3d_ops import _out_and_pads, _pad, _windows
from flowloom.ops.nn.nn_ops import _pool_shape

_ATTRS = {"ksize": None, "strides": None, "padding": None, "Targmax": dtypes.int64,
          "include_batch_in_index": False}

MaxPoolWithArgmax = defop("MaxPoolWithArgmax", inputs=["input: T"],
                          outputs=["output: T", "argmax: Targmax"], attrs=dict(_ATTRS))


@MaxPoolWithArgmax.shape
def _(op):
    op._attrs.setdefault("data_format", "NHWC")
    s = _pool_shape(op)
    return [s, s]


@MaxPoolWithArgmax.kernel
def _(xp, x, *, ksize, strides, padding, Targmax, include_batch_in_index):
    n, h, w, c = x.shape
    k, s = list(ksize[1:3]), list(strides[1:3])
    outs, pads = _out_and_pads([h, w], k, s, [1, 1], padding)
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    win = _windows(np, _pad(x, pads, low), k, s, [1, 1], outs)  # (n, oh, ow, kh, kw, c)
    flat = win.reshape(n, outs[0], outs[1], k[0] * k[1], c)
    arg = flat.argmax(axis=3)  # the first maximum in window order
    values = np.take_along_axis(flat, arg[:, :, :, None, :], axis=3)[:, :, :, 0, :]
    ky, kx = np.unravel_index(arg, k)
    y = np.arange(outs[0])[None, :, None, None] * s[0] + ky - pads[0][0]
    xx = np.arange(outs[1])[None, None, :, None] * s[1] + kx - pads[1][0]
    index = (y * w + xx) * c + np.arange(c)[None, None, None, :]
    if include_batch_in_index:
        index = index + np.arange(n)[:, None, None, None] * (h * w * c)
    return values.astype(x.dtype, copy=False), index.astype(Targmax.as_numpy_dtype)


MaxPoolGradWithArgmax = defop(
    "MaxPoolGradWithArgmax", inputs=["input: T", "grad: T", "argmax: Targmax"],
    outputs=["output: T"], attrs=dict(_ATTRS))
MaxPoolGradWithArgmax.shape(lambda op: op._inputs[0]._shape)


@MaxPoolGradWithArgmax.kernel
def _(xp, x, dy, argmax, *, ksize, strides, padding, Targmax, include_batch_in_index):
    n = x.shape[0]
    per = x.size // max(n, 1)
    idx = argmax.reshape(n, -1).astype(np.int64)
    if not include_batch_in_index:
        idx = idx + np.arange(n)[:, None] * per
    out = np.zeros(x.size, dy.dtype)
    np.add.at(out, idx.reshape(-1), dy.reshape(-1))
    return out.reshape(x.shape)


@MaxPoolWithArgmax.gradient
def _(op, grad, _argmax_grad):
    attrs = {k: op._attrs[k] for k in _ATTRS}
    return [apply_op("MaxPoolGradWithArgmax", (op._inputs[0], grad, op._outputs[1]),
                     **attrs).outputs[0]]


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",  # noqa: A002
                         Targmax=None, name=None, output_dtype=None,
                         include_batch_in_index=False):
    """Max pooling (NHWC) and the flat index of each maximum: ((b * height + y) * width + x)
    * channels + c, without b unless include_batch_in_index."""
    if data_format != "NHWC":
        raise ValueError("Data formats other than 'NHWC' are not yet supported")
    targmax = dtypes.as_dtype(Targmax or output_dtype or dtypes.int64)
    four = (lambda v: [1, v, v, 1] if isinstance(v, int) else
            ([1] + list(v) + [1] if len(v) == 2 else list(v)))
    return tuple(apply_op("MaxPoolWithArgmax", (input,), name=name, ksize=four(ksize),
                          strides=four(strides), padding=padding, Targmax=targmax,
                          include_batch_in_index=include_batch_in_index).outputs)
