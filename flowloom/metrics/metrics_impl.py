"""tf.metrics: streaming metrics on local variables, built as TF 1.x builds them.

Each metric returns (value, update_op): `update_op` accumulates one batch into the metric's
local variables (METRIC_VARIABLES) and returns the metric after it; `value` reads it. Run
`tf.local_variables_initializer()` first.
"""

from flowloom.framework import dtypes
from flowloom.framework.graph import GraphKeys, add_to_collections, control_dependencies
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_util import constant_value
from flowloom.ops.array import array_ops
from flowloom.ops.checks import check_ops
from flowloom.ops.math import math_ops, unary_ops
from flowloom.ops.math.reduction_ops import reduce_sum
from flowloom.ops.state import state_ops
from flowloom.variable_scope import variable_scope
from flowloom.variables import Variable


def metric_variable(shape, dtype, validate_shape=True, name=None):
    """A zero-initialized local variable in LOCAL_VARIABLES and METRIC_VARIABLES."""
    return Variable(lambda: array_ops.zeros(shape, dtype), trainable=False,
                    collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
                    validate_shape=validate_shape, name=name)


def remove_squeezable_dimensions(labels, predictions, expected_rank_diff=0, name=None):
    """Squeezes a trailing size-1 dimension off labels or predictions when their ranks
    differ by one (static ranks only)."""
    from flowloom.framework.graph import name_scope

    with name_scope(name, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        ps, ls = predictions._shape, labels._shape
        if ps.ndims is not None and ls.ndims is not None:
            rank_diff = ps.ndims - ls.ndims
            if rank_diff == expected_rank_diff + 1 and ps.as_list()[-1] in (None, 1):
                predictions = array_ops.squeeze(predictions, [-1])
            elif rank_diff == expected_rank_diff - 1 and ls.as_list()[-1] in (None, 1):
                labels = array_ops.squeeze(labels, [-1])
            return labels, predictions
        # an unknown rank: squeeze when the graph runs, as TF does
        from flowloom.ops.control_flow.cond import cond

        rank_diff = array_ops.rank(predictions) - array_ops.rank(labels)
        if ps.ndims is None or ps.as_list()[-1] in (None, 1):
            p = predictions
            predictions = cond(math_ops.equal(expected_rank_diff + 1, rank_diff),
                               lambda: array_ops.squeeze(p, [-1]), lambda: p)
        if ls.ndims is None or ls.as_list()[-1] in (None, 1):
            lab = labels
            labels = cond(math_ops.equal(expected_rank_diff - 1, rank_diff),
                          lambda: array_ops.squeeze(lab, [-1]), lambda: lab)
        return labels, predictions


def _remove_squeezable_dimensions(predictions, labels, weights):
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = remove_squeezable_dimensions(labels, predictions)
        if not predictions._shape.is_compatible_with(labels._shape):
            raise ValueError(f"Shapes {predictions._shape} and {labels._shape} are "
                             f"incompatible")
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    w_rank, p_rank = weights._shape.ndims, predictions._shape.ndims
    if w_rank == 0:
        return predictions, labels, weights
    if p_rank is not None and w_rank is not None:
        if w_rank - p_rank == 1:
            weights = array_ops.squeeze(weights, [-1])
        elif p_rank - w_rank == 1:
            weights = array_ops.expand_dims(weights, -1)
        return predictions, labels, weights
    # an unknown rank: add or remove the last dimension when the graph runs, as TF does
    from flowloom.ops.control_flow.cond import cond

    w = weights
    w_rank_t = array_ops.rank(w)
    rank_diff = w_rank_t - array_ops.rank(predictions)
    if w_rank is not None and w._shape.as_list()[-1] not in (None, 1):
        def squeezed():
            return w
    else:
        def squeezed():
            return array_ops.squeeze(w, [-1])

    def expanded():
        return cond(math_ops.equal(rank_diff, -1), lambda: array_ops.expand_dims(w, [-1]),
                    lambda: w)

    weights = cond(math_ops.equal(w_rank_t, 0), lambda: w,
                   lambda: cond(math_ops.equal(rank_diff, 1), squeezed, expanded))
    return predictions, labels, weights


def broadcast_weights(weights, values):
    """`weights` broadcast to `values`' shape: checked statically where the shapes are known;
    otherwise the multiply checks it when it runs (InvalidArgumentError, as TF's assert)."""
    from flowloom.framework.graph import name_scope
    from flowloom.losses import util

    values = convert_to_tensor(values, name="values")
    weights = convert_to_tensor(weights, name="weights")
    if weights._shape.is_fully_defined() and values._shape.is_fully_defined():
        return util.broadcast_weights(weights, values)
    with name_scope(None, "broadcast_weights", (weights, values)) as scope:
        with control_dependencies([_assert_broadcastable(weights, values)]):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)


def _assert_broadcastable(weights, values):
    """An Assert that `weights` is a scalar or has `values`' rank with each dimension 1 or
    `values`' (TF's rule for metric weights, stricter than NumPy broadcasting)."""
    from flowloom.ops.checks.logging_ops import Assert_
    from flowloom.ops.control_flow.cond import cond
    from flowloom.ops.math.reduction_ops import reduce_all

    w_shape, v_shape = array_ops.shape(weights), array_ops.shape(values)
    w_rank, v_rank = array_ops.rank(weights), array_ops.rank(values)
    is_scalar = math_ops.equal(0, w_rank)

    def dims_match():
        return reduce_all(math_ops.logical_or(math_ops.equal(w_shape, 1),
                                              math_ops.equal(w_shape, v_shape)))

    def same_rank_and_dims():
        return cond(math_ops.equal(w_rank, v_rank), dims_match,
                    lambda: array_ops.constant(False))

    ok = cond(is_scalar, lambda: array_ops.constant(True), same_rank_and_dims)
    return Assert_(ok, ["weights can not be broadcast to values.", "weights.shape=", w_shape,
                        "values.shape=", v_shape, "is_scalar=", is_scalar])


def _collect(collections, value):
    if collections:
        add_to_collections(collections, value)
    return value


# -- mean, accuracy, regression errors --------------------------------------------------------
def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of `values` over all batches: (mean, update_op)."""
    with variable_scope(name, "mean", (values, weights)):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = math_ops.cast(array_ops.size(values), dtypes.float32)
        else:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = reduce_sum(weights)
        update_total_op = state_ops.assign_add(total, reduce_sum(values))
        with control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)
        mean_t = _collect(metrics_collections, math_ops.div_no_nan(
            total, math_ops.maximum(count, 0), name="value"))
        update_op = math_ops.div_no_nan(update_total_op, math_ops.maximum(update_count_op, 0),
                                        name="update_op")
        return mean_t, _collect(updates_collections, update_op)


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None,
                name=None):
    """The elementwise (weighted) mean of `values` over all batches."""
    with variable_scope(name, "mean", (values, weights)):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable(values._shape, dtypes.float32, name="total_tensor")
        count = metric_variable(values._shape, dtypes.float32, name="count_tensor")
        num_values = array_ops.ones_like(values)
        if weights is not None:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.multiply(num_values, weights)
        update_total_op = state_ops.assign_add(total, values)
        with control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)
        mean_t = _collect(metrics_collections, math_ops.div_no_nan(
            total, math_ops.maximum(count, 0), name="value"))
        update_op = math_ops.div_no_nan(update_total_op, math_ops.maximum(update_count_op, 0),
                                        name="update_op")
        return mean_t, _collect(updates_collections, update_op)


def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """How often `predictions` equals `labels`: (accuracy, update_op)."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    if labels.dtype != predictions.dtype:
        predictions = math_ops.cast(predictions, labels.dtype)
    is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections,
                name or "accuracy")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The mean of |predictions - labels|."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    errors = unary_ops.abs(predictions - labels)
    return mean(errors, weights, metrics_collections, updates_collections,
                name or "mean_absolute_error")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """The mean of (predictions - labels)**2."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    squared = math_ops.squared_difference(labels, predictions)
    return mean(squared, weights, metrics_collections, updates_collections,
                name or "mean_squared_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """The square root of mean_squared_error."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    mse, update_mse_op = mean_squared_error(labels, predictions, weights, None, None,
                                            name or "root_mean_squared_error")
    rmse = _collect(metrics_collections, unary_ops.sqrt(mse))
    return rmse, _collect(updates_collections, unary_ops.sqrt(update_mse_op))


def mean_relative_error(labels, predictions, normalizer, weights=None,
                        metrics_collections=None, updates_collections=None, name=None):
    """The mean of |predictions - labels| / normalizer (0 where the normalizer is 0)."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    predictions, normalizer = remove_squeezable_dimensions(predictions, normalizer)
    relative = array_ops.where(math_ops.equal(normalizer, 0.0),
                               array_ops.zeros_like(labels),
                               math_ops.div(unary_ops.abs(labels - predictions), normalizer))
    return mean(relative, weights, metrics_collections, updates_collections,
                name or "mean_relative_error")


def percentage_below(values, threshold, weights=None, metrics_collections=None,
                     updates_collections=None, name=None):
    """The fraction of `values` below `threshold`."""
    is_below = math_ops.cast(math_ops.less(values, threshold), dtypes.float32)
    return mean(is_below, weights, metrics_collections, updates_collections,
                name or "percentage_below_threshold")


# -- counts, precision, recall ----------------------------------------------------------------
def _count_condition(values, weights, metrics_collections, updates_collections):
    check_ops.assert_type(values, dtypes.bool_)
    count = metric_variable([], dtypes.float32, name="count")
    values = math_ops.cast(values, dtypes.float32)
    if weights is not None:
        weights = math_ops.cast(weights, dtypes.float32)
        values = math_ops.multiply(values, weights)
    value_tensor = _collect(metrics_collections, array_ops.identity(count))
    update_op = state_ops.assign_add(count, reduce_sum(values))
    return value_tensor, _collect(updates_collections, update_op)


def _condition_metric(default_name, label_value, prediction_value):
    def metric(labels, predictions, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with variable_scope(name, default_name, (predictions, labels, weights)):
            predictions, labels, weights = _remove_squeezable_dimensions(
                math_ops.cast(predictions, dtypes.bool_), math_ops.cast(labels, dtypes.bool_),
                weights)
            condition = math_ops.logical_and(math_ops.equal(labels, label_value),
                                             math_ops.equal(predictions, prediction_value))
            return _count_condition(condition, weights, metrics_collections,
                                    updates_collections)
    metric.__name__ = default_name
    metric.__doc__ = (f"The (weighted) number of {default_name.replace('_', ' ')} over all "
                      f"batches (labels and predictions read as booleans).")
    return metric


true_positives = _condition_metric("true_positives", True, True)
false_positives = _condition_metric("false_positives", False, True)
true_negatives = _condition_metric("true_negatives", False, False)
false_negatives = _condition_metric("false_negatives", True, False)


def _ratio(numerator, other, name):
    total = numerator + other
    return array_ops.where(math_ops.greater(total, 0), math_ops.div(numerator, total), 0,
                           name=name)


def _precision_or_recall(default_name, other_metric):
    def metric(labels, predictions, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with variable_scope(name, default_name, (predictions, labels, weights)):
            predictions, labels, weights = _remove_squeezable_dimensions(
                math_ops.cast(predictions, dtypes.bool_), math_ops.cast(labels, dtypes.bool_),
                weights)
            tp, tp_update = true_positives(labels, predictions, weights)
            other, other_update = other_metric(labels, predictions, weights)
            value = _collect(metrics_collections, _ratio(tp, other, "value"))
            update_op = _ratio(tp_update, other_update, "update_op")
            return value, _collect(updates_collections, update_op)
    metric.__name__ = default_name
    return metric


precision = _precision_or_recall("precision", false_positives)
precision.__doc__ = "true_positives / (true_positives + false_positives), streamed."
recall = _precision_or_recall("recall", false_negatives)
recall.__doc__ = "true_positives / (true_positives + false_negatives), streamed."


# -- metrics at thresholds, AUC ----------------------------------------------------------------
def _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights=None,
                                    includes=None):
    all_includes = ("tp", "fn", "tn", "fp")
    includes = all_includes if includes is None else includes
    for include in includes:
        if include not in all_includes:
            raise ValueError(f"Invalid key: {include}.")
    with control_dependencies([
            check_ops.assert_greater_equal(predictions, math_ops.cast(0.0, predictions.dtype),
                                           message="predictions must be in [0, 1]"),
            check_ops.assert_less_equal(predictions, math_ops.cast(1.0, predictions.dtype),
                                        message="predictions must be in [0, 1]")]):
        predictions, labels, weights = _remove_squeezable_dimensions(
            math_ops.cast(predictions, dtypes.float32), math_ops.cast(labels, dtypes.bool_),
            weights)
    num_thresholds = len(thresholds)
    predictions_2d = array_ops.reshape(predictions, [-1, 1])
    labels_2d = array_ops.reshape(math_ops.cast(labels, dtypes.bool_), [1, -1])
    num_predictions = predictions_2d._shape.as_list()[0]
    if num_predictions is None:
        num_predictions = array_ops.shape(predictions_2d)[0]
    thresh_tiled = array_ops.tile(
        array_ops.expand_dims(array_ops.constant(thresholds, dtypes.float32), [1]),
        array_ops.stack([1, num_predictions]))
    pred_is_pos = math_ops.greater(
        array_ops.tile(array_ops.transpose(predictions_2d), [num_thresholds, 1]), thresh_tiled)
    pred_is_neg = math_ops.logical_not(pred_is_pos)
    label_is_pos = array_ops.tile(labels_2d, [num_thresholds, 1])
    label_is_neg = math_ops.logical_not(label_is_pos)
    weights_tiled = None
    if weights is not None:
        weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), predictions)
        weights_tiled = array_ops.tile(array_ops.reshape(weights, [1, -1]), [num_thresholds, 1])
    values, update_ops = {}, {}
    parts = {"tp": ("true_positives", label_is_pos, pred_is_pos),
             "fn": ("false_negatives", label_is_pos, pred_is_neg),
             "tn": ("true_negatives", label_is_neg, pred_is_neg),
             "fp": ("false_positives", label_is_neg, pred_is_pos)}
    for key in all_includes:
        if key not in includes:
            continue
        var_name, label_part, pred_part = parts[key]
        var = metric_variable([num_thresholds], dtypes.float32, name=var_name)
        hits = math_ops.cast(math_ops.logical_and(label_part, pred_part), dtypes.float32)
        if weights_tiled is not None:
            hits *= weights_tiled
        update_ops[key] = state_ops.assign_add(var, reduce_sum(hits, 1))
        values[key] = var
    return values, update_ops


def _at_thresholds(default_name, key):
    def metric(labels, predictions, thresholds, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with variable_scope(name, default_name, (predictions, labels, weights)):
            values, update_ops = _confusion_matrix_at_thresholds(
                labels, predictions, thresholds, weights=weights, includes=(key,))
            return (_collect(metrics_collections, array_ops.identity(values[key])),
                    _collect(updates_collections, update_ops[key]))
    metric.__name__ = default_name
    metric.__doc__ = f"The {default_name.replace('_', ' ')}, one count per threshold."
    return metric


true_positives_at_thresholds = _at_thresholds("true_positives", "tp")
false_positives_at_thresholds = _at_thresholds("false_positives", "fp")
true_negatives_at_thresholds = _at_thresholds("true_negatives", "tn")
false_negatives_at_thresholds = _at_thresholds("false_negatives", "fn")


def _ratio_at_thresholds(default_name, other_key):
    def metric(labels, predictions, thresholds, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with variable_scope(name, default_name, (predictions, labels, weights)):
            values, update_ops = _confusion_matrix_at_thresholds(
                labels, predictions, thresholds, weights, includes=("tp", other_key))
            epsilon = 1e-7

            def compute(tp, other, name):
                return math_ops.div(tp, epsilon + tp + other, name=name)
            value = _collect(metrics_collections, compute(values["tp"], values[other_key],
                                                          "value"))
            update_op = compute(update_ops["tp"], update_ops[other_key], "update_op")
            return value, _collect(updates_collections, update_op)
    metric.__name__ = f"{default_name}_at_thresholds"
    return metric


precision_at_thresholds = _ratio_at_thresholds("precision_at_thresholds", "fp")
recall_at_thresholds = _ratio_at_thresholds("recall_at_thresholds", "fn")


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
        updates_collections=None, curve="ROC", name=None, summation_method="trapezoidal",
        thresholds=None):
    """Area under the ROC or PR curve, by a Riemann sum over `num_thresholds` thresholds.

    Args:
      labels: booleans (or 0/1); predictions: floats in [0, 1].
      curve: 'ROC' or 'PR'.
      summation_method: 'trapezoidal', 'minoring' or 'majoring'.
      thresholds: explicit thresholds instead of num_thresholds evenly spaced ones.

    Returns:
      (auc, update_op).
    """
    with variable_scope(name, "auc", (labels, predictions, weights)):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"curve must be either ROC or PR, {curve} unknown")
        kepsilon = 1e-7
        if thresholds is not None:
            thresholds = sorted(thresholds)
            num_thresholds = len(thresholds) + 2
        else:
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1)
                          for i in range(num_thresholds - 2)]
        thresholds = [0.0 - kepsilon] + list(thresholds) + [1.0 + kepsilon]
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                             weights)
        epsilon = 1.0e-6

        def compute_auc(tp, fn, tn, fp, name):
            if curve == "PR" and summation_method == "careful_interpolation":
                from flowloom.metrics.metrics_extra import interpolate_pr_auc

                return interpolate_pr_auc(tp, fp, fn, num_thresholds)
            rec = math_ops.div(tp + epsilon, tp + fn + epsilon)
            if curve == "ROC":
                x, y = math_ops.div(fp, fp + tn + epsilon), rec
            else:
                x, y = rec, math_ops.div(tp + epsilon, tp + fp + epsilon)
            widths = x[:num_thresholds - 1] - x[1:]
            if summation_method in ("trapezoidal", "careful_interpolation"):
                heights = (y[:num_thresholds - 1] + y[1:]) / 2.
            elif summation_method == "minoring":
                heights = math_ops.minimum(y[:num_thresholds - 1], y[1:])
            elif summation_method == "majoring":
                heights = math_ops.maximum(y[:num_thresholds - 1], y[1:])
            else:
                raise ValueError(f"Invalid summation_method: {summation_method}")
            return reduce_sum(math_ops.multiply(widths, heights), name=name)

        value = _collect(metrics_collections, compute_auc(
            values["tp"], values["fn"], values["tn"], values["fp"], "value"))
        update_op = compute_auc(update_ops["tp"], update_ops["fn"], update_ops["tn"],
                                update_ops["fp"], "update_op")
        return value, _collect(updates_collections, update_op)


# -- confusion matrices: mean IoU, per-class accuracy -----------------------------------------
def confusion_matrix(labels, predictions, num_classes=None, dtype=dtypes.int32, name=None,
                     weights=None):
    """The [num_classes, num_classes] matrix counting (label, prediction) pairs."""
    from flowloom.framework.graph import name_scope
    from flowloom.ops.array.gather_ops import scatter_nd
    from flowloom.ops.control_flow.control_flow_ops import with_dependencies
    from flowloom.ops.math.reduction_ops import reduce_max

    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "confusion_matrix", (predictions, labels, num_classes, weights)):
        labels, predictions = remove_squeezable_dimensions(
            convert_to_tensor(labels, name="labels"),
            convert_to_tensor(predictions, name="predictions"))
        predictions = math_ops.cast(predictions, dtypes.int64)
        labels = math_ops.cast(labels, dtypes.int64)
        labels = with_dependencies([check_ops.assert_non_negative(
            labels, message="`labels` contains negative values")], labels)
        predictions = with_dependencies([check_ops.assert_non_negative(
            predictions, message="`predictions` contains negative values")], predictions)
        static_n = num_classes
        if num_classes is None:
            lv, pv = constant_value(labels), constant_value(predictions)
            static_n = None if lv is None or pv is None or not lv.size else \
                int(max(lv.max(), pv.max())) + 1
            num_classes = math_ops.maximum(reduce_max(predictions), reduce_max(labels)) + 1
        else:
            n64 = math_ops.cast(num_classes, dtypes.int64)
            labels = with_dependencies([check_ops.assert_less(
                labels, n64, message="`labels` out of bound")], labels)
            predictions = with_dependencies([check_ops.assert_less(
                predictions, n64, message="`predictions` out of bound")], predictions)
        if weights is not None:
            weights = math_ops.cast(convert_to_tensor(weights, name="weights"), dtype)
        shape = math_ops.cast(array_ops.stack([num_classes, num_classes]), dtypes.int64)
        indices = array_ops.stack([labels, predictions], axis=1)
        values = array_ops.ones_like(predictions, dtype) if weights is None else weights
        cm = scatter_nd(indices, values, shape)
        # The static shape TF's shape inference finds by evaluating the (constant) size.
        n = constant_value(static_n) if hasattr(static_n, "op") else static_n
        cm.set_shape([None if n is None else int(n)] * 2)
        return cm


def _streaming_confusion_matrix(labels, predictions, num_classes, weights=None):
    total_cm = metric_variable([num_classes, num_classes], dtypes.float64,
                               name="total_confusion_matrix")
    predictions = math_ops.cast(predictions, dtypes.int64)
    labels = math_ops.cast(labels, dtypes.int64)
    if predictions._shape.ndims > 1:
        predictions = array_ops.reshape(predictions, [-1])
    if labels._shape.ndims > 1:
        labels = array_ops.reshape(labels, [-1])
    if weights is not None:
        weights = convert_to_tensor(weights)
        if weights._shape.ndims > 1:
            weights = array_ops.reshape(weights, [-1])
    current = confusion_matrix(labels, predictions, num_classes, weights=weights,
                               dtype=dtypes.float64)
    return total_cm, state_ops.assign_add(total_cm, current)


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """Mean intersection-over-union over the classes that occur: (mean_iou, update_op —
    the updated confusion matrix)."""
    from flowloom.ops.math.linalg_ops import diag_part

    with variable_scope(name, "mean_iou", (predictions, labels, weights)):
        predictions, labels = convert_to_tensor(predictions), convert_to_tensor(labels)
        if not predictions._shape.is_compatible_with(labels._shape):
            raise ValueError(f"Shapes {predictions._shape} and {labels._shape} are "
                             f"incompatible")
        total_cm, update_op = _streaming_confusion_matrix(labels, predictions, num_classes,
                                                          weights)
        sum_over_row = math_ops.cast(reduce_sum(total_cm, 0), dtypes.float32)
        sum_over_col = math_ops.cast(reduce_sum(total_cm, 1), dtypes.float32)
        cm_diag = math_ops.cast(diag_part(total_cm), dtypes.float32)
        denominator = sum_over_row + sum_over_col - cm_diag
        num_valid = reduce_sum(math_ops.cast(math_ops.not_equal(denominator, 0),
                                             dtype=dtypes.float32))
        denominator = array_ops.where(math_ops.greater(denominator, 0), denominator,
                                      array_ops.ones_like(denominator))
        iou = math_ops.div(cm_diag, denominator)
        result = array_ops.where(math_ops.greater(num_valid, 0),
                                 reduce_sum(iou, name="mean_iou") / num_valid, 0)
        return _collect(metrics_collections, result), _collect(updates_collections, update_op)


def mean_per_class_accuracy(labels, predictions, num_classes, weights=None,
                            metrics_collections=None, updates_collections=None, name=None):
    """The mean over classes of each class's accuracy: (value, update_op)."""
    from flowloom.ops.math.reduction_ops import reduce_mean

    with variable_scope(name, "mean_accuracy", (predictions, labels, weights)):
        labels = math_ops.cast(convert_to_tensor(labels), dtypes.int64)
        if labels._shape.ndims > 1:
            labels = array_ops.reshape(labels, [-1])
        predictions = convert_to_tensor(predictions)
        if predictions._shape.ndims > 1:
            predictions = array_ops.reshape(predictions, [-1])
        if not predictions._shape.is_compatible_with(labels._shape):
            raise ValueError(f"Shapes {predictions._shape} and {labels._shape} are "
                             f"incompatible")
        total = metric_variable([num_classes], dtypes.float32, name="total")
        count = metric_variable([num_classes], dtypes.float32, name="count")
        ones = array_ops.ones([array_ops.size(labels)], dtypes.float32)
        if labels.dtype != predictions.dtype:
            predictions = math_ops.cast(predictions, labels.dtype)
        is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
        if weights is not None:
            weights = convert_to_tensor(weights)
            if weights._shape.ndims > 1:
                weights = array_ops.reshape(weights, [-1])
            weights = math_ops.cast(weights, dtypes.float32)
            is_correct *= weights
            ones *= weights
        update_total_op = state_ops.scatter_add(total, labels, ones)
        update_count_op = state_ops.scatter_add(count, labels, is_correct)

        def compute(count_, total_, name):
            per_class = math_ops.div_no_nan(count_, math_ops.maximum(total_, 0))
            return reduce_mean(per_class, name=name)
        value = _collect(metrics_collections, compute(count, total, "mean_accuracy"))
        update_op = _collect(updates_collections, math_ops.div_no_nan(
            update_count_op, math_ops.maximum(update_total_op, 0), name="update_op"))
        return value, update_op
