"""Loss ops of `tf.nn`: softmax cross-entropy (dense and sparse labels), L2Loss, in_top_k."""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.ops.nn import activation_ops
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops


def _xent_shape(op):
    from flowloom.framework.common_shapes import broadcast

    f, lab = op._inputs[0]._shape, op._inputs[1]._shape
    if op._type == "SparseSoftmaxCrossEntropyWithLogits":
        # TF: features of rank 2, labels of rank 1, the batch sizes merged.
        if f.ndims is not None and f.ndims != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {f.ndims}")
        if lab.ndims is not None and lab.ndims != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {lab.ndims}")
        merged = f.with_rank(2).merge_with(TensorShape(
            [lab.as_list()[0] if lab.ndims else None, None]))
    else:
        # TF: rank-2 shapes that merge, else shapes that broadcast to rank 2.
        try:
            merged = f.with_rank(2).merge_with(lab)
        except ValueError:
            merged = broadcast(f, lab)
            if merged.ndims != 2:
                raise ValueError("Shape must be broadcasted with rank 2, but is rank "
                                 f"{merged.ndims if merged.ndims is not None else -1}") from None
    batch = merged.as_list()[0] if merged.ndims is not None else None
    return [TensorShape([batch]), merged if merged.ndims is not None else unknown_shape(2)]


def _xent(logits, labels):
    """(loss, backprop) of softmax cross-entropy; rows are examples."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    total = e.sum(axis=-1, keepdims=True)
    log_probs = shifted - np.log(total)
    loss = -(labels * log_probs).sum(axis=-1)
    return loss.astype(logits.dtype), (e / total - labels).astype(logits.dtype)


SoftmaxCrossEntropyWithLogits = defop("SoftmaxCrossEntropyWithLogits",
                                      inputs=["features: T", "labels: T"],
                                      outputs=["loss: T", "backprop: T"])
SoftmaxCrossEntropyWithLogits.shape(_xent_shape)


@SoftmaxCrossEntropyWithLogits.kernel
def _(xp, features, labels):
    if features.ndim != 2 or labels.ndim != 2 or features.shape != labels.shape:
        try:
            shape = np.broadcast_shapes(features.shape, labels.shape)
            features, labels = np.broadcast_to(features, shape), np.broadcast_to(labels, shape)
        except ValueError:
            raise errors.InvalidArgumentError(
                None, None, "logits and labels must be broadcastable: logits_size=[%s] "
                "labels_size=[%s]" % (",".join(map(str, features.shape)),
                                      ",".join(map(str, labels.shape)))) from None
        if len(shape) != 2:
            raise errors.InvalidArgumentError(
                None, None, "logits and labels must be either 2-dimensional, or broadcasted "
                "to be 2-dimensional")
    return _xent(features, labels)


def _is_zeros(t):
    return t is None or t._op._type in ("ZerosLike", "Fill", "Zeros") or (
        t._op._type == "Const" and not np.any(t._op._attrs["value"]))


@SoftmaxCrossEntropyWithLogits.gradient
def _(op, grad_loss, grad_grad):
    backprop = op._outputs[1]
    grad = array_ops.expand_dims(grad_loss, -1) * backprop
    logits = op._inputs[0]
    if not _is_zeros(grad_grad):
        p = activation_ops.softmax(logits)
        inner = array_ops.squeeze(math_ops.matmul(array_ops.expand_dims(grad_grad, 1),
                                                  array_ops.expand_dims(p, 2)), axis=1)
        grad = grad + (grad_grad - inner) * p
    neg_log_softmax = -activation_ops.log_softmax(logits)  # before the ExpandDims, as TF
    return [grad, array_ops.expand_dims(grad_loss, -1) * neg_log_softmax]


SparseSoftmaxCrossEntropyWithLogits = defop(
    "SparseSoftmaxCrossEntropyWithLogits", inputs=["features: T", "labels: Tlabels"],
    outputs=["loss: T", "backprop: T"], attrs={"Tlabels": dtypes.int64})
SparseSoftmaxCrossEntropyWithLogits.shape(_xent_shape)


@SparseSoftmaxCrossEntropyWithLogits.kernel
def _(xp, features, labels):
    def shape(a):
        return "[" + ",".join(map(str, a.shape)) + "]"
    if features.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"logits must be 2-D, but got shape {shape(features)}")
    if labels.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"labels must be 1-D, but got shape {shape(labels)}")
    n, k = features.shape
    if labels.shape != (n,):
        raise errors.InvalidArgumentError(
            None, None, f"logits and labels must have the same first dimension, got logits "
            f"shape {shape(features)} and labels shape {shape(labels)}")
    if k == 0:
        raise errors.InvalidArgumentError(
            None, None, f"Must have at least one class, but got logits shape {shape(features)}")
    bad = (labels < 0) | (labels >= k)
    if bad.any():
        raise errors.InvalidArgumentError(
            None, None, f"Received a label value of {int(labels[bad][0])} which is outside the "
            f"valid range of [0, {k}).  Label values: {' '.join(map(str, labels.tolist()))}")
    onehot = np.zeros_like(features)
    onehot[np.arange(n), labels] = 1
    return _xent(features, onehot)


@SparseSoftmaxCrossEntropyWithLogits.gradient
def _(op, grad_loss, _grad_backprop):
    # As TF: backprop behind PreventGradient, so a second derivative fails naming why.
    backprop = apply_op("PreventGradient", (op._outputs[1],), message=(
        "Currently there is no way to take the second derivative of "
        "sparse_softmax_cross_entropy_with_logits due to the fused implementation's "
        "interaction with tf.gradients()")).outputs[0]
    return [array_ops.expand_dims(grad_loss, -1) * backprop, None]


def _flatten_outer_dims(t):
    """Reshapes `t` to [-1, last_dim] (static shape kept when known)."""
    s = t._shape
    rank = array_ops.rank(t)  # as TF: Rank, Shape, Sub, and the begin packed as Slice/begin
    last = array_ops.slice(array_ops.shape(t), [math_ops.subtract(rank, 1)], [1])
    out = array_ops.reshape(t, array_ops.concat([[-1], last], 0))
    if s.is_fully_defined():
        dims = s.as_list()
        out.set_shape([int(np.prod(dims[:-1])), dims[-1]])
    return out


def _move_to_end(t, axis, nd):
    perm = [i for i in range(nd) if i != axis] + [axis]
    return array_ops.transpose(t, perm)


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """Softmax cross-entropy between `logits` and a distribution `labels` (gradients flow into
    both).

    Args:
      labels: same shape as `logits`, each row a probability distribution.
      logits: unscaled log probabilities.
      axis: the class dimension (default -1).

    Returns:
      The loss per example: `logits`' shape without `axis`.
    """
    axis = dim if axis is None else axis
    axis = -1 if axis is None else axis
    with name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        precise = logits
        if logits.dtype.base_dtype in (dtypes.float16, dtypes.bfloat16):
            precise = math_ops.cast(logits, dtypes.float32)
        labels = math_ops.cast(labels, precise.dtype.base_dtype)
        shape = logits._shape
        nd = shape.ndims
        if nd is not None and axis != -1 and axis != nd - 1:
            precise = _move_to_end(precise, axis % nd, nd)
            labels = _move_to_end(labels, axis % nd, nd)
            shape = precise._shape
        elif nd is None and axis != -1:
            raise NotImplementedError("softmax cross-entropy along a non-last axis of a tensor "
                                      "of unknown rank")
        # TF flattens to 2-D and back even for 2-D inputs (hence the name Reshape_2).
        input_rank = array_ops.rank(precise)
        input_shape = array_ops.shape(precise)
        flat_logits = _flatten_outer_dims(precise)
        flat_labels = _flatten_outer_dims(labels)
        cost = apply_op("SoftmaxCrossEntropyWithLogits", (flat_logits, flat_labels),
                        name=scope).outputs[0]
        out_shape = array_ops.slice(input_shape, [0], [math_ops.subtract(input_rank, 1)])
        cost = array_ops.reshape(cost, out_shape)
        if shape.ndims is not None:
            cost.set_shape(shape.as_list()[:-1])
        if precise is not logits and logits.dtype.base_dtype != cost.dtype.base_dtype:
            cost = math_ops.cast(cost, logits.dtype.base_dtype)
        return cost


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1,
                                      name=None, axis=None):
    """TF1's softmax cross-entropy: like `_v2`, with no gradient into `labels`."""
    if _sentinel is not None:
        raise ValueError("Only call `softmax_cross_entropy_with_logits` with named arguments "
                         "(labels=..., logits=..., ...). Received unnamed argument: "
                         f"{_sentinel}")
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    axis = dim if axis is None else axis
    with name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as scope:
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=axis,
                                                name=scope)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None,
                                             name=None):
    """Softmax cross-entropy with integer class `labels`.

    Args:
      labels: int32/int64 tensor of class indices, `logits`' shape without the last dim.
      logits: [..., num_classes] unscaled log probabilities.

    Returns:
      The loss per example, shaped like `labels`.

    Raises:
      ValueError: when the ranks of labels and logits do not fit.
    """
    if _sentinel is not None:
        raise ValueError("Only call `sparse_softmax_cross_entropy_with_logits` with named "
                         "arguments (labels=..., logits=..., ...). Received unnamed argument: "
                         f"{_sentinel}")
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        precise = logits
        if logits.dtype.base_dtype == dtypes.float16:
            precise = math_ops.cast(logits, dtypes.float32)
        ls, gs = labels._shape, logits._shape
        if gs.ndims == 0:
            raise ValueError(f"Logits cannot be scalars - received shape {gs}.")
        if ls.ndims is not None and gs.ndims is not None and ls.ndims != gs.ndims - 1:
            raise ValueError(f"Rank mismatch: Rank of labels (received {ls.ndims}) should "
                             f"equal rank of logits minus 1 (received {gs.ndims}).")
        if ls.ndims is not None and gs.ndims is not None and \
                not TensorShape(gs.as_list()[:-1]).is_compatible_with(ls):
            raise ValueError(f"Shape mismatch: The shape of labels (received {ls}) should "
                             f"equal the shape of logits except for the last dimension "
                             f"(received {gs}).")
        labels_shape = array_ops.shape(labels)  # as TF, also where it goes unused
        if gs.ndims == 2:
            cost = apply_op("SparseSoftmaxCrossEntropyWithLogits", (precise, labels),
                            name=name).outputs[0]
        else:
            num_classes = array_ops.slice(array_ops.shape(logits),
                                          array_ops.stack([array_ops.rank(logits) - 1]), [1])
            flat_logits = array_ops.reshape(precise, array_ops.concat([[-1], num_classes], 0))
            flat_labels = array_ops.reshape(labels, [-1])
            cost = apply_op("SparseSoftmaxCrossEntropyWithLogits", (flat_logits, flat_labels),
                            name=name).outputs[0]
            cost = array_ops.reshape(cost, labels_shape)
            cost.set_shape(ls)
        if precise is not logits:
            cost = math_ops.cast(cost, dtypes.float16)
        return cost


# -- L2Loss, InTopKV2 ---------------------------------------------------------------------------
L2Loss = defop("L2Loss", inputs=["t: T"], outputs=["output: T"])
L2Loss.shape(lambda op: TensorShape([]))


@L2Loss.kernel
def _(xp, t):
    return np.asarray(np.sum(t * t, dtype=t.dtype) / 2, dtype=t.dtype)


@L2Loss.gradient
def _(op, grad):
    return [op._inputs[0] * grad]


def l2_loss(t, name=None):
    """sum(t ** 2) / 2 (op `L2Loss`)."""
    return apply_op("L2Loss", (t,), name=name).outputs[0]


InTopKV2 = defop("InTopKV2", inputs=["predictions: float32", "targets: T", "k: T"],
                 outputs=["precision: bool"], attrs={"T": dtypes.int32})


@InTopKV2.shape
def _(op):
    p, t = op._inputs[0]._shape, op._inputs[1]._shape
    if p.ndims is not None and p.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {p.ndims}")
    if t.ndims is not None and t.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {t.ndims}")
    batch = p.as_list()[0] if p.ndims else None
    return TensorShape([batch]).merge_with(t if t.ndims is not None else unknown_shape(1))


@InTopKV2.kernel
def _(xp, predictions, targets, k):
    n, classes = predictions.shape
    if targets.shape != (n,):
        raise errors.InvalidArgumentError(
            None, None, f"First dimension of predictions {n} must match length of targets "
            f"{targets.shape[0] if targets.ndim else 0}")
    valid = (targets >= 0) & (targets < classes)
    safe = np.where(valid, targets, 0)
    target_pred = predictions[np.arange(n), safe]
    # In the top k when fewer than k classes score strictly higher; a row holding any
    # non-finite prediction never is (TF "cannot say").
    higher = (predictions > target_pred[:, None]).sum(axis=1)
    return valid & np.isfinite(predictions).all(axis=1) & (higher < int(k))


InTopKV2.no_gradient()


def in_top_k(predictions, targets, k, name=None):
    """Whether each target is among the top `k` predictions of its row (op `InTopKV2`)."""
    with name_scope(name, "in_top_k"):
        targets = convert_to_tensor(targets)
        return apply_op("InTopKV2", (predictions, targets, k), name=name).outputs[0]
