"""Max-pooling gradients of every order, as TF registers them: MaxPoolV2's gradient
MaxPoolGradV2 (ksize/strides as tensors), and the second-order ops MaxPoolGradGrad(V2), whose
gradient is MaxPoolGrad(V2) again.

MaxPoolGradGrad(orig_input, orig_output, grad) is shaped like orig_output: each output
window takes `grad` (input-shaped) at the window's first maximum, the position MaxPoolGrad
sends that window's gradient to.
"""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.ops.nn import nn_kernels
from flowloom.ops.nn.nn_ops import MaxPoolGrad, _pool_args
from flowloom.ops.nn.nn_v2 import MaxPoolV2


def max_pool_grad_grad(x, y, g, ksize, strides, padding):
    """NHWC: `g` at each window's first maximum of `x` (the window's output is `y`)."""
    ph, pw, oh, ow = nn_kernels._pool_geometry(x.shape, ksize, strides, padding)
    xs = nn_kernels._pad(x, ph, pw, nn_kernels._lowest(x.dtype))
    gs = nn_kernels._pad(g, ph, pw)
    out = np.zeros(y.shape, g.dtype)
    claimed = np.zeros(y.shape, bool)
    nan_out = np.isnan(y) if y.dtype.kind == "f" else np.zeros(y.shape, bool)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            xw = nn_kernels._window(xs, i, j, oh, ow, strides, (1, 1))
            take = ((xw == y) | (nan_out & np.isnan(xw))) & ~claimed
            out = np.where(take, nn_kernels._window(gs, i, j, oh, ow, strides, (1, 1)), out)
            claimed |= take
    return out


def _ints(t):
    return [int(v) for v in np.asarray(t).reshape(-1)]


_ATTRS = {"ksize": None, "strides": None, "padding": None, "data_format": "NHWC",
          "T": dtypes.float32}
_V2_ATTRS = {"padding": None, "data_format": "NHWC", "T": dtypes.float32}
_IN = ["orig_input: T", "orig_output: T", "grad: T"]
_SIZES = ["ksize: int32", "strides: int32"]

MaxPoolGradV2 = defop("MaxPoolGradV2", inputs=_IN + _SIZES, outputs=["output: T"],
                      attrs=_V2_ATTRS)
MaxPoolGradV2.shape(lambda op: op._inputs[0]._shape)
MaxPoolGradGrad = defop("MaxPoolGradGrad", inputs=_IN, outputs=["output: T"], attrs=_ATTRS)
MaxPoolGradGrad.shape(lambda op: op._inputs[1]._shape)
MaxPoolGradGradV2 = defop("MaxPoolGradGradV2", inputs=_IN + _SIZES, outputs=["output: T"],
                          attrs=_V2_ATTRS)
MaxPoolGradGradV2.shape(lambda op: op._inputs[1]._shape)


@MaxPoolGradV2.kernel
def _(xp, x, y, dy, ksize, strides, *, padding, data_format):
    return MaxPoolGrad.kernel_fn(xp, x, y, dy, ksize=_ints(ksize), strides=_ints(strides),
                                 padding=padding, data_format=data_format)


@MaxPoolGradGrad.kernel
def _(xp, x, y, g, *, ksize, strides, padding, data_format):
    ks, st = _pool_args(ksize, strides, padding, data_format)
    t = nn_kernels.to_nhwc
    out = max_pool_grad_grad(t(x, data_format), t(y, data_format), t(g, data_format), ks, st,
                             padding)
    return nn_kernels.from_nhwc(out, data_format)


@MaxPoolGradGradV2.kernel
def _(xp, x, y, g, ksize, strides, *, padding, data_format):
    return MaxPoolGradGrad.kernel_fn(xp, x, y, g, ksize=_ints(ksize), strides=_ints(strides),
                                     padding=padding, data_format=data_format)


def _zeros(op):
    from flowloom.ops.array import array_ops

    return [array_ops.zeros_like(op._inputs[0]), array_ops.zeros_like(op._inputs[1])]


def _attrs(op, sized):
    keys = ("padding", "data_format") if not sized else (
        "ksize", "strides", "padding", "data_format")
    return {k: op._attrs[k] for k in keys}


@MaxPoolV2.gradient
def _(op, grad):
    return [apply_op("MaxPoolGradV2", (op._inputs[0], op._outputs[0], grad, op._inputs[1],
                                       op._inputs[2]), **_attrs(op, False)).outputs[0],
            None, None]


@MaxPoolGrad.gradient
def _(op, grad):
    return _zeros(op) + [apply_op("MaxPoolGradGrad", (op._inputs[0], op._inputs[1], grad),
                                  **_attrs(op, True)).outputs[0]]


@MaxPoolGradV2.gradient
def _(op, grad):
    return _zeros(op) + [apply_op("MaxPoolGradGradV2", (op._inputs[0], op._inputs[1], grad,
                                                        op._inputs[3], op._inputs[4]),
                                  **_attrs(op, False)).outputs[0], None, None]


@MaxPoolGradGrad.gradient
def _(op, grad):
    return _zeros(op) + [apply_op("MaxPoolGrad", (op._inputs[0], op._inputs[1], grad),
                                  **_attrs(op, True)).outputs[0]]


@MaxPoolGradGradV2.gradient
def _(op, grad):
    return _zeros(op) + [apply_op("MaxPoolGradV2", (op._inputs[0], op._inputs[1], grad,
                                                    op._inputs[3], op._inputs[4]),
                                  **_attrs(op, False)).outputs[0], None, None]

