"""The three heads of TF 1.15's canned estimators (binary, multi-class, regression)."""

from flowloom.estimator.canned.head import (_CLASSIFY_SERVING_KEY, _DEFAULT_SERVING_KEY,
                                            _REGRESS_SERVING_KEY, LossSpec, MetricKeys,
                                            PredictionKeys, _all_class_ids, _all_classes,
                                            _assert_range, _check_labels, _check_logits,
                                            _classes, _classification_output, _Head, _mean, _w,
                                            _weights, _summary_key, _tf)
from flowloom.framework import dtypes
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import convert_to_tensor


def _label_ids_from_vocabulary(labels, label_vocabulary):
    from flowloom.ops.lookup.tables import index_table_from_tensor
    if labels.dtype != dtypes.string:
        raise ValueError(f"Labels dtype should be string if there is a vocabulary. Instead got "
                         f"{labels.dtype}")
    return index_table_from_tensor(tuple(label_vocabulary),
                                   name="class_id_lookup").lookup(labels)


class _BinaryLogisticHead(_Head):
    """Two classes from one logit: sigmoid cross-entropy."""

    def __init__(self, weight_column=None, thresholds=None, label_vocabulary=None,
                 loss_reduction=None, loss_fn=None, name=None):
        super().__init__(weight_column, loss_reduction, loss_fn, name)
        self._thresholds = tuple(thresholds) if thresholds else ()
        self._label_vocabulary = label_vocabulary

    @property
    def logits_dimension(self):
        return 1

    def _predictions(self, logits):
        tf = _tf()
        keys = PredictionKeys
        with name_scope(None, "predictions", (logits,)):
            logits = _check_logits(logits, 1)
            logistic = tf.sigmoid(logits, name=keys.LOGISTIC)
            two_class = tf.concat((tf.zeros_like(logits), logits), axis=-1,
                                  name="two_class_logits")
            probabilities = tf.nn.softmax(two_class, name=keys.PROBABILITIES)
            class_ids = tf.expand_dims(tf.argmax(two_class, axis=-1, name=keys.CLASS_IDS), -1)
            predictions = {
                keys.LOGITS: logits, keys.LOGISTIC: logistic,
                keys.PROBABILITIES: probabilities, keys.CLASS_IDS: class_ids,
                keys.CLASSES: _classes(class_ids, self._label_vocabulary),
                keys.ALL_CLASS_IDS: _all_class_ids(logits, 2),
                keys.ALL_CLASSES: _all_classes(logits, 2, self._label_vocabulary)}
        from flowloom.estimator.export import RegressionOutput
        output = _classification_output(probabilities, 2, self._label_vocabulary)
        return predictions, {_DEFAULT_SERVING_KEY: output, _CLASSIFY_SERVING_KEY: output,
                             _REGRESS_SERVING_KEY: RegressionOutput(value=logistic)}, logits

    def create_loss(self, features, mode, logits, labels):
        """The LossSpec of `logits` against `labels` (0/1 or vocabulary strings)."""
        tf = _tf()
        logits = convert_to_tensor(logits)
        labels = _check_labels(labels, logits, 1)
        if self._label_vocabulary is not None:
            labels = _label_ids_from_vocabulary(labels, self._label_vocabulary)
        labels = _assert_range(tf.cast(labels, tf.float32), 2)
        if self._loss_fn:
            unweighted = self._call_loss_fn(labels, logits, features, 1)
        else:
            unweighted = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
        weights = _weights(features, self._weight_column, logits)
        return LossSpec(self._reduce(unweighted, weights), unweighted, weights, labels)

    def _eval_metric_ops(self, predictions, loss_spec, regularization_loss):
        tf = _tf()
        keys = MetricKeys
        labels, weights = loss_spec.processed_labels, _w(loss_spec.weights)
        class_ids = predictions[PredictionKeys.CLASS_IDS]
        logistic = predictions[PredictionKeys.LOGISTIC]
        key = lambda k: _summary_key(self._name, k)  # noqa: E731
        labels_mean = _mean(labels, weights, keys.LABEL_MEAN)
        metrics = self._loss_metrics(loss_spec, regularization_loss)
        metrics[key(keys.ACCURACY)] = tf.metrics.accuracy(labels, class_ids, weights=weights,
                                                          name=keys.ACCURACY)
        metrics[key(keys.PRECISION)] = tf.metrics.precision(labels, class_ids, weights=weights,
                                                            name=keys.PRECISION)
        metrics[key(keys.RECALL)] = tf.metrics.recall(labels, class_ids, weights=weights,
                                                      name=keys.RECALL)
        metrics[key(keys.PREDICTION_MEAN)] = _mean(logistic, weights, keys.PREDICTION_MEAN)
        metrics[key(keys.LABEL_MEAN)] = labels_mean
        with name_scope(None, "accuracy_baseline", labels_mean):
            value, update = labels_mean
            metrics[key(keys.ACCURACY_BASELINE)] = (
                tf.maximum(value, 1. - value, name="value"),
                tf.maximum(update, 1 - update, name="update_op"))
        w = None if weights is None else weights * tf.ones_like(logistic)
        metrics[key(keys.AUC)] = tf.metrics.auc(labels, logistic, weights=w, name=keys.AUC)
        metrics[key(keys.AUC_PR)] = tf.metrics.auc(labels, logistic, weights=w, curve="PR",
                                                   name=keys.AUC_PR)
        for threshold in self._thresholds:
            above = tf.cast(tf.greater_equal(logistic, threshold), tf.float32)
            name = keys.ACCURACY_AT_THRESHOLD % threshold
            metrics[key(name)] = tf.metrics.accuracy(labels, above, weights=weights, name=name)
            for kind, fn in ((keys.PRECISION_AT_THRESHOLD, tf.metrics.precision_at_thresholds),
                             (keys.RECALL_AT_THRESHOLD, tf.metrics.recall_at_thresholds)):
                name = kind % threshold
                value, update = fn(labels, logistic, thresholds=(threshold,), weights=weights,
                                   name=name)
                metrics[key(name)] = (tf.squeeze(value), tf.squeeze(update))
        return metrics


class _MultiClassHead(_Head):
    """n_classes > 2 from n_classes logits: sparse softmax cross-entropy."""

    def __init__(self, n_classes, weight_column=None, label_vocabulary=None,
                 loss_reduction=None, loss_fn=None, name=None):
        if n_classes is None:
            raise ValueError("n_classes cannot be None")
        if isinstance(n_classes, int) and n_classes <= 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}.")
        super().__init__(weight_column, loss_reduction, loss_fn, name)
        self._n_classes = n_classes
        self._label_vocabulary = label_vocabulary

    @property
    def logits_dimension(self):
        return self._n_classes

    def _predictions(self, logits):
        tf = _tf()
        keys = PredictionKeys
        logits = _check_logits(logits, self._n_classes)
        with name_scope(None, "predictions", (logits,)):
            all_ids = _all_class_ids(logits, self._n_classes)
            all_classes = _all_classes(logits, self._n_classes, self._label_vocabulary)
            class_ids = tf.expand_dims(tf.argmax(logits, axis=-1, name=keys.CLASS_IDS), -1)
            classes = _classes(class_ids, self._label_vocabulary)
            probabilities = tf.nn.softmax(logits, name=keys.PROBABILITIES)
            predictions = {keys.LOGITS: logits, keys.PROBABILITIES: probabilities,
                           keys.CLASS_IDS: class_ids, keys.CLASSES: classes,
                           keys.ALL_CLASS_IDS: all_ids, keys.ALL_CLASSES: all_classes}
        output = _classification_output(probabilities, self._n_classes, self._label_vocabulary)
        return predictions, {_DEFAULT_SERVING_KEY: output,
                             _CLASSIFY_SERVING_KEY: output}, logits

    def create_loss(self, features, mode, logits, labels):
        """The LossSpec of `logits` against integer (or vocabulary string) labels."""
        tf = _tf()
        logits = convert_to_tensor(logits)
        labels = _check_labels(labels, logits, 1)
        if self._label_vocabulary is None:
            if not labels.dtype.is_integer:
                raise ValueError(f"Labels dtype should be integer. Instead got "
                                 f"{labels.dtype}.")
            label_ids = labels
        else:
            label_ids = _label_ids_from_vocabulary(labels, self._label_vocabulary)
        label_ids = _assert_range(label_ids, self._n_classes)
        if self._loss_fn:
            unweighted = self._call_loss_fn(label_ids, logits, features, 1)
        else:
            unweighted = tf.losses.sparse_softmax_cross_entropy(
                labels=label_ids, logits=logits, reduction=tf.losses.Reduction.NONE)
            unweighted = tf.expand_dims(unweighted, axis=-1)
        weights = _weights(features, self._weight_column, logits)
        return LossSpec(self._reduce(unweighted, weights), unweighted, weights, label_ids)

    def _eval_metric_ops(self, predictions, loss_spec, regularization_loss):
        tf = _tf()
        metrics = self._loss_metrics(loss_spec, regularization_loss)
        metrics[_summary_key(self._name, MetricKeys.ACCURACY)] = tf.metrics.accuracy(
            loss_spec.processed_labels, predictions[PredictionKeys.CLASS_IDS],
            weights=_w(loss_spec.weights), name=MetricKeys.ACCURACY)
        return metrics


class _RegressionHead(_Head):
    """Real-valued outputs: mean squared error."""

    def __init__(self, label_dimension, weight_column=None, loss_reduction=None, loss_fn=None,
                 inverse_link_fn=None, name=None):
        if label_dimension < 1:
            raise ValueError(f"Invalid label_dimension {label_dimension}.")
        super().__init__(weight_column, loss_reduction, loss_fn, name)
        self._logits_dimension = label_dimension
        self._inverse_link_fn = inverse_link_fn

    @property
    def logits_dimension(self):
        return self._logits_dimension

    def _predictions(self, logits):
        from flowloom.estimator.export import RegressionOutput
        keys = PredictionKeys
        logits = _check_logits(logits, self._logits_dimension)
        if self._inverse_link_fn:
            value = self._inverse_link_fn(logits)
            predictions = {keys.PREDICTIONS: value, keys.LOGITS: logits}
        else:
            value = logits
            predictions = {keys.PREDICTIONS: value}
        output = RegressionOutput(value=value)
        return predictions, {_DEFAULT_SERVING_KEY: output, _REGRESS_SERVING_KEY: output}, logits

    def create_loss(self, features, mode, logits, labels):
        """The LossSpec: squared error of `logits` against float labels."""
        tf = _tf()
        logits = convert_to_tensor(logits)
        labels = tf.cast(_check_labels(labels, logits, self._logits_dimension), tf.float32)
        if self._loss_fn:
            unweighted = self._call_loss_fn(labels, logits, features, self._logits_dimension)
        else:
            unweighted = tf.losses.mean_squared_error(labels=labels, predictions=logits,
                                                      reduction=tf.losses.Reduction.NONE)
        weights = _weights(features, self._weight_column, logits, allow_per_logit_weights=True)
        return LossSpec(self._reduce(unweighted, weights), unweighted, weights, labels)

    def _eval_metric_ops(self, predictions, loss_spec, regularization_loss):
        keys = MetricKeys
        weights = _w(loss_spec.weights)
        metrics = self._loss_metrics(loss_spec, regularization_loss)
        metrics[_summary_key(self._name, keys.PREDICTION_MEAN)] = _mean(
            predictions[PredictionKeys.PREDICTIONS], weights, keys.PREDICTION_MEAN)
        metrics[_summary_key(self._name, keys.LABEL_MEAN)] = _mean(
            loss_spec.processed_labels, weights, keys.LABEL_MEAN)
        return metrics


def binary_or_multi_class_head(n_classes, weight_column, label_vocabulary, loss_reduction):
    """The head TF's classifiers use: binary for n_classes == 2, else multi-class.

    Raises:
      ValueError: for n_classes < 2 or a bad loss_reduction.
    """
    check_loss_reduction(loss_reduction)
    if n_classes == 2:
        return _BinaryLogisticHead(weight_column=weight_column,
                                   label_vocabulary=label_vocabulary,
                                   loss_reduction=loss_reduction)
    return _MultiClassHead(n_classes, weight_column=weight_column,
                           label_vocabulary=label_vocabulary, loss_reduction=loss_reduction)


def regression_head(label_dimension, weight_column, loss_reduction):
    """The head TF's regressors use."""
    check_loss_reduction(loss_reduction)
    return _RegressionHead(label_dimension, weight_column=weight_column,
                           loss_reduction=loss_reduction)


def check_loss_reduction(loss_reduction):
    from flowloom.losses import Reduction
    if loss_reduction not in Reduction.all() or loss_reduction == Reduction.NONE:
        raise ValueError(f"Invalid loss_reduction: {loss_reduction}")
