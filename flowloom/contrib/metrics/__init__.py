"""`tf.contrib.metrics` (also `slim.metrics`): the streaming metrics under their contrib names
and argument order (predictions first), on tf.metrics' local variables; aggregate_metrics,
aggregate_metric_map and the non-streaming accuracy. Names of tf.contrib.metrics that
tf.metrics has no counterpart for raise NotImplementedError naming them."""

from flowloom import metrics as _metrics
from flowloom.framework import dtypes as _dtypes
from flowloom.framework.graph import name_scope as _name_scope
from flowloom.framework.ops import convert_to_tensor as _convert
from flowloom.metrics.metrics_impl import confusion_matrix  # noqa: F401
from flowloom.ops.array import array_ops as _array_ops
from flowloom.ops.math import math_ops as _math_ops
from flowloom.ops.sets.set_ops import (set_difference, set_intersection,  # noqa: F401
                                      set_size, set_union)


def _pairwise(metric_name):
    def streaming(predictions, labels, weights=None, metrics_collections=None,
                  updates_collections=None, name=None):
        return getattr(_metrics, metric_name)(
            labels=labels, predictions=predictions, weights=weights,
            metrics_collections=metrics_collections, updates_collections=updates_collections,
            name=name)
    streaming.__name__ = "streaming_" + metric_name
    streaming.__doc__ = ("tf.metrics.%s with TF1 contrib's argument order (predictions, labels)"
                         ": returns (value, update_op)." % metric_name)
    return streaming


def _with_extra(metric_name, extra):
    def streaming(predictions, labels, value, weights=None, metrics_collections=None,
                  updates_collections=None, name=None):
        return getattr(_metrics, metric_name)(
            labels=labels, predictions=predictions, weights=weights,
            metrics_collections=metrics_collections, updates_collections=updates_collections,
            name=name, **{extra: value})
    streaming.__name__ = "streaming_" + metric_name
    streaming.__doc__ = ("tf.metrics.%s with TF1 contrib's argument order (predictions, labels, "
                         "%s): returns (value, update_op)." % (metric_name, extra))
    return streaming


streaming_accuracy = _pairwise("accuracy")
streaming_precision = _pairwise("precision")
streaming_recall = _pairwise("recall")
streaming_true_positives = _pairwise("true_positives")
streaming_true_negatives = _pairwise("true_negatives")
streaming_false_positives = _pairwise("false_positives")
streaming_false_negatives = _pairwise("false_negatives")
streaming_mean_absolute_error = _pairwise("mean_absolute_error")
streaming_mean_squared_error = _pairwise("mean_squared_error")
streaming_root_mean_squared_error = _pairwise("root_mean_squared_error")
streaming_mean_relative_error = _with_extra("mean_relative_error", "normalizer")
streaming_mean_iou = _with_extra("mean_iou", "num_classes")
streaming_precision_at_thresholds = _with_extra("precision_at_thresholds", "thresholds")
streaming_recall_at_thresholds = _with_extra("recall_at_thresholds", "thresholds")


def streaming_mean(values, weights=None, metrics_collections=None, updates_collections=None,
                   name=None):
    """The running (weighted) mean of `values`: (mean, update_op)."""
    return _metrics.mean(values, weights=weights, metrics_collections=metrics_collections,
                         updates_collections=updates_collections, name=name)


def streaming_mean_tensor(values, weights=None, metrics_collections=None,
                          updates_collections=None, name=None):
    """The running elementwise mean of `values`: (mean, update_op)."""
    return _metrics.mean_tensor(values, weights=weights,
                                metrics_collections=metrics_collections,
                                updates_collections=updates_collections, name=name)


def streaming_percentage_less(values, threshold, weights=None, metrics_collections=None,
                              updates_collections=None, name=None):
    """The running fraction of `values` below `threshold`."""
    return _metrics.percentage_below(values, threshold, weights=weights,
                                     metrics_collections=metrics_collections,
                                     updates_collections=updates_collections, name=name)


def streaming_auc(predictions, labels, weights=None, num_thresholds=200,
                  metrics_collections=None, updates_collections=None, curve="ROC", name=None):
    """The running area under the ROC (or PR) curve."""
    return _metrics.auc(labels=labels, predictions=predictions, weights=weights,
                        num_thresholds=num_thresholds, metrics_collections=metrics_collections,
                        updates_collections=updates_collections, curve=curve, name=name)


def _at_thresholds(metric_name):
    def streaming(predictions, labels, thresholds, weights=None):
        return getattr(_metrics, metric_name)(labels=labels, predictions=predictions,
                                              thresholds=thresholds, weights=weights)
    streaming.__name__ = "streaming_" + metric_name
    return streaming


streaming_true_positives_at_thresholds = _at_thresholds("true_positives_at_thresholds")
streaming_false_positives_at_thresholds = _at_thresholds("false_positives_at_thresholds")
streaming_true_negatives_at_thresholds = _at_thresholds("true_negatives_at_thresholds")
streaming_false_negatives_at_thresholds = _at_thresholds("false_negatives_at_thresholds")


def accuracy(predictions, labels, weights=None, name=None):
    """The (weighted) fraction of `predictions` equal to `labels`, computed in one run (not
    streaming).

    Raises:
      ValueError: the dtypes of predictions and labels differ.
    """
    with _name_scope(name, "accuracy", values=[predictions, labels]):
        predictions = _convert(predictions)
        labels = _convert(labels)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        if labels.dtype != predictions.dtype:
            raise ValueError("Dtypes of predictions and labels should match. Given: "
                             "predictions (%r) and labels (%r)" % (predictions.dtype,
                                                                   labels.dtype))
        is_correct = _math_ops.cast(_math_ops.equal(predictions, labels), _dtypes.float32)
        if weights is not None:
            is_correct = _math_ops.multiply(is_correct, weights)
            num_values = _math_ops.multiply(weights, _array_ops.ones_like(is_correct))
            return _math_ops.div(_math_ops.reduce_sum(is_correct),
                                 _math_ops.reduce_sum(num_values))
        return _math_ops.reduce_mean(is_correct)


def aggregate_metrics(*value_update_tuples):
    """([values], [update_ops]) of several (value, update_op) pairs.

    Raises:
      ValueError: no pairs.
    """
    if not value_update_tuples:
        raise ValueError("Expected at least one value_tensor/update_op pair")
    value_ops, update_ops = zip(*value_update_tuples)
    return list(value_ops), list(update_ops)


def aggregate_metric_map(names_to_tuples):
    """({name: value}, {name: update_op}) of a dict of (value, update_op) pairs."""
    metric_names = names_to_tuples.keys()
    value_ops, update_ops = zip(*names_to_tuples.values())
    return dict(zip(metric_names, value_ops)), dict(zip(metric_names, update_ops))


class MetricNotProvided(NotImplementedError, AttributeError):
    """A tf.contrib.metrics name flowloom does not provide."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise MetricNotProvided("tf.contrib.metrics.%s is not provided by flowloom" % name)
