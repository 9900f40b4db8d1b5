"""tf.metrics: mean_cosine_distance, sensitivity_at_specificity, specificity_at_sensitivity and
the careful interpolation of the PR curve's AUC, built as TF 1.15 builds them."""

from flowloom.framework import dtypes
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops, unary_ops
from flowloom.ops.math.reduction_ops import argmax, argmin, reduce_min, reduce_sum
from flowloom.ops.math.scan_ops import cumsum
from flowloom.variable_scope import variable_scope
from flowloom.metrics.metrics_impl import (_collect, _confusion_matrix_at_thresholds,
                                           _remove_squeezable_dimensions, mean)

_KEPSILON = 1e-7  # floating point imprecision of the thresholds


def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    """The mean cosine distance `1 - sum(labels * predictions, dim)` over all batches (labels
    and predictions unit-normalized along `dim` by the caller): (mean_distance, update_op)."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    radial_diffs = math_ops.multiply(predictions, labels)
    radial_diffs = reduce_sum(radial_diffs, axis=[dim], keepdims=True)
    mean_distance, update_op = mean(radial_diffs, weights, None, None,
                                    name or "mean_cosine_distance")
    mean_distance = math_ops.subtract(1.0, mean_distance)
    update_op = math_ops.subtract(1.0, update_op)
    return _collect(metrics_collections, mean_distance), _collect(updates_collections,
                                                                   update_op)


def _thresholds(num_thresholds, last):
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - _KEPSILON] + inner + [last]


def _value_and_update(compute, values, update_ops, metrics_collections, updates_collections):
    """(value, update_op): `compute(tp, tn, fp, fn, name)` on the confusion counts and on
    their update ops, each added to its collections."""
    value = _collect(metrics_collections, compute(values["tp"], values["tn"], values["fp"],
                                                  values["fn"], "value"))
    update_op = compute(update_ops["tp"], update_ops["tn"], update_ops["fp"], update_ops["fn"],
                        "update_op")
    return value, _collect(updates_collections, update_op)


def sensitivity_at_specificity(labels, predictions, specificity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """The sensitivity at the threshold whose specificity is nearest `specificity`:
    (sensitivity, update_op), over `num_thresholds` thresholds in [0, 1]."""
    if specificity < 0 or specificity > 1:
        raise ValueError("`specificity` must be in the range [0, 1].")
    with variable_scope(name, "sensitivity_at_specificity", (predictions, labels, weights)):
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, _thresholds(num_thresholds, 1.0 + _KEPSILON), weights)

        def compute(tp, tn, fp, fn, name):
            specificities = math_ops.div(tn, tn + fp + _KEPSILON)
            index = math_ops.cast(argmin(unary_ops.abs(specificities - specificity), 0),
                                  dtypes.int32)
            return math_ops.div(tp[index], tp[index] + fn[index] + _KEPSILON, name)

        return _value_and_update(compute, values, update_ops, metrics_collections,
                                 updates_collections)


def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """The specificity at the (last) threshold whose sensitivity is nearest `sensitivity`:
    (specificity, update_op), over `num_thresholds` thresholds in [0, 1]."""
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError("`sensitivity` must be in the range [0, 1].")
    with variable_scope(name, "specificity_at_sensitivity", (predictions, labels, weights)):
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, _thresholds(num_thresholds, 1.0 - _KEPSILON), weights)

        def compute(tp, tn, fp, fn, name):
            sensitivities = math_ops.div(tp, tp + fn + _KEPSILON)
            distance = unary_ops.abs(sensitivities - sensitivity)
            at_min = math_ops.cast(math_ops.equal(distance, reduce_min(distance)),
                                   dtypes.int64)
            # the last index at the minimum: argmax of the running count of minima
            index = math_ops.cast(argmax(cumsum(at_min), 0), dtypes.int32)
            return math_ops.div(tn[index], tn[index] + fp[index] + _KEPSILON, name)

        return _value_and_update(compute, values, update_ops, metrics_collections,
                                 updates_collections)


def interpolate_pr_auc(tp, fp, fn, num_thresholds):
    """The area under the PR curve with precision interpolated as TP and FP vary linearly
    between thresholds (Davis & Goadrich 2006), TF's closed form."""
    dtp = tp[:num_thresholds - 1] - tp[1:]
    p = tp + fp
    prec_slope = math_ops.div_no_nan(dtp, math_ops.maximum(p[:num_thresholds - 1] - p[1:], 0),
                                     name="prec_slope")
    intercept = tp[1:] - math_ops.multiply(prec_slope, p[1:])
    safe_p_ratio = array_ops.where(
        math_ops.logical_and(p[:num_thresholds - 1] > 0, p[1:] > 0),
        math_ops.div_no_nan(p[:num_thresholds - 1], math_ops.maximum(p[1:], 0),
                            name="recall_relative_ratio"),
        array_ops.ones_like(p[1:]))
    return reduce_sum(math_ops.div_no_nan(
        prec_slope * (dtp + intercept * unary_ops.log(safe_p_ratio)),
        math_ops.maximum(tp[1:] + fn[1:], 0), name="pr_auc_increment"),
        name="interpolate_pr_auc")
