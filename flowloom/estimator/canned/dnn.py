"""DNNClassifier and DNNRegressor: feed-forward networks over feature columns (TF 1.15's v1).

Variables are TF's: `dnn/input_from_feature_columns/input_layer/...`,
`dnn/hiddenlayer_<i>/kernel|bias`, `dnn/hiddenlayer_<i>/batchnorm_<i>/...`,
`dnn/logits/kernel|bias`, so a checkpoint TF's canned estimator wrote restores here. The
default optimizer is Adagrad with learning rate 0.05; hidden layers use a Glorot-uniform
kernel initializer.
"""

from flowloom.estimator.canned import heads
from flowloom.estimator.canned.checkpoint_names import with_tf_checkpoint_names
from flowloom.estimator.canned.optimizers import get_optimizer_instance
from flowloom.estimator.estimator import Estimator
from flowloom.estimator.mode_keys import ModeKeys

_LEARNING_RATE = 0.05


def _tf():
    import flowloom as tf
    return tf


def add_layer_summary(value, tag):
    """The fraction-of-zeros scalar and activation histogram TF writes for each layer."""
    tf = _tf()
    tf.summary.scalar(f"{tag}/fraction_of_zero_values", tf.nn.zero_fraction(value))
    tf.summary.histogram(f"{tag}/activation", value)


def check_features(features):
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "
                         f"{type(features)}")


def check_partitioner(partitioner, what):
    """A partitioner argument must be callable (or None: no partitioning)."""
    if partitioner is not None and not callable(partitioner):
        raise ValueError(f"{what} must be callable, but received: {partitioner}")


def dnn_logits(features, mode, units, hidden_units, feature_columns, activation_fn, dropout,
               batch_norm, input_layer_partitioner=None):
    """The logits [batch, units] of the network, built in the current variable scope.

    Raises:
      ValueError: if units is not an int.
    """
    tf = _tf()
    from flowloom.feature_column.layers import input_layer

    if not isinstance(units, int):
        raise ValueError(f"units must be an int.  Given type: {type(units)}")
    is_training = mode == ModeKeys.TRAIN
    with tf.variable_scope("input_from_feature_columns", partitioner=input_layer_partitioner):
        net = input_layer(features, feature_columns)
    for layer_id, num_units in enumerate(hidden_units):
        with tf.variable_scope(f"hiddenlayer_{layer_id}", values=(net,)) as scope:
            net = tf.layers.dense(net, num_units, activation=activation_fn,
                                  kernel_initializer=tf.glorot_uniform_initializer(),
                                  name=scope)
            if dropout is not None and is_training:
                net = tf.layers.dropout(net, rate=dropout, training=True)
            if batch_norm:
                # TF builds the batch norm inside the hidden layer's scope.
                net = tf.layers.batch_normalization(net, momentum=0.999, training=is_training,
                                                    name=f"batchnorm_{layer_id}")
        add_layer_summary(net, scope.name)
    with tf.variable_scope("logits", values=(net,)) as scope:
        logits = tf.layers.dense(net, units, activation=None,
                                 kernel_initializer=tf.glorot_uniform_initializer(),
                                 name=scope)
    add_layer_summary(logits, scope.name)
    return logits


def _dnn_model_fn(features, labels, mode, head, hidden_units, feature_columns,
                  optimizer="Adagrad", activation_fn=None, dropout=None,
                  input_layer_partitioner=None, config=None, batch_norm=False):
    tf = _tf()
    optimizer = get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
    check_features(features)
    check_partitioner(input_layer_partitioner, "input_layer_partitioner")
    with tf.variable_scope("dnn", values=tuple(features.values())):
        logits = dnn_logits(features, mode, head.logits_dimension, hidden_units,
                            feature_columns, activation_fn or tf.nn.relu, dropout, batch_norm,
                            input_layer_partitioner)
        spec = head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                          optimizer=optimizer, logits=logits)
    return with_tf_checkpoint_names(spec, [optimizer], config)


class DNNClassifier(Estimator):
    """A classifier for TensorFlow DNN models (TF 1.15's `tf.estimator.DNNClassifier`).

    Example:
      sparse_feature_a = categorical_column_with_hash_bucket(...)
      sparse_feature_a_emb = embedding_column(sparse_feature_a, dimension=8)
      estimator = tf.estimator.DNNClassifier(
          feature_columns=[sparse_feature_a_emb, numeric_column("x")],
          hidden_units=[1024, 512, 256])
      estimator.train(input_fn=input_fn_train)
      metrics = estimator.evaluate(input_fn=input_fn_eval)
      predictions = estimator.predict(input_fn=input_fn_predict)

    Args:
      hidden_units: units per hidden layer, e.g. [64, 32].
      feature_columns: dense feature columns (embedding, indicator, numeric, bucketized).
      model_dir: where checkpoints and summaries go.
      n_classes: the number of label classes (>= 2).
      weight_column: a feature name or numeric_column giving example weights.
      label_vocabulary: string labels, in class-id order (else labels are integer ids).
      optimizer: an Optimizer, its name, or a callable returning one (Adagrad, 0.05).
      activation_fn: the hidden layers' activation (relu).
      dropout: the probability to drop a hidden unit in training.
      input_layer_partitioner: partitions the input layer's variables (embeddings).
      config: a RunConfig.
      warm_start_from: a checkpoint path or WarmStartSettings.
      loss_reduction: how the training loss reduces over the batch (the weighted sum).
      batch_norm: batch-normalise each hidden layer.

    Raises:
      ValueError: for n_classes < 2 or a bad loss_reduction.
    """

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, optimizer="Adagrad",
                 activation_fn=None, dropout=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction="weighted_sum", batch_norm=False):
        head = heads.binary_or_multi_class_head(n_classes, weight_column, label_vocabulary,
                                                loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _dnn_model_fn(features, labels, mode, head, hidden_units,
                                 tuple(feature_columns or []), optimizer, activation_fn,
                                 dropout, input_layer_partitioner, config, batch_norm)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class DNNRegressor(Estimator):
    """A regressor for TensorFlow DNN models (TF 1.15's `tf.estimator.DNNRegressor`).

    Args:
      hidden_units, feature_columns, model_dir, weight_column, optimizer, activation_fn,
      dropout, input_layer_partitioner, config, warm_start_from, loss_reduction, batch_norm:
        as for DNNClassifier.
      label_dimension: the number of regression targets per example.

    Raises:
      ValueError: for label_dimension < 1 or a bad loss_reduction.
    """

    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1,
                 weight_column=None, optimizer="Adagrad", activation_fn=None, dropout=None,
                 input_layer_partitioner=None, config=None, warm_start_from=None,
                 loss_reduction="weighted_sum", batch_norm=False):
        head = heads.regression_head(label_dimension, weight_column, loss_reduction)

        def _model_fn(features, labels, mode, config):
            return _dnn_model_fn(features, labels, mode, head, hidden_units,
                                 tuple(feature_columns or []), optimizer, activation_fn,
                                 dropout, input_layer_partitioner, config, batch_norm)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)
