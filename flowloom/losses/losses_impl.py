"""tf.losses (TF1): weighted losses that add themselves to GraphKeys.LOSSES."""

from flowloom.framework import dtypes
from flowloom.framework.graph import GraphKeys, control_dependencies, name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops
from flowloom.ops.nn import nn_impl
from flowloom.ops.nn import nn_loss_ops
from flowloom.losses import util


class Reduction:
    """How a weighted loss is reduced to a scalar."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}. Key should be one of "
                             f"{cls.all()}.")


def _safe_mean(losses, num_present):
    total_loss = math_ops.reduce_sum(losses)
    return math_ops.div_no_nan(total_loss, num_present, name="value")


def _num_present(losses, weights):
    """How many entries of `losses` have a nonzero weight (after broadcasting)."""
    if isinstance(weights, float) and weights != 0.0:
        return _num_elements(losses)
    with name_scope(None, "num_present", (losses, weights)) as scope:
        weights = math_ops.cast(weights, dtypes.float32)
        present = array_ops.where(math_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                                  array_ops.ones_like(weights))
        present = util.broadcast_weights(present, losses)
        return math_ops.reduce_sum(present, name=scope)


def _num_elements(losses):
    with name_scope(None, "num_elements", [losses]) as scope:
        return math_ops.cast(array_ops.size(losses, name=scope), losses.dtype.base_dtype)


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Multiplies `losses` by `weights` and reduces them as `reduction` says.

    Args:
      losses: tensor of per-example losses.
      weights: scalar or tensor broadcastable to `losses`.
      scope: name scope.
      loss_collection: the collection the result is added to.
      reduction: a `Reduction` key.

    Returns:
      The weighted loss (scalar unless reduction is NONE).

    Raises:
      ValueError: for an invalid reduction or weights that cannot broadcast.
    """
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss", (losses, weights)):
        with control_dependencies((util.assert_broadcastable(weights, losses),)):
            losses = convert_to_tensor(losses)
            input_dtype = losses.dtype.base_dtype
            losses = math_ops.cast(losses, dtypes.float32)
            weights = math_ops.cast(weights, dtypes.float32)
            weighted_losses = math_ops.multiply(losses, weights)
            if reduction == Reduction.NONE:
                loss = weighted_losses
            else:
                loss = math_ops.reduce_sum(weighted_losses)
                if reduction == Reduction.MEAN:
                    loss = _safe_mean(loss, math_ops.reduce_sum(
                        array_ops.ones_like(losses) * weights))
                elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                    loss = _safe_mean(loss, _num_present(losses, weights))
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    loss = _safe_mean(loss, _num_elements(losses))
            loss = math_ops.cast(loss, input_dtype)
            util.add_loss(loss, loss_collection)
            return loss


def _check_args(labels, predictions, label_name="labels", pred_name="predictions"):
    if labels is None:
        raise ValueError(f"Argument `{label_name}` must not be None.")
    if predictions is None:
        raise ValueError(f"Argument `{pred_name}` must not be None.")


def _pointwise_loss(default_name, fn):
    def loss(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
             reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
        _check_args(labels, predictions)
        with name_scope(scope, default_name, (predictions, labels, weights)) as sc:
            predictions = math_ops.cast(convert_to_tensor(predictions), dtypes.float32)
            labels = math_ops.cast(convert_to_tensor(labels), dtypes.float32)
            predictions._shape.assert_is_compatible_with(labels._shape)
            losses = fn(predictions, labels)
            return compute_weighted_loss(losses, weights, sc, loss_collection,
                                         reduction=reduction)
    loss.__name__ = default_name
    return loss


absolute_difference = _pointwise_loss(
    "absolute_difference", lambda p, t: math_ops.abs(math_ops.subtract(p, t)))
absolute_difference.__doc__ = """Weighted mean of |predictions - labels|.

    Args:
      labels, predictions: tensors of the same shape.
      weights: scalar or broadcastable tensor.
      reduction: a `Reduction` key.

    Returns:
      The loss; it is also added to `loss_collection`.

    Raises:
      ValueError: if labels or predictions is None or their shapes differ.
    """
mean_squared_error = _pointwise_loss(
    "mean_squared_error", lambda p, t: math_ops.squared_difference(p, t))
mean_squared_error.__doc__ = absolute_difference.__doc__.replace(
    "|predictions - labels|", "(predictions - labels) ** 2")


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None,
               loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Quadratic for |error| <= delta, linear beyond."""
    _check_args(labels, predictions)
    with name_scope(scope, "huber_loss", (predictions, labels, weights)) as sc:
        predictions = math_ops.cast(convert_to_tensor(predictions), dtypes.float32)
        labels = math_ops.cast(convert_to_tensor(labels), dtypes.float32)
        predictions._shape.assert_is_compatible_with(labels._shape)
        error = math_ops.subtract(predictions, labels)
        abs_error = math_ops.abs(error)
        quadratic = math_ops.minimum(abs_error, delta)
        linear = math_ops.subtract(abs_error, quadratic)
        losses = math_ops.add(math_ops.multiply(0.5, math_ops.multiply(quadratic, quadratic)),
                              math_ops.multiply(delta, linear))
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction=reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None,
             loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """-labels * log(p + eps) - (1 - labels) * log(1 - p + eps)."""
    _check_args(labels, predictions)
    with name_scope(scope, "log_loss", (predictions, labels, weights)) as sc:
        predictions = math_ops.cast(convert_to_tensor(predictions), dtypes.float32)
        labels = math_ops.cast(convert_to_tensor(labels), dtypes.float32)
        predictions._shape.assert_is_compatible_with(labels._shape)
        losses = -math_ops.multiply(labels, math_ops.log(predictions + epsilon)) - \
            math_ops.multiply((1 - labels), math_ops.log(1 - predictions + epsilon))
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction=reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0,
                          scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted sigmoid cross-entropy; labels are smoothed towards 1/2 by `label_smoothing`.

    Returns:
      The loss; it is also added to `loss_collection`.

    Raises:
      ValueError: if an argument is None or the shapes differ.
    """
    _check_args(multi_class_labels, logits, "multi_class_labels", "logits")
    with name_scope(scope, "sigmoid_cross_entropy_loss",
                    (logits, multi_class_labels, weights)) as sc:
        logits = convert_to_tensor(logits)
        labels = math_ops.cast(multi_class_labels, logits.dtype.base_dtype)
        logits._shape.assert_is_compatible_with(labels._shape)
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_impl.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                           name="xentropy")
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction=reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted softmax cross-entropy with one-hot labels (optionally smoothed).

    Returns:
      The loss; it is also added to `loss_collection`.

    Raises:
      ValueError: if an argument is None or the shapes differ.
    """
    _check_args(onehot_labels, logits, "onehot_labels", "logits")
    with name_scope(scope, "softmax_cross_entropy_loss",
                    (logits, onehot_labels, weights)) as sc:
        logits = convert_to_tensor(logits)
        labels = math_ops.cast(onehot_labels, logits.dtype.base_dtype)
        logits._shape.assert_is_compatible_with(labels._shape)
        if label_smoothing > 0:
            num_classes = math_ops.cast(array_ops.shape(labels)[-1], logits.dtype.base_dtype)
            labels = labels * (1 - label_smoothing) + label_smoothing / num_classes
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
        losses = nn_loss_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits,
                                                                  name="xentropy")
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction=reduction)


def remove_squeezable_dimensions(labels, predictions, expected_rank_diff=0, name=None):
    """Squeezes the last dimension of labels or predictions when rank(predictions) -
    rank(labels) is expected_rank_diff -1 or +1 (TF's confusion_matrix function: statically
    when both ranks are known, else with a tf.cond on the ranks)."""
    from flowloom.ops.control_flow import control_flow_ops

    with name_scope(name, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        ps, ls = predictions._shape, labels._shape
        if ls.ndims is not None and ps.ndims is not None:
            rank_diff = ps.ndims - ls.ndims
            if rank_diff == expected_rank_diff + 1:
                predictions = array_ops.squeeze(predictions, [-1])
            elif rank_diff == expected_rank_diff - 1:
                labels = array_ops.squeeze(labels, [-1])
            return labels, predictions
        rank_diff = array_ops.rank(predictions) - array_ops.rank(labels)
        if ps.ndims is None or ps.dims[-1].is_compatible_with(1):
            predictions = control_flow_ops.cond(
                math_ops.equal(expected_rank_diff + 1, rank_diff),
                lambda: array_ops.squeeze(predictions, [-1]), lambda: predictions)
        if ls.ndims is None or ls.dims[-1].is_compatible_with(1):
            labels = control_flow_ops.cond(
                math_ops.equal(expected_rank_diff - 1, rank_diff),
                lambda: array_ops.squeeze(labels, [-1]), lambda: labels)
        return labels, predictions


def _remove_squeezable_dimensions(labels, predictions, weights=None, expected_rank_diff=0):
    """remove_squeezable_dimensions, then squeezes weights whose rank is one more than the
    labels' (TF's losses helper)."""
    from flowloom.ops.control_flow import control_flow_ops

    labels, predictions = remove_squeezable_dimensions(labels, predictions,
                                                       expected_rank_diff=expected_rank_diff)
    if weights is None:
        return labels, predictions, weights
    weights = convert_to_tensor(weights)
    labels_rank, ws = labels._shape.ndims, weights._shape
    if labels_rank is not None and ws.ndims is not None:
        if ws.ndims - labels_rank == 1:
            weights = array_ops.squeeze(weights, [-1])
        return labels, predictions, weights
    rank_diff = array_ops.rank(weights) - array_ops.rank(labels)
    if ws.ndims is None or (ws.ndims > 0 and ws.dims[-1].is_compatible_with(1)):
        weights = control_flow_ops.cond(math_ops.equal(1, rank_diff),
                                        lambda: array_ops.squeeze(weights, [-1]),
                                        lambda: weights)
    return labels, predictions, weights


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None,
                                 loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted softmax cross-entropy with integer class labels.

    Returns:
      The loss; it is also added to `loss_collection`.

    Raises:
      ValueError: if an argument is None or the shapes do not fit.
    """
    _check_args(labels, logits, "labels", "logits")
    with name_scope(scope, "sparse_softmax_cross_entropy_loss",
                    (logits, labels, weights)) as sc:
        logits = convert_to_tensor(logits)
        labels, logits, weights = _remove_squeezable_dimensions(labels, logits, weights,
                                                                expected_rank_diff=1)
        losses = nn_loss_ops.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction=reduction)


