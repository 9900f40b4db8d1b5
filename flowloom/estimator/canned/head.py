"""The heads of TF 1.15's canned estimators: loss, predictions, metrics and exports from logits.

A head turns a model's logits into an `EstimatorSpec` for each mode, as TF's v1 heads do:
- binary classification (sigmoid cross entropy; predictions logits, logistic, probabilities,
  class_ids, classes, all_class_ids, all_classes; metrics accuracy, precision, recall, auc,
  auc_precision_recall, label/mean, prediction/mean, accuracy_baseline, average_loss);
- multi-class classification (sparse softmax cross entropy; accuracy, average_loss);
- regression (mean squared error; predictions, average_loss, label/mean, prediction/mean).
The training loss is reduced with the estimator's `loss_reduction` (TF's default: the
weighted sum over the batch); `loss` and `average_loss` are summarised in TRAIN mode.
"""

import collections

from flowloom.estimator.mode_keys import ModeKeys
from flowloom.framework.graph import GraphKeys, get_collection, name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.sparse_tensor import SparseTensor

LossSpec = collections.namedtuple(
    "LossSpec", ["training_loss", "unreduced_loss", "weights", "processed_labels"])

_DEFAULT_SERVING_KEY = "serving_default"
_CLASSIFY_SERVING_KEY = "classification"
_REGRESS_SERVING_KEY = "regression"
_PREDICT_SERVING_KEY = "predict"


class MetricKeys:
    """The metric names of the canned estimators (TF's `metric_keys.MetricKeys`)."""
    LOSS = "loss"
    LOSS_MEAN = "average_loss"
    LOSS_REGULARIZATION = "regularization_loss"
    ACCURACY = "accuracy"
    PRECISION = "precision"
    RECALL = "recall"
    ACCURACY_BASELINE = "accuracy_baseline"
    AUC = "auc"
    AUC_PR = "auc_precision_recall"
    LABEL_MEAN = "label/mean"
    PREDICTION_MEAN = "prediction/mean"
    ACCURACY_AT_THRESHOLD = "accuracy/positive_threshold_%g"
    PRECISION_AT_THRESHOLD = "precision/positive_threshold_%g"
    RECALL_AT_THRESHOLD = "recall/positive_threshold_%g"


class PredictionKeys:
    """The prediction names of the canned estimators (TF's `prediction_keys`)."""
    CLASSES = "classes"
    CLASS_IDS = "class_ids"
    ALL_CLASSES = "all_classes"
    ALL_CLASS_IDS = "all_class_ids"
    LOGISTIC = "logistic"
    LOGITS = "logits"
    PREDICTIONS = "predictions"
    PROBABILITIES = "probabilities"


def _tf():
    import flowloom as tf
    return tf


def _summary_key(head_name, key):
    return f"{key}/{head_name}" if head_name else key


def _check_labels(labels, logits, expected_dim):
    tf = _tf()
    if labels is None:
        raise ValueError("You must provide a labels Tensor. Given: None. Suggested "
                         "troubleshooting steps: Check that your data contain your label "
                         "feature. Check that your input_fn properly parses and returns labels.")
    with name_scope(None, "labels", (labels, logits)) as scope:
        if isinstance(labels, SparseTensor):
            raise ValueError(f"SparseTensor labels are not supported. labels must be a Tensor "
                             f"of shape [D0, D1, ..., DN, {expected_dim}], e.g. [batch_size, "
                             f"{expected_dim}].")
        labels = convert_to_tensor(labels)
        if labels.shape.ndims is not None and logits.shape.ndims is not None and \
                labels.shape.ndims == logits.shape.ndims - 1:
            labels = tf.expand_dims(labels, -1)
        message = (f"labels shape must be [D0, D1, ... DN, {expected_dim}]. Suggested Fix: "
                   f"check your n_classes argument to the estimator and/or the shape of "
                   f"your label.")
        rank_check = tf.assert_rank_at_least(labels, 2, message=message)
        with tf.control_dependencies([rank_check]):
            if labels.shape.ndims is not None:
                last = labels.shape[-1].value
                if last is not None and last != expected_dim:
                    raise ValueError(f"Mismatched label shape. Expected labels dimension="
                                     f"{expected_dim}.  Received {last}. Suggested Fix:If your "
                                     f"classifier expects one-hot encoding label,check your "
                                     f"n_classes argument to the estimator and/or the shape of "
                                     f"your label. Otherwise, check the shape of your label.")
            expected = tf.concat([tf.shape(logits)[:-1], [expected_dim]], axis=0)
            dim_check = tf.assert_equal(expected, tf.shape(labels), message=message)
            with tf.control_dependencies([dim_check]):
                return tf.identity(labels, name=scope.rstrip("/") if scope else None)


def _weights(features, weight_column, logits, allow_per_logit_weights=False):
    tf = _tf()
    from flowloom.feature_column.core import _LazyBuilder
    from flowloom.feature_column.dense import _NumericColumn, numeric_column

    if weight_column is None:
        return 1.
    with name_scope(None, "weights", tuple(features.values()) + (logits,)) as scope:
        if isinstance(weight_column, str):
            weight_column = numeric_column(key=weight_column, shape=(1,))
        if not isinstance(weight_column, _NumericColumn):
            raise TypeError(f"Weight column must be either a string or _NumericColumn. Given "
                            f"type: {type(weight_column)}.")
        weights = weight_column._get_dense_tensor(_LazyBuilder(features))
        if not (weights.dtype.is_floating or weights.dtype.is_integer):
            raise ValueError(f"Weight column should be castable to float. Given dtype: "
                             f"{weights.dtype}")
        weights = tf.cast(weights, tf.float32, name="weights")
        if weights.shape.ndims is not None and logits.shape.ndims is not None and \
                weights.shape.ndims == logits.shape.ndims - 1:
            check = tf.assert_equal(tf.shape(logits)[:-1], tf.shape(weights))
            with tf.control_dependencies([check]):
                return tf.expand_dims(weights, -1, name=scope.rstrip("/"))
        supported = tf.concat([tf.shape(logits)[:-1], [1]], axis=0)
        if allow_per_logit_weights:
            ok = tf.reduce_any([tf.reduce_all(tf.equal(tf.shape(logits), tf.shape(weights))),
                                tf.reduce_all(tf.equal(supported, tf.shape(weights)))])
            check = tf.Assert(ok, ["weights shape must be [D0, D1, ... DN], [D0, D1, ... DN, "
                                   "1] or [D0, D1, ... DN, logits_dimension]"])
        else:
            check = tf.assert_equal(supported, tf.shape(weights),
                                    message="weights shape must be [D0, D1, ... DN] or [D0, "
                                    "D1, ... DN, 1]")
        with tf.control_dependencies([check]):
            return tf.identity(weights, name=scope.rstrip("/"))


def _check_logits(logits, dimension):
    tf = _tf()
    with name_scope(None, "logits", (logits,)) as scope:
        logits = tf.cast(logits, tf.float32)
        rank_check = tf.assert_rank_at_least(
            logits, 2, message="logits shape must be [D0, D1, ... DN, logits_dimension]")
        with tf.control_dependencies([rank_check]):
            shape = logits.shape
            if shape.ndims is not None and shape[-1].value is not None:
                if shape[-1].value != dimension:
                    raise ValueError(f"logits shape must be [D0, D1, ... DN, logits_dimension], "
                                     f"got {shape}.")
                return logits
            check = tf.assert_equal(dimension, tf.shape(logits)[-1])
            with tf.control_dependencies([check]):
                return tf.identity(logits, name=scope.rstrip("/"))


def _assert_range(labels, n_classes):
    tf = _tf()
    with name_scope(None, "assert_range", (labels,)):
        below = tf.assert_less_equal(labels, tf.cast(n_classes - 1, labels.dtype),
                                     message="Labels must <= n_classes - 1")
        above = tf.assert_non_negative(labels, message="Labels must >= 0")
        with tf.control_dependencies([below, above]):
            return tf.identity(labels)


def _all_class_ids(logits, n_classes):
    tf = _tf()
    return tf.tile(tf.expand_dims(tf.range(n_classes), 0), [tf.shape(logits)[0], 1])


def _class_list(n_classes, label_vocabulary):
    tf = _tf()
    if label_vocabulary:
        return tf.constant(list(label_vocabulary))
    from flowloom.ops.strings.hash_ops import as_string
    return as_string(tf.range(n_classes))


def _all_classes(logits, n_classes, label_vocabulary):
    tf = _tf()
    return tf.tile(tf.expand_dims(_class_list(n_classes, label_vocabulary), 0),
                   [tf.shape(logits)[0], 1])


def _classification_output(scores, n_classes, label_vocabulary):
    from flowloom.estimator.export import ClassificationOutput
    tf = _tf()
    classes = tf.tile(tf.expand_dims(_class_list(n_classes, label_vocabulary), 0),
                      [tf.shape(scores)[0], 1])
    return ClassificationOutput(scores=scores, classes=classes)


def _classes(class_ids, label_vocabulary):
    from flowloom.ops.lookup.tables import index_to_string_table_from_tensor
    from flowloom.ops.strings.hash_ops import as_string

    if label_vocabulary:
        table = index_to_string_table_from_tensor(label_vocabulary, name="class_string_lookup")
        return table.lookup(class_ids)
    return as_string(class_ids, name="str_classes")


def _mean(values, weights, name):
    tf = _tf()
    from flowloom.ops.array.broadcast_ops import broadcast_to
    with name_scope(name, "mean", (values, weights)) as scope:
        values = tf.cast(values, tf.float32)
        if weights is not None and not isinstance(weights, float):
            weights = broadcast_to(weights, tf.shape(values))
        elif isinstance(weights, float):
            weights = None
        return tf.metrics.mean(values, weights=weights, name=scope.rstrip("/"))


def _w(weights):
    return None if isinstance(weights, float) else weights


class _Head:
    """Logits -> EstimatorSpec (TF 1.15's `_Head`)."""

    def __init__(self, weight_column=None, loss_reduction=None, loss_fn=None, name=None):
        from flowloom.losses import Reduction
        self._weight_column = weight_column
        self._loss_reduction = loss_reduction or Reduction.SUM
        self._loss_fn = loss_fn
        self._name = name

    @property
    def name(self):
        return self._name

    def _reduce(self, unweighted_loss, weights):
        tf = _tf()
        return tf.losses.compute_weighted_loss(unweighted_loss, weights=weights,
                                               reduction=self._loss_reduction)

    def _call_loss_fn(self, labels, logits, features, expected_dim):
        from flowloom.estimator.util import fn_args
        kwargs = {"features": features} if "features" in fn_args(self._loss_fn) else {}
        return self._loss_fn(labels=labels, logits=logits, **kwargs)

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              train_op_fn=None, regularization_losses=None):
        """The `EstimatorSpec` for `mode` (TRAIN needs exactly one of optimizer/train_op_fn).

        Raises:
          ValueError: for bad labels or logits shapes, or both/neither training arguments.
        """
        from flowloom.estimator.export import PredictOutput
        from flowloom.estimator.model_fn import EstimatorSpec
        tf = _tf()

        with name_scope(self._name, "head"):
            predictions, export_outputs, logits = self._predictions(logits)
            if mode == ModeKeys.PREDICT:
                export_outputs[_PREDICT_SERVING_KEY] = PredictOutput(predictions)
                return EstimatorSpec(mode=ModeKeys.PREDICT, predictions=predictions,
                                     export_outputs=export_outputs)
            loss_spec = self.create_loss(features, mode, logits, labels)
            training_loss = loss_spec.training_loss
            if regularization_losses:
                regularization_loss = tf.add_n(regularization_losses)
                total_loss = tf.add_n([training_loss, regularization_loss])
            else:
                regularization_loss = None
                total_loss = training_loss
            if mode == ModeKeys.EVAL:
                with name_scope(None, "metrics"):
                    metrics = self._eval_metric_ops(predictions, loss_spec,
                                                    regularization_loss)
                return EstimatorSpec(mode=ModeKeys.EVAL, predictions=predictions,
                                     loss=total_loss, eval_metric_ops=metrics)
            if optimizer is not None:
                if train_op_fn is not None:
                    raise ValueError("train_op_fn and optimizer cannot both be set.")
                train_op = optimizer.minimize(total_loss,
                                              global_step=tf.train.get_global_step())
            elif train_op_fn is not None:
                train_op = train_op_fn(total_loss)
            else:
                raise ValueError("train_op_fn and optimizer cannot both be None.")
            update_ops = get_collection(GraphKeys.UPDATE_OPS)
            if update_ops:
                train_op = tf.group(train_op, *update_ops)
            from flowloom.losses import Reduction
            mean_loss = None
            if self._loss_reduction == Reduction.SUM:
                weight_sum = tf.reduce_sum(loss_spec.weights *
                                           tf.ones_like(loss_spec.unreduced_loss))
                mean_loss = training_loss / weight_sum
        with name_scope(""):
            tf.summary.scalar(_summary_key(self._name, MetricKeys.LOSS), total_loss)
            if mean_loss is not None:
                tf.summary.scalar(_summary_key(self._name, MetricKeys.LOSS_MEAN), mean_loss)
            if regularization_loss is not None:
                tf.summary.scalar(_summary_key(self._name, MetricKeys.LOSS_REGULARIZATION),
                                  regularization_loss)
        return EstimatorSpec(mode=ModeKeys.TRAIN, predictions=predictions, loss=total_loss,
                             train_op=train_op)

    def _loss_metrics(self, loss_spec, regularization_loss):
        metrics = {_summary_key(self._name, MetricKeys.LOSS_MEAN): _mean(
            loss_spec.unreduced_loss, _w(loss_spec.weights), MetricKeys.LOSS_MEAN)}
        if regularization_loss is not None:
            metrics[_summary_key(self._name, MetricKeys.LOSS_REGULARIZATION)] = _mean(
                regularization_loss, None, MetricKeys.LOSS_REGULARIZATION)
        return metrics
