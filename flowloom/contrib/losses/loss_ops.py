"""tf.contrib.losses (= slim.losses): TF1's first loss functions, predictions/logits first,
averaged over the present (non-zero-weight) elements and collected in GraphKeys.LOSSES."""

from flowloom.contrib.framework.arg_scope import add_arg_scope
from flowloom.framework import dtypes
from flowloom.framework.graph import GraphKeys, add_to_collection, get_collection, name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops
from flowloom.ops.nn import nn_impl, nn_loss_ops, nn_ops


def _scale_losses(losses, weights):
    start = max(0, weights.get_shape().ndims)
    axis = list(range(start, losses.get_shape().ndims))
    reduced = math_ops.reduce_sum(losses, axis=axis)
    return math_ops.reduce_sum(math_ops.multiply(reduced, weights))


def _safe_mean(losses, num_present):
    return math_ops.div_no_nan(math_ops.reduce_sum(losses), num_present, name="value")


def _num_present(losses, weights, per_batch=False):
    if weights.get_shape().ndims == 0:
        batch_size = array_ops.reshape(array_ops.slice(array_ops.shape(losses), [0], [1]), [])
        num_per_batch = math_ops.div(math_ops.cast(array_ops.size(losses), dtypes.float32),
                                     math_ops.cast(batch_size, dtypes.float32))
        num_per_batch = array_ops.where(math_ops.equal(weights, 0), 0.0, num_per_batch)
        num_per_batch = math_ops.multiply(array_ops.ones(array_ops.reshape(batch_size, [1])),
                                          num_per_batch)
        return num_per_batch if per_batch else math_ops.reduce_sum(num_per_batch)
    axis = list(range(1, weights.get_shape().ndims))
    nonzero = math_ops.reduce_sum(math_ops.cast(math_ops.not_equal(weights, 0),
                                                dtypes.float32), axis=axis)
    broadcast_dims = array_ops.slice(array_ops.shape(losses), [weights.get_shape().ndims],
                                     [-1])
    num_per_batch = math_ops.multiply(
        nonzero, math_ops.cast(math_ops.reduce_prod(broadcast_dims), dtypes.float32))
    return num_per_batch if per_batch else math_ops.reduce_sum(num_per_batch)


def compute_weighted_loss(losses, weights=1.0, scope=None):
    """sum(losses * weights) / (number of elements with a non-zero weight), added to LOSSES.

    Raises:
      ValueError: the rank of `losses` or `weights` is unknown.
    """
    with name_scope(scope, "weighted_loss", [losses, weights]):
        losses = convert_to_tensor(losses)
        input_dtype = losses.dtype
        losses = math_ops.cast(losses, dtypes.float32)
        weights = math_ops.cast(convert_to_tensor(weights), dtypes.float32)
        if losses.get_shape().ndims is None:
            raise ValueError("losses.get_shape().ndims cannot be None")
        weights_shape = weights.get_shape()
        if weights_shape.ndims is None:
            raise ValueError("weights.get_shape().ndims cannot be None")
        if weights_shape.ndims > 1 and weights_shape.dims[-1].is_compatible_with(1):
            weights = array_ops.squeeze(weights, [-1])
        total = _scale_losses(losses, weights)
        mean_loss = _safe_mean(total, _num_present(losses, weights))
        mean_loss = math_ops.cast(mean_loss, input_dtype)
        add_loss(mean_loss)
        return mean_loss


@add_arg_scope
def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    """Adds `loss` to `loss_collection` (none if it is falsy)."""
    if loss_collection:
        add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    """The losses of `loss_collection` whose names match `scope`."""
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    """The regularization losses whose names match `scope`."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_total_loss(add_regularization_losses=True, name="total_loss"):
    """The sum of the losses (and the regularization losses).

    Raises:
      ValueError: there are no losses.
    """
    losses = get_losses()
    if add_regularization_losses:
        losses += get_regularization_losses()
    return math_ops.add_n(losses, name=name)


def _float_pair(predictions, labels):
    predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    return math_ops.cast(predictions, dtypes.float32), math_ops.cast(labels, dtypes.float32)


def absolute_difference(predictions, labels=None, weights=1.0, scope=None):
    """Weighted mean of |predictions - labels|."""
    with name_scope(scope, "absolute_difference", [predictions, labels, weights]) as scope:
        predictions, labels = _float_pair(predictions, labels)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope=scope)


def sigmoid_cross_entropy(logits, multi_class_labels, weights=1.0, label_smoothing=0,
                          scope=None):
    """Weighted mean sigmoid cross-entropy; labels smoothed towards 1/2."""
    with name_scope(scope, "sigmoid_cross_entropy_loss",
                    [logits, multi_class_labels, weights]) as scope:
        logits.get_shape().assert_is_compatible_with(multi_class_labels.get_shape())
        multi_class_labels = math_ops.cast(multi_class_labels, logits.dtype)
        if label_smoothing > 0:
            multi_class_labels = multi_class_labels * (1 - label_smoothing) + \
                0.5 * label_smoothing
        losses = nn_impl.sigmoid_cross_entropy_with_logits(labels=multi_class_labels,
                                                           logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope=scope)


def softmax_cross_entropy(logits, onehot_labels, weights=1.0, label_smoothing=0, scope=None):
    """Weighted mean softmax cross-entropy; labels smoothed towards 1/num_classes."""
    with name_scope(scope, "softmax_cross_entropy_loss",
                    [logits, onehot_labels, weights]) as scope:
        logits.get_shape().assert_is_compatible_with(onehot_labels.get_shape())
        onehot_labels = math_ops.cast(onehot_labels, logits.dtype)
        if label_smoothing > 0:
            num_classes = math_ops.cast(array_ops.shape(onehot_labels)[1], logits.dtype)
            onehot_labels = onehot_labels * (1.0 - label_smoothing) + \
                label_smoothing / num_classes
        losses = nn_loss_ops.softmax_cross_entropy_with_logits(labels=onehot_labels,
                                                               logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope=scope)


def sparse_softmax_cross_entropy(logits, labels, weights=1.0, scope=None):
    """Weighted mean softmax cross-entropy against integer labels."""
    with name_scope(scope, "sparse_softmax_cross_entropy_loss",
                    [logits, labels, weights]) as scope:
        labels = array_ops.reshape(labels, shape=[array_ops.shape(labels)[0]])
        losses = nn_loss_ops.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope=scope)


def log_loss(predictions, labels=None, weights=1.0, epsilon=1e-7, scope=None):
    """Weighted mean of -labels log(p + eps) - (1 - labels) log(1 - p + eps)."""
    with name_scope(scope, "log_loss", [predictions, labels, weights]) as scope:
        predictions, labels = _float_pair(predictions, labels)
        losses = -math_ops.multiply(labels, math_ops.log(predictions + epsilon)) - \
            math_ops.multiply((1 - labels), math_ops.log(1 - predictions + epsilon))
        return compute_weighted_loss(losses, weights, scope=scope)


def hinge_loss(logits, labels=None, scope=None):
    """The elementwise hinge loss relu(1 - (2 labels - 1) logits) (not reduced)."""
    with name_scope(scope, "hinge_loss", [logits, labels]):
        logits.get_shape().assert_is_compatible_with(labels.get_shape())
        labels = math_ops.cast(labels, dtypes.float32)
        all_ones = array_ops.ones_like(labels)
        labels = math_ops.subtract(2 * labels, all_ones)
        return nn_ops.relu(math_ops.subtract(all_ones, math_ops.multiply(labels, logits)))


def mean_squared_error(predictions, labels=None, weights=1.0, scope=None):
    """Weighted mean of (predictions - labels)^2."""
    with name_scope(scope, "mean_squared_error", [predictions, labels, weights]) as scope:
        predictions, labels = _float_pair(predictions, labels)
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope=scope)


def mean_pairwise_squared_error(predictions, labels=None, weights=1.0, scope=None):
    """Weighted mean, over the batch, of the squared differences between all pairs of
    elements of (predictions - labels)."""
    with name_scope(scope, "mean_pairwise_squared_error", [predictions, labels, weights]):
        predictions, labels = _float_pair(predictions, labels)
        weights = math_ops.cast(convert_to_tensor(weights), dtypes.float32)
        diffs = math_ops.subtract(predictions, labels)
        if diffs.get_shape().ndims is None:
            raise ValueError("diffs.get_shape().ndims cannot be None")
        if weights.get_shape().ndims is None:
            raise ValueError("weights.get_shape().ndims cannot be None")
        axis = list(range(1, diffs.get_shape().ndims))
        sum_squares = math_ops.reduce_sum(math_ops.square(diffs), axis=axis)
        num_present = _num_present(diffs, weights, per_batch=True)
        term1 = 2.0 * math_ops.div_no_nan(sum_squares, num_present, name="value")
        sum_diff = math_ops.reduce_sum(diffs, axis=axis)
        term2 = 2.0 * math_ops.div_no_nan(math_ops.square(sum_diff),
                                          math_ops.square(num_present), name="value")
        loss = _scale_losses(term1 - term2, weights)
        mean_loss = array_ops.where(math_ops.reduce_sum(num_present) > 0, loss,
                                    array_ops.zeros_like(loss), name="value")
        add_loss(mean_loss)
        return mean_loss


def cosine_distance(predictions, labels=None, axis=None, weights=1.0, scope=None, dim=None):
    """Weighted mean of 1 - sum(predictions * labels, axis) (inputs unit-normalized).

    Raises:
      ValueError: `axis` (or the deprecated `dim`) is not given.
    """
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    with name_scope(scope, "cosine_distance_loss", [predictions, labels, weights]) as scope:
        predictions, labels = _float_pair(predictions, labels)
        losses = 1 - math_ops.reduce_sum(math_ops.multiply(predictions, labels), axis=[axis])
        return compute_weighted_loss(losses, weights, scope=scope)
