"""`tf.estimator.EstimatorSpec`: what a `model_fn` returns, validated as TF validates it."""

import collections

from flowloom.estimator.mode_keys import ModeKeys

LOSS_METRIC_KEY = "loss"
AVERAGE_LOSS_METRIC_KEY = "average_loss"

_DEFAULT_GRAPH_ERROR = (
    '{0} with "{1}" must be from the default graph. '
    "Possible causes of this error include: \n\n"
    "1) {0} was created outside the context of the default graph."
    "\n\n"
    "2) The object passed through to EstimatorSpec was not created "
    'in the most recent call to "model_fn".')


class EstimatorSpec(collections.namedtuple("EstimatorSpec", [
        "mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs",
        "training_chief_hooks", "training_hooks", "scaffold", "evaluation_hooks",
        "prediction_hooks"])):
    """Ops and objects returned from a `model_fn` and passed to an `Estimator`.

    Depending on `mode`, different fields are required:
    * `TRAIN`: `loss` and `train_op`;
    * `EVAL`: `loss`;
    * `PREDICT`: `predictions`.

    Example:
      def my_model_fn(features, labels, mode):
          logits = tf.layers.dense(features["x"], 3)
          loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
          train_op = tf.train.AdamOptimizer().minimize(
              loss, global_step=tf.train.get_global_step())
          return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                            predictions={"logits": logits})

    Args:
      mode: a `ModeKeys` value.
      predictions: a Tensor or dict of Tensors.
      loss: a scalar (or one-element) Tensor.
      train_op: an Operation or Tensor that runs one training step.
      eval_metric_ops: dict of metric name -> `(value, update_op)` from `tf.metrics`.
      export_outputs: dict of signature key -> `ExportOutput` (PREDICT mode).
      training_chief_hooks, training_hooks, evaluation_hooks, prediction_hooks: hooks.
      scaffold: a `tf.train.Scaffold`.

    Raises:
      ValueError: a required field is missing, the loss is not scalar, or a tensor comes from
        another graph.
      TypeError: a field has the wrong type.
    """

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None,
                export_outputs=None, training_chief_hooks=None, training_hooks=None,
                scaffold=None, evaluation_hooks=None, prediction_hooks=None):
        train_op = _validate_train_op(train_op, mode)
        loss = _validate_loss(loss, mode)
        predictions = _validate_predictions(predictions, mode)
        if mode == ModeKeys.PREDICT:
            from flowloom.estimator.export.export_utils import get_export_outputs

            export_outputs = get_export_outputs(export_outputs, predictions)
        return super().__new__(
            cls, mode=mode, predictions=predictions, loss=loss, train_op=train_op,
            eval_metric_ops=_validate_eval_metric_ops(eval_metric_ops),
            export_outputs=export_outputs,
            training_chief_hooks=_validate_hooks(training_chief_hooks),
            training_hooks=_validate_hooks(training_hooks), scaffold=_validate_scaffold(scaffold),
            evaluation_hooks=_validate_hooks(evaluation_hooks),
            prediction_hooks=_validate_hooks(prediction_hooks))

    def _replace(self, **kwds):
        if "mode" in kwds and self.mode != kwds["mode"]:
            raise ValueError("mode of EstimatorSpec cannot be changed.")
        return EstimatorSpec(*map(kwds.pop, self._fields, list(self)))


def _default_graph():
    from flowloom.framework.graph import get_default_graph

    return get_default_graph()


def _is_tensor(x):
    from flowloom.framework.sparse_tensor import SparseTensor
    from flowloom.framework.ops import Tensor

    return isinstance(x, Tensor) and not isinstance(x, SparseTensor)


def _check_is_tensor(x, name):
    if not _is_tensor(x):
        raise TypeError(f"{name} must be Tensor, given: {x}")
    return x


def _validate_train_op(train_op, mode):
    from flowloom.framework.ops import Operation
    from flowloom.variables import Variable

    if train_op is None:
        if mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op.")
        return None
    if isinstance(train_op, Variable):
        train_op = train_op.op
    if not (isinstance(train_op, Operation) or _is_tensor(train_op)):
        raise TypeError(f"train_op must be Operation or Tensor, given: {train_op}")
    if train_op.graph is not _default_graph():
        raise ValueError(_DEFAULT_GRAPH_ERROR.format("train_op", train_op.name))
    return train_op


def _validate_loss(loss, mode):
    from flowloom.framework.tensor_shape import TensorShape

    if loss is None:
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise ValueError("Missing loss.")
        return None
    loss = _check_is_tensor(loss, "loss")
    shape = loss.get_shape()
    if shape.num_elements() not in (None, 1):
        raise ValueError(f"Loss must be scalar, given: {loss}")
    if not shape.is_compatible_with(TensorShape([])):
        from flowloom.ops.array.array_ops import reshape

        loss = reshape(loss, [])
    if loss.graph is not _default_graph():
        raise ValueError(_DEFAULT_GRAPH_ERROR.format("loss", loss.name))
    return loss


def _validate_predictions(predictions, mode):
    if predictions is None:
        if mode == ModeKeys.PREDICT:
            raise ValueError("Missing predictions.")
        return {}
    graph = _default_graph()
    if isinstance(predictions, dict):
        predictions = {k: _check_is_tensor(v, f"predictions[{k}]")
                       for k, v in predictions.items()}
        for key, value in predictions.items():
            if value.graph is not graph:
                raise ValueError(_DEFAULT_GRAPH_ERROR.format(
                    "prediction values", f"{key}: {value.name}"))
        return predictions
    predictions = _check_is_tensor(predictions, "predictions")
    if predictions.graph is not graph:
        raise ValueError(_DEFAULT_GRAPH_ERROR.format("prediction values", predictions.name))
    return predictions


def _validate_hooks(hooks):
    from flowloom.train.session_run_hook import SessionRunHook

    hooks = tuple(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook}")
    return hooks


def _validate_eval_metric_ops(eval_metric_ops):
    from flowloom.framework import nest

    if eval_metric_ops is None:
        return {}
    if not isinstance(eval_metric_ops, dict):
        raise TypeError(f"eval_metric_ops must be a dict, given: {eval_metric_ops}")
    for key, value in eval_metric_ops.items():
        if not isinstance(value, tuple) or len(value) != 2:
            raise TypeError("Values of eval_metric_ops must be (metric_value, update_op) "
                            f"tuples, given: {value} for key: {key}")
    graph = _default_graph()
    for key, value in eval_metric_ops.items():
        for val in nest.flatten(value):
            if val.graph is not graph:
                raise ValueError(_DEFAULT_GRAPH_ERROR.format(
                    "eval_metric_ops", f"{key}: {val.name}"))
    return eval_metric_ops


def _validate_scaffold(scaffold):
    from flowloom.train.scaffold import Scaffold

    scaffold = scaffold or Scaffold()
    if not isinstance(scaffold, Scaffold):
        raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold}")
    return scaffold


def call_logit_fn(logit_fn, features, mode, params, config):
    """Calls `logit_fn(features, [mode], [params], [config])`, passing only the arguments it
    takes; returns its logits (a Tensor or a dict of string -> Tensor).

    Raises:
      ValueError: the result is neither a Tensor nor such a dict.
    """
    from flowloom.estimator.util import fn_args

    args = fn_args(logit_fn)
    kwargs = {k: v for k, v in (("mode", mode), ("params", params), ("config", config))
              if k in args}
    result = logit_fn(features=features, **kwargs)
    valid_dict = isinstance(result, dict) and all(
        isinstance(k, str) and _is_tensor(v) for k, v in result.items())
    if not (valid_dict or _is_tensor(result)):
        raise ValueError("logit_fn should return a Tensor or a dictionary mapping strings to "
                         f"Tensors.  logit_fn returned: {result}")
    return result
