"""Activation ops and their gradient ops: Relu6, Elu, Selu, LeakyRelu, Softmax, LogSoftmax and
local response normalisation (LRN). (Softplus/Softsign and their gradients are in math_ops.)

Each activation's gradient is its own op type (`Relu6Grad`, `EluGrad`, ...), as in TF, so a
GraphDef of a training step names the same ops TF's does.
"""

import numpy as np

from flowloom.framework import common_shapes, dtypes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape
from flowloom.ops.math import math_ops

SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717


def _typed(fn):
    """Kernel wrapper keeping the input's dtype (NumPy would widen float16 and friends)."""
    def kernel(xp, *arrays, **attrs):
        with np.errstate(over="ignore"):
            out = fn(xp, *arrays, **attrs)
        return out.astype(arrays[0].dtype, copy=False)
    kernel.__signature__ = __import__("inspect").signature(fn)
    return kernel


def _activation(type_name, forward, grad_type, backward, uses_output, attrs=None):
    """Registers an activation op and its gradient op in one row."""
    fwd = defop(type_name, inputs=["features: T"], outputs=["activations: T"], attrs=attrs)
    fwd.shape(common_shapes.unchanged)
    fwd.kernel(_typed(forward))
    second = "outputs: T" if uses_output else "features: T"
    bwd = defop(grad_type, inputs=["gradients: T", second], outputs=["backprops: T"],
                attrs=attrs)
    bwd.shape(common_shapes.unchanged)
    bwd.kernel(_typed(backward))

    @fwd.gradient
    def _(op, grad):
        extra = {k: op._attrs[k] for k in (attrs or {})}
        other = op._outputs[0] if uses_output else op._inputs[0]
        return [apply_op(grad_type, (grad, other), **extra).outputs[0]]
    return fwd, bwd


Relu6, Relu6Grad = _activation(
    "Relu6", lambda xp, x: xp.clip(x, 0, 6), "Relu6Grad",
    lambda xp, g, y: g * ((y > 0) & (y < 6)), uses_output=False)
Elu, EluGrad = _activation(
    "Elu", lambda xp, x: xp.where(x < 0, xp.expm1(xp.minimum(x, 0)), x), "EluGrad",
    lambda xp, g, y: xp.where(y < 0, g * (y + 1), g), uses_output=True)
Selu, SeluGrad = _activation(
    "Selu", lambda xp, x: SELU_SCALE * xp.where(x < 0, SELU_ALPHA * xp.expm1(xp.minimum(x, 0)),
                                                x), "SeluGrad",
    lambda xp, g, y: xp.where(y < 0, g * (y + SELU_SCALE * SELU_ALPHA), g * SELU_SCALE),
    uses_output=True)


def _leaky(xp, x, *, alpha):
    return xp.where(x > 0, x, x * alpha)


def _leaky_grad(xp, g, x, *, alpha):
    return xp.where(x > 0, g, g * alpha)


LeakyRelu, LeakyReluGrad = _activation("LeakyRelu", _leaky, "LeakyReluGrad", _leaky_grad,
                                       uses_output=False, attrs={"alpha": 0.2, "T": dtypes.float32})

# Second-order gradients, as TF registers them: each gradient op is linear in its upstream
# gradient; EluGrad/SeluGrad also depend on the activations they were given.
def _zeros_like(x):
    from flowloom.ops.array import array_ops

    return array_ops.zeros_like(x)


def _where_negative(y, value):
    from flowloom.ops.array import array_ops

    return array_ops.where(y < 0, value, _zeros_like(y))


@Relu6Grad.gradient
def _(op, grad):
    return [apply_op("Relu6Grad", (grad, op._inputs[1])).outputs[0], _zeros_like(op._inputs[1])]


@EluGrad.gradient
def _(op, grad):
    y = op._inputs[1]
    return [apply_op("EluGrad", (grad, y)).outputs[0], _where_negative(y, grad * op._inputs[0])]


@SeluGrad.gradient
def _(op, grad):
    y = op._inputs[1]
    return [apply_op("SeluGrad", (grad, y)).outputs[0], _where_negative(y, grad * op._inputs[0])]


@LeakyReluGrad.gradient
def _(op, grad):
    x = op._inputs[1]
    return [apply_op("LeakyReluGrad", (grad, x), alpha=op._attrs["alpha"]).outputs[0],
            _zeros_like(x)]


def relu6(features, name=None):
    """min(max(features, 0), 6) (op `Relu6`)."""
    with name_scope(name, "Relu6", [features]) as scope:
        features = convert_to_tensor(features, name="features")
        return apply_op("Relu6", (features,), name=scope).outputs[0]


def elu(features, name=None):
    """exp(features) - 1 where negative, features elsewhere (op `Elu`)."""
    return apply_op("Elu", (features,), name=name).outputs[0]


def selu(features, name=None):
    """Scaled ELU with TF's constants (op `Selu`)."""
    return apply_op("Selu", (features,), name=name).outputs[0]


def leaky_relu(features, alpha=0.2, name=None):
    """features where positive, alpha * features elsewhere (op `LeakyRelu`).

    Args:
      features: a float tensor (integers are cast to float32).
      alpha: the slope for negative inputs.

    Returns:
      The activations.
    """
    with name_scope(name, "LeakyRelu", [features, alpha]) as scope:
        features = convert_to_tensor(features, name="features")
        if features.dtype.is_integer:
            features = math_ops.to_float(features)
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()
        return apply_op("LeakyRelu", (features,), name=scope, alpha=float(alpha)).outputs[0]


# -- Softmax, LogSoftmax --------------------------------------------------------------------------
def _softmax_np(xp, x):
    e = xp.exp(x - x.max(axis=-1, keepdims=True))
    e /= e.sum(axis=-1, keepdims=True)
    return e


def _log_softmax_np(xp, x):
    shifted = x - x.max(axis=-1, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=-1, keepdims=True))


def _at_least_rank1(op):
    s = op._inputs[0]._shape
    if s.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    return s


Softmax = defop("Softmax", inputs=["logits: T"], outputs=["softmax: T"])
Softmax.shape(_at_least_rank1)
Softmax.kernel(_typed(_softmax_np))
LogSoftmax = defop("LogSoftmax", inputs=["logits: T"], outputs=["logsoftmax: T"])
LogSoftmax.shape(_at_least_rank1)
LogSoftmax.kernel(_typed(_log_softmax_np))


@Softmax.gradient
def _(op, grad):
    y = op._outputs[0]
    return [(grad - math_ops.reduce_sum(grad * y, -1, keepdims=True)) * y]


@LogSoftmax.gradient
def _(op, grad):
    y = math_ops.exp(op._outputs[0])
    return [grad - math_ops.reduce_sum(grad, -1, keepdims=True) * y]


def _on_last_axis(op_type, logits, axis, name):
    """Applies a last-axis op along `axis` by swapping it with the last dimension."""
    from flowloom.ops.array import array_ops

    logits = convert_to_tensor(logits)
    nd = logits._shape.ndims
    if isinstance(axis, Tensor):
        from flowloom.framework.tensor_util import constant_value

        value = constant_value(axis)
        if value is None:
            return _on_axis_tensor(op_type, logits, axis, name)
        axis = int(value)
    if axis is None or axis == -1 or (nd is not None and axis == nd - 1):
        return apply_op(op_type, (logits,), name=name).outputs[0]
    if nd is None:
        raise NotImplementedError(f"{op_type} along axis {axis} of a tensor of unknown rank")
    if axis < -nd or axis >= nd:
        raise errors.InvalidArgumentError(
            None, None, f"`axis` must be in the range [{-nd}, {nd}) where {nd} is the number of "
            f"dimensions in the input. Received: axis={axis}")
    axis %= nd
    perm = list(range(nd))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    out = apply_op(op_type, (array_ops.transpose(logits, perm),)).outputs[0]
    return array_ops.transpose(out, perm, name=name)


def _on_axis_tensor(op_type, logits, axis, name):
    """`_on_last_axis` for an axis known only at run time (TF's dynamic transposes: an axis
    out of range fails in the Transpose kernel)."""
    from flowloom.ops.array import array_ops

    nd = logits._shape.ndims
    if nd is None:
        raise NotImplementedError(f"{op_type} along a tensor axis of a tensor of unknown rank")
    rank = array_ops.rank(logits)
    axis = array_ops.where(math_ops.less(axis, 0), axis + rank, axis)
    last = math_ops.subtract(rank, 1)

    def swap(t, name=None):
        return array_ops.transpose(t, array_ops.concat(
            [math_ops.range_(axis), [last], math_ops.range_(axis + 1, last), [axis]], 0),
            name=name)
    out = swap(apply_op(op_type, (swap(logits),)).outputs[0], name=name)
    out.set_shape(logits._shape)
    return out


def softmax(logits, axis=None, name=None, dim=None):
    """exp(logits) / reduce_sum(exp(logits), axis) (op `Softmax`; default axis -1)."""
    return _on_last_axis("Softmax", logits, dim if axis is None else axis, name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """logits - log(reduce_sum(exp(logits), axis)) (op `LogSoftmax`; default axis -1)."""
    return _on_last_axis("LogSoftmax", logits, dim if axis is None else axis, name)


# -- Local response normalisation --------------------------------------------------------------
_LRN_ATTRS = {"depth_radius": 5, "bias": 1.0, "alpha": 1.0, "beta": 0.5}


def _window_sum(sq, r):
    """Sum over channels [c - r, c + r] of the last axis (channels outside the axis count 0).

    Up to 8 neighbours on each side are added as shifted slices of `sq` (no padded copy; a
    third of the cumulative-sum form's time, and no cancellation); wider windows use a
    cumulative sum."""
    depth = sq.shape[-1]
    r = min(r, depth - 1) if depth else r
    if r > 8:
        c = np.cumsum(np.pad(sq, [(0, 0)] * (sq.ndim - 1) + [(r + 1, r)]), axis=-1)
        return c[..., 2 * r + 1:] - c[..., :-2 * r - 1]
    out = sq.copy()
    for k in range(1, r + 1):
        out[..., k:] += sq[..., :-k]
        out[..., :-k] += sq[..., k:]
    return out


def _lrn_norm(x64, depth_radius, bias, alpha):
    """bias + alpha * (sum of squares over each channel's window), a new float64 array."""
    norm = _window_sum(x64 * x64, depth_radius)
    norm *= alpha
    norm += bias
    return norm


def _negative_power(norm, beta):
    """norm ** -beta of a float64 `norm`, in place where every value is positive: 1/sqrt and
    1/x for TF's special cases, square roots for 0.75, exp(-beta log norm) otherwise (each
    within a few float64 ulps of pow, at 0.4-0.7x its time); `**` itself otherwise."""
    if not np.all(norm > 0):
        return norm ** -beta
    if beta == 0.5:
        np.sqrt(norm, out=norm)
        return np.reciprocal(norm, out=norm)
    if beta == 1.0:
        return np.reciprocal(norm, out=norm)
    if beta == 0.75:  # the CIFAR-10 tutorial's and AlexNet's: 1 / (sqrt(n) * sqrt(sqrt(n)))
        root = np.sqrt(norm)
        np.sqrt(root, out=norm)
        norm *= root
        return np.reciprocal(norm, out=norm)
    np.log(norm, out=norm)
    norm *= -beta
    return np.exp(norm, out=norm)


def _check_rank4(x):
    if x.ndim != 4:
        raise errors.InvalidArgumentError(None, None, "input must be 4-dimensional")


LRN = defop("LRN", inputs=["input: T"], outputs=["output: T"],
            attrs=dict(_LRN_ATTRS, T=dtypes.float32))


@LRN.shape
def _(op):
    s = op._inputs[0]._shape
    if s.ndims is not None and s.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {s.ndims}")
    return s


@LRN.kernel
def _(xp, x, *, depth_radius, bias, alpha, beta):
    _check_rank4(x)
    x64 = x.astype(np.float64)
    x64 *= _negative_power(_lrn_norm(x64, depth_radius, bias, alpha), beta)
    return x64.astype(x.dtype)


LRNGrad = defop("LRNGrad", inputs=["input_grads: T", "input_image: T", "output_image: T"],
                outputs=["output: T"], attrs=dict(_LRN_ATTRS, T=dtypes.float32))
LRNGrad.shape(lambda op: TensorShape(op._inputs[1]._shape))


@LRNGrad.kernel
def _(xp, dy, x, y, *, depth_radius, bias, alpha, beta):
    _check_rank4(x)
    dy64, x64, y64 = (a.astype(np.float64) for a in (dy, x, y))
    norm = _lrn_norm(x64, depth_radius, bias, alpha)
    # d out_j / d x_i = [i == j] N_j^-beta - 2 alpha beta x_i x_j N_j^(-beta-1) over windows.
    y64 *= dy64
    y64 /= norm
    inner = _window_sum(y64, depth_radius)
    dy64 *= _negative_power(norm, beta)
    inner *= x64
    inner *= 2 * alpha * beta
    dy64 -= inner
    return dy64.astype(x.dtype)


@LRN.gradient
def _(op, grad):
    attrs = {k: op._attrs[k] for k in _LRN_ATTRS}
    return [apply_op("LRNGrad", (grad, op._inputs[0], op._outputs[0]), **attrs).outputs[0]]


def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5,  # noqa
                                 name=None):
    """x / (bias + alpha * sum of squares over nearby channels) ** beta (op `LRN`).

    Args:
      input: 4-D float tensor, channels last.
      depth_radius: half-width of the channel window.
      bias, alpha, beta: the normalisation constants.

    Returns:
      The normalised tensor.
    """
    return apply_op("LRN", (input,), name=name, depth_radius=int(depth_radius),
                    bias=float(bias), alpha=float(alpha), beta=float(beta)).outputs[0]


lrn = local_response_normalization
