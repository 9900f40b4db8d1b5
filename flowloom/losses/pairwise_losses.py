"""`tf.losses.cosine_distance`, `tf.losses.hinge_loss`, `tf.losses.mean_pairwise_squared_error`
(TF 1.15's definitions and op names)."""

from flowloom.framework import dtypes
from flowloom.framework.graph import GraphKeys, control_dependencies, name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.losses import util
from flowloom.losses.losses_impl import Reduction, compute_weighted_loss
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None,
                    loss_collection=GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    """1 - the dot product of unit-normalized `labels` and `predictions` along `axis`.

    Args:
      labels: `Tensor` of unit vectors (along `axis`).
      predictions: `Tensor` of the same shape, also unit-normalized.
      axis: The dimension along which the cosine distance is computed.
      weights: Scalar or `Tensor` broadcastable to the losses.
      scope: The scope of the ops.
      loss_collection: Where the loss is added.
      reduction: A `tf.losses.Reduction` key.
      dim: Deprecated spelling of `axis`.

    Returns:
      The weighted loss.

    Raises:
      ValueError: If `axis`, `labels` or `predictions` is None, or the shapes differ.
    """
    if axis is None and dim is not None:
        axis = dim
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    if labels is None:
        raise ValueError("labels must not be None.")
    if predictions is None:
        raise ValueError("predictions must not be None.")
    with name_scope(scope, "cosine_distance_loss", (predictions, labels, weights)) as sc:
        predictions = math_ops.cast(convert_to_tensor(predictions), dtypes.float32)
        labels = math_ops.cast(convert_to_tensor(labels), dtypes.float32)
        predictions._shape.assert_is_compatible_with(labels._shape)
        radial_diffs = math_ops.multiply(predictions, labels)
        losses = 1 - math_ops.reduce_sum(radial_diffs, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction=reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """The hinge loss max(0, 1 - y * logits) with labels in {0, 1} mapped to y in {-1, 1}.

    Raises:
      ValueError: If `labels` or `logits` is None, or their shapes differ.
    """
    from flowloom.ops.nn import nn_ops

    if labels is None:
        raise ValueError("labels must not be None.")
    if logits is None:
        raise ValueError("logits must not be None.")
    with name_scope(scope, "hinge_loss", (logits, labels, weights)) as sc:
        logits = math_ops.cast(convert_to_tensor(logits), dtypes.float32)
        labels = math_ops.cast(convert_to_tensor(labels), dtypes.float32)
        logits._shape.assert_is_compatible_with(labels._shape)
        all_ones = array_ops.ones_like(labels)
        labels = math_ops.subtract(2 * labels, all_ones)
        losses = nn_ops.relu(math_ops.subtract(all_ones, math_ops.multiply(labels, logits)))
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction=reduction)


def _num_present_per_batch(losses, weights):
    with name_scope(None, "num_present", (losses, weights)) as scope:
        weights = math_ops.cast(weights, dtypes.float32)
        present = array_ops.where(math_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                                  array_ops.ones_like(weights))
        present = util.broadcast_weights(present, losses)
        return math_ops.reduce_sum(present, axis=math_ops.range_(1, array_ops.rank(present)),
                                   keepdims=True, name=scope)


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None,
                                loss_collection=GraphKeys.LOSSES):
    """The mean of the squared differences of all pairs of (prediction - label) differences
    within each batch element, weighted per batch element.

    Args:
      labels: `Tensor` [batch_size, d0, ... dN].
      predictions: `Tensor` of the same shape.
      weights: Scalar or `Tensor` of rank 1 ([batch_size]) or of the losses' rank.
      scope: The scope of the ops.
      loss_collection: Where the loss is added.

    Returns:
      A scalar loss (0 when no element has a nonzero weight).

    Raises:
      ValueError: If `labels` or `predictions` is None, or the shapes differ.
    """
    if labels is None:
        raise ValueError("labels must not be None.")
    if predictions is None:
        raise ValueError("predictions must not be None.")
    with name_scope(scope, "mean_pairwise_squared_error", (predictions, labels, weights)):
        weights = math_ops.cast(convert_to_tensor(weights), dtypes.float32)
        labels = math_ops.cast(convert_to_tensor(labels), dtypes.float32)
        with control_dependencies((util.assert_broadcastable(weights, labels),)):
            predictions = math_ops.cast(convert_to_tensor(predictions), dtypes.float32)
            predictions._shape.assert_is_compatible_with(labels._shape)
            diffs = math_ops.subtract(predictions, labels)
            axis = math_ops.range_(1, array_ops.rank(diffs))
            sum_squares = math_ops.reduce_sum(math_ops.square(diffs), axis=axis, keepdims=True)
            num_present = _num_present_per_batch(diffs, weights)
            term1 = 2.0 * math_ops.div_no_nan(sum_squares, math_ops.maximum(num_present - 1, 0),
                                              name="value")
            sum_diff = math_ops.reduce_sum(diffs, axis=axis, keepdims=True)
            term2 = 2.0 * math_ops.div_no_nan(
                math_ops.square(sum_diff),
                math_ops.maximum(math_ops.multiply(num_present, num_present - 1), 0),
                name="value")
            weighted = math_ops.multiply(term1 - term2, weights)
            loss = math_ops.reduce_sum(weighted)
            mean_loss = array_ops.where(math_ops.reduce_sum(num_present) > 0, loss,
                                        array_ops.zeros_like(loss), name="value")
            util.add_loss(mean_loss, loss_collection)
            return mean_loss
