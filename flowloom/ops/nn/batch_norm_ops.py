"""FusedBatchNormV3 and its gradient op, FusedBatchNormGradV3 (NHWC or NCHW)."""

import numpy as np

from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape, unknown_shape

_ATTRS = {"epsilon": 0.0001, "exponential_avg_factor": 1.0, "data_format": "NHWC",
          "is_training": True}

FusedBatchNormV3 = defop(
    "FusedBatchNormV3",
    inputs=["x: T", "scale: U", "offset: U", "mean: U", "variance: U"],
    outputs=["y: T", "batch_mean: U", "batch_variance: U", "reserve_space_1: U",
             "reserve_space_2: U", "reserve_space_3: U"], attrs=_ATTRS)


def _channels(shape, data_format):
    if shape.ndims is None:
        return None
    return shape.as_list()[1 if data_format.startswith("NC") else -1]


@FusedBatchNormV3.shape
def _(op):
    x = op._inputs[0]._shape
    if x.ndims is not None and x.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {x.ndims}")
    c = _channels(x, op._attrs["data_format"])
    for t in op._inputs[1:3]:
        s = t._shape
        if s.ndims is not None and s.ndims != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {s.ndims}")
        if c is not None and s.ndims == 1 and s.as_list()[0] not in (None, c):
            raise ValueError(f"Dimensions must be equal, but are {c} and {s.as_list()[0]}")
    vec = TensorShape([c])
    return [x if x.ndims is not None else unknown_shape(4)] + [vec] * 5


def _axes(x, data_format):
    """Reduction axes and a reshape for per-channel vectors."""
    if data_format.startswith("NC"):
        return (0, 2, 3), (1, -1, 1, 1)
    return (0, 1, 2), (1, 1, 1, -1)


@FusedBatchNormV3.kernel
def _(xp, x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor, data_format,
      is_training):
    if x.ndim != 4:
        raise errors.InvalidArgumentError(None, None,
                                          f"input must be 4-dimensional{list(x.shape)}")
    axes, vshape = _axes(x, data_format)
    x32 = x.astype(np.float32) if x.dtype != np.float64 else x
    c = x.shape[1 if data_format.startswith("NC") else 3]
    if scale.shape != (c,) or offset.shape != (c,):
        raise errors.InvalidArgumentError(
            None, None, f"scale must have the same number of elements as the channels of x, "
            f"got {scale.shape[0] if scale.ndim else 0} and {c}")
    if is_training:
        n = x.size // c
        batch_mean = x32.mean(axis=axes)
        batch_var = x32.var(axis=axes)  # biased: normalises y
        unbiased = batch_var * (n / max(n - 1, 1))
        f = exponential_avg_factor
        if f != 1.0 and mean.size:
            run_mean = (1 - f) * mean + f * batch_mean
            run_var = (1 - f) * variance + f * unbiased
        else:
            run_mean, run_var = batch_mean, unbiased
        use_mean, use_var = batch_mean, batch_var
    else:
        if mean.shape != (c,) or variance.shape != (c,):
            raise errors.InvalidArgumentError(
                None, None, "When is_training=false, mean and variance must have the same "
                f"number of elements as the channels of x, got {mean.size} and {c}")
        use_mean, use_var = mean, variance
        run_mean, run_var = mean, variance
    inv = 1 / np.sqrt(use_var + epsilon)
    y = (x32 - use_mean.reshape(vshape)) * (inv * scale).reshape(vshape) + offset.reshape(vshape)
    u = scale.dtype
    return (y.astype(x.dtype), run_mean.astype(u), run_var.astype(u), use_mean.astype(u),
            use_var.astype(u), np.zeros(0, u))


FusedBatchNormGradV3 = defop(
    "FusedBatchNormGradV3",
    inputs=["y_backprop: T", "x: T", "scale: U", "reserve_space_1: U",
            "reserve_space_2: U", "reserve_space_3: U"],
    outputs=["x_backprop: T", "scale_backprop: U", "offset_backprop: U", "reserve_space_4: U",
             "reserve_space_5: U"],
    attrs={"epsilon": 0.0001, "data_format": "NHWC", "is_training": True})


@FusedBatchNormGradV3.shape
def _(op):
    x = op._inputs[1]._shape
    c = _channels(x, op._attrs["data_format"])
    return [x, TensorShape([c]), TensorShape([c]), TensorShape([0]), TensorShape([0])]


@FusedBatchNormGradV3.kernel
def _(xp, dy, x, scale, mean, var, _reserve, *, epsilon, data_format, is_training):
    axes, vshape = _axes(x, data_format)
    dy32, x32 = dy.astype(np.float32), x.astype(np.float32)
    inv = 1 / np.sqrt(var + epsilon)
    x_hat = (x32 - mean.reshape(vshape)) * inv.reshape(vshape)
    dscale = (dy32 * x_hat).sum(axis=axes)
    doffset = dy32.sum(axis=axes)
    if is_training:
        n = x.size // scale.size
        dx = (scale * inv).reshape(vshape) * (
            dy32 - (doffset / n).reshape(vshape) - x_hat * (dscale / n).reshape(vshape))
    else:
        dx = dy32 * (scale * inv).reshape(vshape)
    u = scale.dtype
    return (dx.astype(x.dtype), dscale.astype(u), doffset.astype(u), np.zeros(0, u),
            np.zeros(0, u))


@FusedBatchNormV3.gradient
def _(op, grad_y, *unused):
    x, scale, _, mean, var = op._inputs
    a = op._attrs
    if a["is_training"]:
        mean, var = op._outputs[3], op._outputs[4]
    dx, dscale, doffset = apply_op(
        "FusedBatchNormGradV3", (grad_y, x, scale, mean, var, op._outputs[5]),
        epsilon=a["epsilon"], data_format=a["data_format"],
        is_training=a["is_training"]).outputs[:3]
    return [dx, dscale, doffset, None, None]
