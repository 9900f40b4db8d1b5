"""DNNLinearCombinedClassifier and DNNLinearCombinedRegressor: wide & deep models (TF 1.15's).

The logits are the sum of a linear model (`linear/linear_model/...`, FTRL at
min(0.005, 1/sqrt(#linear columns))) and a DNN (`dnn/...`, Adagrad at 0.001); each optimizer
trains only its own part's variables, then the global step advances by one.
"""

import math

from flowloom.estimator.canned import heads
from flowloom.estimator.canned.dnn import (add_layer_summary, check_features,
                                           check_partitioner, dnn_logits)
from flowloom.estimator.canned.linear import linear_logits
from flowloom.estimator.canned.checkpoint_names import with_tf_checkpoint_names
from flowloom.estimator.canned.optimizers import get_optimizer_instance
from flowloom.estimator.estimator import Estimator

_DNN_LEARNING_RATE = 0.001
_LINEAR_LEARNING_RATE = 0.005


def _tf():
    import flowloom as tf
    return tf


def _linear_learning_rate(num_columns):
    return min(_LINEAR_LEARNING_RATE, 1. / math.sqrt(num_columns))


def _check_columns(linear_feature_columns, dnn_feature_columns):
    columns = list(linear_feature_columns or []) + list(dnn_feature_columns or [])
    if not columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be "
                         "defined.")
    return columns


def _combined_model_fn(features, labels, mode, head, linear_feature_columns=None,
                       linear_optimizer="Ftrl", dnn_feature_columns=None,
                       dnn_optimizer="Adagrad", dnn_hidden_units=None, dnn_activation_fn=None,
                       dnn_dropout=None, input_layer_partitioner=None, config=None,
                       batch_norm=False, linear_sparse_combiner="sum"):
    tf = _tf()
    check_features(features)
    _check_columns(linear_feature_columns, dnn_feature_columns)
    check_partitioner(input_layer_partitioner, "input_layer_partitioner")
    logits_dnn = logits_linear = None
    if dnn_feature_columns:
        dnn_optimizer = get_optimizer_instance(dnn_optimizer, learning_rate=_DNN_LEARNING_RATE)
        if not dnn_hidden_units:
            raise ValueError("dnn_hidden_units must be defined when dnn_feature_columns is "
                             "specified.")
        with tf.variable_scope("dnn", values=tuple(features.values())) as scope:
            dnn_scope = scope.name
            logits_dnn = dnn_logits(features, mode, head.logits_dimension, dnn_hidden_units,
                                    dnn_feature_columns, dnn_activation_fn or tf.nn.relu,
                                    dnn_dropout, batch_norm, input_layer_partitioner)
    if linear_feature_columns:
        linear_optimizer = get_optimizer_instance(
            linear_optimizer, learning_rate=_linear_learning_rate(len(linear_feature_columns)))
        with tf.variable_scope("linear", values=tuple(features.values())) as scope:
            linear_scope = scope.name
            logits_linear = linear_logits(features, head.logits_dimension,
                                          linear_feature_columns, linear_sparse_combiner)
            add_layer_summary(logits_linear, scope.name)
    if logits_dnn is not None and logits_linear is not None:
        logits = logits_dnn + logits_linear
    else:
        logits = logits_dnn if logits_dnn is not None else logits_linear

    def _train_op_fn(loss):
        train_ops = []
        global_step = tf.train.get_global_step()
        if logits_dnn is not None:
            train_ops.append(dnn_optimizer.minimize(loss, var_list=tf.get_collection(
                tf.GraphKeys.TRAINABLE_VARIABLES, scope=dnn_scope)))
        if logits_linear is not None:
            train_ops.append(linear_optimizer.minimize(loss, var_list=tf.get_collection(
                tf.GraphKeys.TRAINABLE_VARIABLES, scope=linear_scope)))
        train_op = tf.group(*train_ops)
        with tf.control_dependencies([train_op]):
            return tf.assign_add(global_step, 1).op

    spec = head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                      train_op_fn=_train_op_fn, logits=logits)
    optimizers = [o for o, used in ((dnn_optimizer, logits_dnn), (linear_optimizer,
                                                                   logits_linear))
                  if used is not None]
    return with_tf_checkpoint_names(spec, optimizers, config)


class DNNLinearCombinedClassifier(Estimator):
    """A wide & deep classifier (TF 1.15's `tf.estimator.DNNLinearCombinedClassifier`).

    Example:
      education = categorical_column_with_hash_bucket("education", 1000)
      estimator = tf.estimator.DNNLinearCombinedClassifier(
          linear_feature_columns=[education, crossed_column(["education", "job"], 1000)],
          dnn_feature_columns=[embedding_column(education, 8), numeric_column("age")],
          dnn_hidden_units=[100, 50])

    Args:
      model_dir: where checkpoints and summaries go.
      linear_feature_columns: the wide part's columns.
      linear_optimizer: the wide part's optimizer (FTRL).
      dnn_feature_columns: the deep part's dense columns.
      dnn_optimizer: the deep part's optimizer (Adagrad).
      dnn_hidden_units: units per hidden layer (required with dnn_feature_columns).
      dnn_activation_fn: the hidden layers' activation (relu).
      dnn_dropout: the probability to drop a hidden unit in training.
      n_classes, weight_column, label_vocabulary: as for DNNClassifier.
      input_layer_partitioner: partitions the DNN input layer's variables.
      config, warm_start_from, loss_reduction, batch_norm: as for DNNClassifier.
      linear_sparse_combiner: the linear part's combiner ('sum', 'mean' or 'sqrtn').

    Raises:
      ValueError: if neither part has columns, or for a bad n_classes/loss_reduction.
    """

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=None, dnn_dropout=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction="weighted_sum", batch_norm=False,
                 linear_sparse_combiner="sum"):
        self._feature_columns = _check_columns(linear_feature_columns, dnn_feature_columns)
        head = heads.binary_or_multi_class_head(n_classes, weight_column, label_vocabulary,
                                                loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _combined_model_fn(
                features, labels, mode, head, linear_feature_columns, linear_optimizer,
                dnn_feature_columns, dnn_optimizer, dnn_hidden_units, dnn_activation_fn,
                dnn_dropout, input_layer_partitioner, config, batch_norm,
                linear_sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class DNNLinearCombinedRegressor(Estimator):
    """A wide & deep regressor (TF 1.15's `tf.estimator.DNNLinearCombinedRegressor`).

    Args: as for DNNLinearCombinedClassifier, with `label_dimension` (targets per example)
    instead of n_classes and label_vocabulary.
    """

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=None, dnn_dropout=None, label_dimension=1,
                 weight_column=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction="weighted_sum", batch_norm=False,
                 linear_sparse_combiner="sum"):
        self._feature_columns = _check_columns(linear_feature_columns, dnn_feature_columns)
        head = heads.regression_head(label_dimension, weight_column, loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _combined_model_fn(
                features, labels, mode, head, linear_feature_columns, linear_optimizer,
                dnn_feature_columns, dnn_optimizer, dnn_hidden_units, dnn_activation_fn,
                dnn_dropout, input_layer_partitioner, config, batch_norm,
                linear_sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)
