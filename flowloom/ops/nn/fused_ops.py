"""Fused kernels that the `remapping` rewrite puts in a plan (runtime/rewrites/remapping.py):
`_FusedMatMul` and `_FusedConv2D`, with TF's names, inputs and attrs.

A fused op computes MatMul or Conv2D, then adds the bias and applies the activation named by
`fused_ops` (`["BiasAdd"]`, `["BiasAdd", "Relu"]`, `"Relu6"`, `"Elu"`) in place, in the
product's own buffer, row block by row block: one pass over memory instead of three, and no
intermediate arrays. The values are those of the separate ops: the same NumPy operations in
the same order, written into the product instead of new arrays.
"""

import numpy as np

from flowloom.framework import errors
from flowloom.framework.op_def import defop, get
from flowloom.ops.nn import kernel_threads

_ACTIVATIONS = ("Relu", "Relu6", "Elu")


def _names(fused_ops):
    return [f.decode() if isinstance(f, bytes) else f for f in fused_ops]


def _bias_activation(xp, out, args, fused_ops):
    """`out + bias`, then the activation, in `out` when it is a host buffer of its own."""
    ops = _names(fused_ops)
    if not ops or ops[0] != "BiasAdd" or len(args) != 1 or \
            (len(ops) > 1 and ops[1] not in _ACTIVATIONS) or len(ops) > 2:
        raise errors.UnimplementedError(
            None, None, f"fused ops {ops} are not implemented (BiasAdd, then optionally one "
            f"of {', '.join(_ACTIVATIONS)})")
    bias = args[0]
    act = ops[1] if len(ops) > 1 else None
    if xp is not np or not isinstance(out, np.ndarray) or not out.ndim or \
            not out.flags.writeable or out.dtype != np.result_type(out, bias):
        out = out + bias
        if act == "Relu":
            return xp.maximum(out, 0).astype(out.dtype, copy=False)
        if act == "Relu6":
            return xp.clip(out, 0, 6)
        if act == "Elu":
            return xp.where(out < 0, xp.expm1(xp.minimum(out, 0)), out)
        return out

    def rows(s):
        block = out[s]
        np.add(block, bias, out=block)
        if act == "Relu":
            np.maximum(block, 0, out=block)
        elif act == "Relu6":
            np.clip(block, 0, 6, out=block)
        elif act == "Elu":
            np.copyto(block, np.expm1(np.minimum(block, 0)), where=block < 0)

    kernel_threads.over_batch(rows, out.shape[0], out.nbytes)
    return out


def _own(out, inputs):
    # The product is written in place only when it shares no memory with an input.
    if isinstance(out, np.ndarray) and any(
            isinstance(x, np.ndarray) and np.may_share_memory(out, x) for x in inputs):
        return out.copy()
    return out


_FusedMatMul = defop("_FusedMatMul", inputs=["a: T", "b: T", "args: num_args * T"],
                     outputs=["product: T"],
                     attrs={"transpose_a": False, "transpose_b": False, "fused_ops": [],
                            "epsilon": 0.0001, "leakyrelu_alpha": 0.2})


@_FusedMatMul.shape
def _(op):
    return get("MatMul").shape_fn(op)


@_FusedMatMul.kernel
def _fused_matmul(xp, a, b, *args, transpose_a, transpose_b, fused_ops):
    out = get("MatMul").kernel_fn(xp, a, b, transpose_a=transpose_a, transpose_b=transpose_b)
    return _bias_activation(xp, _own(out, (a, b)), args, fused_ops)


def _bind_fused_matmul(xp, op):
    # On the host, BiasAdd[, Relu] after a product: a product NumPy just made is a buffer of
    # its own, and one under the pool's threshold is added to in one piece, so the checks
    # and the row-block call of `_bias_activation` are skipped for it (the same operations).
    fused_ops = op._attrs["fused_ops"]
    names = _names(fused_ops)
    if xp is not np or names not in (["BiasAdd"], ["BiasAdd", "Relu"]) or len(op._inputs) != 3:
        return None
    relu = len(names) == 2
    product = get("MatMul").kernel_fn.bind(np, op)  # (its attrs: transpose_a/b)
    small = kernel_threads.PARALLEL_MIN_BYTES

    def fused_matmul(a, b, *args):
        out = product(a, b)
        if len(args) == 1 and type(out) is np.ndarray and out.base is None and out.ndim and \
                out.nbytes < small and type(args[0]) is np.ndarray and \
                args[0].dtype == out.dtype and out.flags.writeable:
            np.add(out, args[0], out=out)
            if relu:
                np.maximum(out, 0, out=out)
            return out
        return _bias_activation(np, _own(out, (a, b)), args, fused_ops)
    return fused_matmul


_fused_matmul.bind = _bind_fused_matmul


_FusedConv2D = defop("_FusedConv2D", inputs=["input: T", "filter: T", "args: num_args * T"],
                     outputs=["output: T"],
                     attrs={"strides": None, "padding": None, "use_cudnn_on_gpu": True,
                            "explicit_paddings": [], "data_format": "NHWC",
                            "dilations": [1, 1, 1, 1], "fused_ops": [], "epsilon": 0.0001,
                            "leakyrelu_alpha": 0.2})


@_FusedConv2D.shape
def _(op):
    return get("Conv2D").shape_fn(op)


@_FusedConv2D.kernel
def _(xp, x, w, *args, strides, padding, data_format, dilations, explicit_paddings,
      fused_ops):
    if data_format != "NHWC":
        raise errors.UnimplementedError(None, None, "_FusedConv2D runs NHWC only")
    out = get("Conv2D").kernel_fn(xp, x, w, strides=strides, padding=padding,
                                  data_format=data_format, dilations=dilations,
                                  explicit_paddings=explicit_paddings)
    return _bias_activation(xp, _own(out, (x, w)), args, fused_ops)


# MaxPoolGrad + ReluGrad (the backward of Relu -> MaxPool): the `remapping` rewrite fuses
# them when ReluGrad reads the pooled input as its features (runtime/rewrite_fuse_grad.py).
# One pass computes each image block's routed gradient and its mask, and, through the
# `memory_optimization` rewrite, writes the result into the dead ReLU output itself.
_FusedMaxPoolGrad = defop("_FusedMaxPoolGrad",
                          inputs=["orig_input: T", "orig_output: T", "grad: T"],
                          outputs=["output: T"],
                          attrs={"ksize": None, "strides": None, "padding": None,
                                 "data_format": "NHWC", "explicit_paddings": [],
                                 "fused_ops": [], "T": None})
_FusedMaxPoolGrad.shape(lambda op: op._inputs[0]._shape)


def _check_pool_grad_fusion(fused_ops):
    if _names(fused_ops) != ["ReluGrad"]:
        raise errors.UnimplementedError(
            None, None, f"_FusedMaxPoolGrad fused ops {_names(fused_ops)} are not implemented "
            "(ReluGrad only)")


def _pool_grad_relu(xp, x, y, dy, ksize, strides, padding, data_format, fused_ops, out):
    from flowloom.ops.nn import nn_kernels, nn_ops

    _check_pool_grad_fusion(fused_ops)
    if xp is not np or data_format not in ("NHWC", b"NHWC") or x.dtype != dy.dtype:
        dx = get("MaxPoolGrad").kernel_fn(xp, x, y, dy, ksize=ksize, strides=strides,
                                          padding=padding, data_format=data_format)
        return get("ReluGrad").kernel_fn(xp, dx, x)
    ks, st = nn_ops._pool_args(ksize, strides, padding, "NHWC")
    return nn_kernels.max_pool_grad(x, y, dy, ks, st, padding, relu=True, out=out)


@_FusedMaxPoolGrad.kernel
def _fused_max_pool_grad(xp, x, y, dy, *, ksize, strides, padding, data_format, fused_ops):
    return _pool_grad_relu(xp, x, y, dy, ksize, strides, padding, data_format, fused_ops,
                           None)


def _fused_max_pool_grad_into(xp, x, y, dy, *, ksize, strides, padding, data_format,
                              fused_ops):
    """The fused gradient written into `x`, the ReLU output, when it dies here."""
    own = xp is np and isinstance(x, np.ndarray) and x.flags.writeable and \
        x.flags.c_contiguous and x.dtype == dy.dtype
    return _pool_grad_relu(xp, x, y, dy, ksize, strides, padding, data_format, fused_ops,
                           x if own else None)


_fused_max_pool_grad.into = (0, _fused_max_pool_grad_into)
