"""Batch normalization's second derivatives and its pre-fused op, as TF 1.15 has them:

- `batch_norm_grad` (TF's nn_grad._BatchNormGrad): the gradients of fused batch norm written
  with ordinary ops, and FusedBatchNormGradV3's gradient, which differentiates it.
- BatchNormWithGlobalNormalization and its gradient op (removed at GraphDef version 9, as in
  TF: only graphs that say they are older can build them) and
  tf.nn.batch_norm_with_global_normalization (built from ordinary ops).
"""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops
from flowloom.ops.nn.batch_norm_ops import FusedBatchNormGradV3


def _format(data_format):
    return data_format.decode() if isinstance(data_format, bytes) else data_format


def batch_norm_grad(grad_y, x, scale, pop_mean, pop_var, epsilon, data_format,
                    is_training=True):
    """(grad_x, grad_scale, grad_offset) of fused batch norm (NHWC or NCHW), from ordinary
    ops: batch statistics when `is_training`, else `pop_mean` / `pop_var`."""
    x_dtype = x.dtype.base_dtype
    if x_dtype == dtypes.float16:
        x, grad_y = math_ops.cast(x, dtypes.float32), math_ops.cast(grad_y, dtypes.float32)
    nchw = _format(data_format) == "NCHW"
    reduce_axis = [0, 2, 3] if nchw else [0, 1, 2]
    if is_training:
        keepdims = nchw
        if nchw:
            scale = array_ops.reshape(scale, [1, array_ops.size(scale), 1, 1])
        mean_grad_y = math_ops.reduce_mean(grad_y, reduce_axis, keepdims=keepdims)
        mean_x = math_ops.reduce_mean(x, reduce_axis, keepdims=keepdims)
        var_x = math_ops.reduce_mean(
            math_ops.squared_difference(x, array_ops.stop_gradient(mean_x)), reduce_axis,
            keepdims=keepdims)
        grad_y_offset = grad_y - mean_grad_y
        x_offset = x - mean_x
        mean = math_ops.reduce_mean(grad_y * x_offset, axis=reduce_axis, keepdims=keepdims)
        grad_x = scale * math_ops.rsqrt(var_x + epsilon) * (
            grad_y_offset - math_ops.reciprocal(var_x + epsilon) * mean * x_offset)
        grad_scale = math_ops.rsqrt(var_x + epsilon) * math_ops.reduce_sum(
            grad_y * x_offset, axis=reduce_axis, keepdims=keepdims)
        if nchw:
            grad_scale = array_ops.squeeze(grad_scale)
        grad_offset = math_ops.reduce_sum(grad_y, axis=reduce_axis)
        return math_ops.cast(grad_x, x_dtype), grad_scale, grad_offset
    if nchw:
        shape = [1, array_ops.size(pop_mean), 1, 1]
        pop_mean = array_ops.reshape(pop_mean, shape)
        pop_var = array_ops.reshape(pop_var, shape)
        scale = array_ops.reshape(scale, shape)
    grad_offset = math_ops.reduce_sum(grad_y, axis=reduce_axis)
    var_rsqrt = math_ops.rsqrt(pop_var + epsilon)
    grad_scale = math_ops.reduce_sum(grad_y * (x - pop_mean) * var_rsqrt, axis=reduce_axis)
    grad_x = grad_y * scale * var_rsqrt
    return math_ops.cast(grad_x, x_dtype), grad_scale, grad_offset


_BatchNormGrad = batch_norm_grad  # TF's name (nn_grad._BatchNormGrad)


@FusedBatchNormGradV3.gradient
def _(op, *grads):
    from flowloom.framework.gradients_impl import gradients

    a = op._attrs
    grad_y, x, scale, pop_mean, pop_var = op._inputs[:5]
    outs = batch_norm_grad(grad_y, x, scale, pop_mean, pop_var, a["epsilon"],
                           a["data_format"], a["is_training"])
    grad_grad_y, grad_x, grad_scale = gradients(list(outs), [grad_y, x, scale],
                                                grad_ys=list(grads[:3]))
    return [grad_grad_y, grad_x, grad_scale, None, None, None]


# -- BatchNormWithGlobalNormalization (GraphDef versions < 9) -------------------------------
_GLOBAL_ATTRS = {"variance_epsilon": None, "scale_after_normalization": None}
BatchNormWithGlobalNormalization = defop(
    "BatchNormWithGlobalNormalization",
    inputs=["t: T", "m: T", "v: T", "beta: T", "gamma: T"], outputs=["result: T"],
    attrs=_GLOBAL_ATTRS).deprecated(9, "Use tf.nn.batch_normalization()")


@BatchNormWithGlobalNormalization.shape
def _(op):
    t = op._inputs[0]._shape
    if t.ndims is not None and t.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {t.ndims}")
    for vector in op._inputs[1:]:
        if vector._shape.ndims is not None and vector._shape.ndims != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {vector._shape.ndims}")
    return t

BatchNormWithGlobalNormalizationGrad = defop(
    "BatchNormWithGlobalNormalizationGrad",
    inputs=["t: T", "m: T", "v: T", "gamma: T", "backprop: T"],
    outputs=["dx: T", "dm: T", "dv: T", "db: T", "dg: T"],
    attrs=_GLOBAL_ATTRS).deprecated(9, "Use tf.nn.batch_normalization()")


@BatchNormWithGlobalNormalizationGrad.shape
def _(op):
    c = TensorShape([op._inputs[0]._shape.as_list()[-1]
                     if op._inputs[0]._shape.ndims else None])
    return [op._inputs[0]._shape, c, c, c, c]


@BatchNormWithGlobalNormalization.kernel
def _(xp, t, m, v, beta, gamma, *, variance_epsilon, scale_after_normalization):
    inv = 1 / np.sqrt(v + variance_epsilon)
    if scale_after_normalization:
        inv = inv * gamma
    return ((t - m) * inv + beta).astype(t.dtype)


@BatchNormWithGlobalNormalizationGrad.kernel
def _(xp, t, m, v, gamma, backprop, *, variance_epsilon, scale_after_normalization):
    axes = tuple(range(t.ndim - 1))
    inv = 1 / np.sqrt(v + variance_epsilon)
    scale = inv * gamma if scale_after_normalization else inv
    centered = t - m
    db = backprop.sum(axis=axes)
    dg = (backprop * centered * inv).sum(axis=axes) if scale_after_normalization else \
        np.zeros_like(gamma)
    dm = -db * scale
    dv = (backprop * centered).sum(axis=axes) * -0.5 * inv ** 3 * (
        gamma if scale_after_normalization else 1)
    out = (backprop * scale, dm, dv, db, dg)
    return tuple(np.asarray(a, dtype=t.dtype) for a in out)


@BatchNormWithGlobalNormalization.gradient
def _(op, grad):
    t, m, v, _, gamma = op._inputs
    return apply_op("BatchNormWithGlobalNormalizationGrad", (t, m, v, gamma, grad),
                    variance_epsilon=op._attrs["variance_epsilon"],
                    scale_after_normalization=op._attrs["scale_after_normalization"]).outputs


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None,
                                         variance_epsilon=None,
                                         scale_after_normalization=None, name=None,
                                         input=None, mean=None, variance=None):  # noqa: A002
    """Batch normalization with given statistics (TF's legacy interface): `(t - m) /
    sqrt(v + variance_epsilon) * gamma + beta`, gamma used only when
    `scale_after_normalization`; built as tf.nn.batch_normalization."""
    from flowloom.ops.nn.nn_impl import batch_normalization

    t = input if t is None else t
    m = mean if m is None else m
    v = variance if v is None else v
    return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None,
                               variance_epsilon, name)
