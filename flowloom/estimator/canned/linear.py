"""LinearClassifier and LinearRegressor over feature columns (TF 1.15's v1).

Variables are TF's: `linear/linear_model/<column>/weights` and
`linear/linear_model/bias_weights`. The default optimizer is FTRL with learning rate 0.2
(`optimizer='Ftrl'`); `optimizer=None` gives FTRL at min(0.2, 1/sqrt(#columns)), as in TF.
"""

import math

from flowloom.estimator.canned import heads
from flowloom.estimator.canned.dnn import check_features, check_partitioner
from flowloom.estimator.canned.checkpoint_names import with_tf_checkpoint_names
from flowloom.estimator.canned.optimizers import get_optimizer_instance
from flowloom.estimator.estimator import Estimator

_LEARNING_RATE = 0.2


def _tf():
    import flowloom as tf
    return tf


def _default_optimizer(feature_columns):
    tf = _tf()
    return tf.train.FtrlOptimizer(
        learning_rate=min(_LEARNING_RATE, 1.0 / math.sqrt(len(feature_columns))))


def fraction_of_zero(variables):
    """The fraction of zero entries over all `variables` (a float32 scalar)."""
    tf = _tf()
    with tf.name_scope("zero_fraction"):
        total = tf.add_n([tf.size(v, out_type=tf.int64) for v in variables])
        zeros = tf.add_n([tf.cast(tf.size(v, out_type=tf.int64), tf.float32) -
                          tf.cast(tf.count_nonzero(v), tf.float32) for v in variables])
        return zeros / tf.cast(total, tf.float32)


def linear_logits(features, units, feature_columns, sparse_combiner):
    """The logits of a linear model in the current variable scope, with TF's summaries."""
    tf = _tf()
    from flowloom.feature_column.layers import linear_model

    cols_to_vars = {}
    logits = linear_model(features, feature_columns, units=units,
                          sparse_combiner=sparse_combiner, cols_to_vars=cols_to_vars)
    bias = cols_to_vars.pop("bias")
    variables = [v for vs in cols_to_vars.values() for v in vs]
    if units > 1:
        tf.summary.histogram("bias", bias)
    else:
        tf.summary.scalar("bias", bias[0][0])
    tf.summary.scalar("fraction_of_zero_weights", fraction_of_zero(variables))
    return logits


def _linear_model_fn(features, labels, mode, head, feature_columns, optimizer, partitioner,
                     config, sparse_combiner="sum"):
    tf = _tf()
    check_features(features)
    check_partitioner(partitioner, "partitioner")
    with tf.variable_scope("linear", values=tuple(features.values()),
                           partitioner=partitioner):
        logits = linear_logits(features, head.logits_dimension, feature_columns,
                               sparse_combiner)
        optimizer = get_optimizer_instance(optimizer or _default_optimizer(feature_columns),
                                           learning_rate=_LEARNING_RATE)
        spec = head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                          optimizer=optimizer, logits=logits)
    return with_tf_checkpoint_names(spec, [optimizer], config)


class LinearClassifier(Estimator):
    """A linear classifier (TF 1.15's `tf.estimator.LinearClassifier`).

    Example:
      a = categorical_column_with_hash_bucket("a", 1000)
      b = categorical_column_with_hash_bucket("b", 1000)
      estimator = tf.estimator.LinearClassifier(
          feature_columns=[a, crossed_column([a, b], 10000)])
      estimator.train(input_fn=input_fn_train)

    Args:
      feature_columns: dense or categorical columns.
      model_dir: where checkpoints and summaries go.
      n_classes: the number of label classes (>= 2).
      weight_column: a feature name or numeric_column giving example weights.
      label_vocabulary: string labels, in class-id order.
      optimizer: an Optimizer, its name, or a callable (FTRL at 0.2).
      config: a RunConfig.
      partitioner: partitions the model's variables (the linear scope's partitioner).
      warm_start_from: a checkpoint path or WarmStartSettings.
      loss_reduction: how the training loss reduces over the batch.
      sparse_combiner: how a row's several ids combine: 'sum', 'mean' or 'sqrtn'.

    Raises:
      ValueError: for n_classes < 2, a bad loss_reduction or sparse_combiner.
    """

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Ftrl", config=None, partitioner=None,
                 warm_start_from=None, loss_reduction="weighted_sum", sparse_combiner="sum"):
        head = heads.binary_or_multi_class_head(n_classes, weight_column, label_vocabulary,
                                                loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _linear_model_fn(features, labels, mode, head, tuple(feature_columns or []),
                                    optimizer, partitioner, config, sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class LinearRegressor(Estimator):
    """A linear regressor (TF 1.15's `tf.estimator.LinearRegressor`).

    Args:
      feature_columns, model_dir, weight_column, optimizer, config, partitioner,
      warm_start_from, loss_reduction, sparse_combiner: as for LinearClassifier.
      label_dimension: the number of regression targets per example.
    """

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None,
                 loss_reduction="weighted_sum", sparse_combiner="sum"):
        head = heads.regression_head(label_dimension, weight_column, loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _linear_model_fn(features, labels, mode, head, tuple(feature_columns or []),
                                    optimizer, partitioner, config, sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)
