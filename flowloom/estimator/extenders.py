"""`tf.estimator.add_metrics`: an Estimator whose evaluation also computes more metrics."""

from flowloom.estimator.mode_keys import ModeKeys
from flowloom.estimator.util import fn_args

_VALID_METRIC_FN_ARGS = {"features", "labels", "predictions", "config"}


def add_metrics(estimator, metric_fn):
    """A new Estimator over `estimator`'s model_fn and model_dir whose EVAL spec adds the
    metrics `metric_fn` returns.

    Example:
      def my_auc(labels, predictions):
          return {"auc": tf.metrics.auc(labels, predictions["logistic"])}
      estimator = tf.estimator.add_metrics(estimator, my_auc)

    Args:
      estimator: a `tf.estimator.Estimator`.
      metric_fn: takes any of `features`, `labels`, `predictions`, `config`; returns a dict of
        metric name -> (value, update_op).

    Raises:
      ValueError: `metric_fn` takes other arguments.
    """
    from flowloom.estimator.estimator import Estimator

    invalid = list(set(fn_args(metric_fn)) - _VALID_METRIC_FN_ARGS)
    if invalid:
        raise ValueError("metric_fn (%s) has following not expected args: %s"
                         % (metric_fn, invalid))

    def new_model_fn(features, labels, mode, config):
        spec = estimator.model_fn(features, labels, mode, config)
        if mode != ModeKeys.EVAL:
            return spec
        args = fn_args(metric_fn)
        kwargs = {k: v for k, v in (("features", features), ("labels", labels),
                                    ("predictions", spec.predictions), ("config", config))
                  if k in args}
        all_metrics = spec.eval_metric_ops or {}
        all_metrics.update(metric_fn(**kwargs))
        return spec._replace(eval_metric_ops=all_metrics)
    return Estimator(model_fn=new_model_fn, model_dir=estimator.model_dir,
                     config=estimator.config, warm_start_from=estimator._warm_start_settings)
