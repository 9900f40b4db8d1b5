"""`tf.estimator.train_and_evaluate` (local mode) with `TrainSpec` and `EvalSpec`: train,
evaluating (and exporting) after each new checkpoint, at most every `throttle_secs`."""

import collections
import os

from flowloom.platform import tf_logging as logging
from flowloom.train.basic_session_run_hooks import CheckpointSaverListener


def _validate_input_fn(input_fn):
    if not callable(input_fn):
        raise TypeError(f"`input_fn` must be callable, given: {input_fn}")


def _validate_hooks(hooks):
    from flowloom.train.session_run_hook import SessionRunHook

    hooks = tuple(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"All hooks must be `SessionRunHook` instances, given: {hook}")
    return hooks


def _validate_exporters(exporters):
    from flowloom.estimator.exporter import Exporter

    if not exporters:
        return ()
    if isinstance(exporters, Exporter):
        exporters = [exporters]
    unique_names = []
    try:
        for exporter in exporters:
            if not isinstance(exporter, Exporter):
                raise TypeError
            names = [e.name for e in exporters]
            if not exporter.name:
                raise ValueError("An Exporter cannot have a name that is `None` or empty. All "
                                 f"exporter names: {names}")
            if not isinstance(exporter.name, str):
                raise ValueError("An Exporter must have a string name. Given: "
                                 f"{type(exporter.name)}")
            if exporter.name in unique_names:
                raise ValueError("`exporters` must have unique names. Such a name cannot be "
                                 f"`None`. All exporter names: {names}")
            unique_names.append(exporter.name)
    except TypeError:
        raise TypeError("`exporters` must be an Exporter, an iterable of Exporter, or `None`,"
                        f" found {exporters}.") from None
    return tuple(exporters)


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks"])):
    """The training half of `train_and_evaluate`.

    Args:
      input_fn: the training input_fn.
      max_steps: train until the global step reaches this (None: until the input ends).
      hooks: more training hooks.

    Raises:
      TypeError: `input_fn` not callable or a hook of the wrong type.
      ValueError: `max_steps` <= 0.
    """

    def __new__(cls, input_fn, max_steps=None, hooks=None):
        _validate_input_fn(input_fn)
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(cls, input_fn=input_fn, max_steps=max_steps,
                               hooks=_validate_hooks(hooks))


class EvalSpec(collections.namedtuple("EvalSpec", [
        "input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs",
        "throttle_secs"])):
    """The evaluation half of `train_and_evaluate`.

    Args:
      input_fn: the evaluation input_fn.
      steps: batches per evaluation (None: until the input ends).
      name: evaluations go to `model_dir/eval_<name>`.
      hooks: evaluation hooks.
      exporters: `Exporter`s run after each evaluation.
      start_delay_secs: (distributed evaluator only) wait before the first evaluation.
      throttle_secs: evaluate a new checkpoint at most this often.

    Raises:
      TypeError, ValueError: as TF's EvalSpec.
    """

    def __new__(cls, input_fn, steps=100, name=None, hooks=None, exporters=None,
                start_delay_secs=120, throttle_secs=600):
        _validate_input_fn(input_fn)
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name}")
        hooks = _validate_hooks(hooks)
        exporters = _validate_exporters(exporters)
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        return super().__new__(cls, input_fn=input_fn, steps=steps, name=name, hooks=hooks,
                               exporters=exporters, start_delay_secs=start_delay_secs,
                               throttle_secs=throttle_secs)


def train_and_evaluate(estimator, train_spec, eval_spec):
    """Trains and evaluates `estimator`: locally, evaluating after every checkpoint (at most
    every `eval_spec.throttle_secs`) and once at the end.

    Returns:
      (metrics of the last evaluation, results of the exporters), or (None, None) when no
      evaluation ran.

    Raises:
      TypeError: arguments of the wrong type.
      NotImplementedError: a distributed configuration (TF_CONFIG cluster).
    """
    from flowloom.estimator.estimator import Estimator
    from flowloom.estimator.run_config import TaskType

    if not isinstance(eval_spec, EvalSpec):
        raise TypeError("`eval_spec` must have type `tf.estimator.EvalSpec`. "
                        f"Got: {type(eval_spec)}")
    if not isinstance(estimator, Estimator):
        raise TypeError("`estimator` must have type `tf.estimator.Estimator`. "
                        f"Got: {type(estimator)}")
    if not isinstance(train_spec, TrainSpec):
        raise TypeError("`train_spec` must have type `tf.estimator.TrainSpec`. "
                        f"Got: {type(train_spec)}")
    config = estimator.config
    if config.cluster_spec or config.task_type == TaskType.EVALUATOR:
        raise NotImplementedError("train_and_evaluate in distributed mode (chief, worker, "
                                  "ps and evaluator tasks)")
    logging.info("Running training and evaluation locally (non-distributed).")
    logging.info("Start train and evaluate loop. The evaluate will happen after every "
                 "checkpoint. Checkpoint frequency is determined based on RunConfig "
                 "arguments: save_checkpoints_steps {} or save_checkpoints_secs {}.".format(
                     config.save_checkpoints_steps, config.save_checkpoints_secs))
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    listener = _NewCheckpointListenerForEvaluate(evaluator, eval_spec.throttle_secs)
    estimator.train(input_fn=train_spec.input_fn, max_steps=train_spec.max_steps,
                    hooks=list(train_spec.hooks), saving_listeners=[listener])
    metrics = listener.eval_result.metrics if listener.eval_result else None
    return metrics, listener.export_results


_EvalResult = collections.namedtuple("_EvalResult", ["status", "metrics", "checkpoint_path"])
_EVALUATED, _MISSING_CHECKPOINT, _NO_NEW_CHECKPOINT = (
    "evaluated", "missing checkpoint", "no new checkpoint")


class _Evaluator:
    """Evaluates the latest checkpoint once (skipping one already evaluated), then runs the
    exporters on the result."""

    def __init__(self, estimator, eval_spec, max_training_steps):
        self._estimator = estimator
        self._eval_spec = eval_spec
        self._max_training_steps = max_training_steps
        self._previous_ckpt_path = None

    def evaluate_and_export(self):
        latest = self._estimator.latest_checkpoint()
        if not latest:
            logging.warning("Estimator is not trained yet. Will start an evaluation when a "
                            "checkpoint is ready.")
            return _EvalResult(_MISSING_CHECKPOINT, None, None), []
        if latest == self._previous_ckpt_path:
            logging.warning("No new checkpoint ready for evaluation. Skip the current "
                            "evaluation pass as evaluation results are expected to be same "
                            "for the same checkpoint.")
            return _EvalResult(_NO_NEW_CHECKPOINT, None, None), []
        metrics = self._estimator.evaluate(input_fn=self._eval_spec.input_fn,
                                           steps=self._eval_spec.steps,
                                           name=self._eval_spec.name, checkpoint_path=latest,
                                           hooks=self._eval_spec.hooks)
        result = _EvalResult(_EVALUATED, metrics, latest)
        is_final = (result.metrics["global_step"] >= self._max_training_steps
                    if self._max_training_steps else False)
        export_dir_base = os.path.join(str(self._estimator.model_dir), "export")
        exports = [exporter.export(estimator=self._estimator,
                                   export_path=os.path.join(export_dir_base, exporter.name),
                                   checkpoint_path=latest, eval_result=metrics,
                                   is_the_final_export=is_final)
                   for exporter in self._eval_spec.exporters]
        self._previous_ckpt_path = latest
        return result, exports


class _NewCheckpointListenerForEvaluate(CheckpointSaverListener):
    """Evaluates after each checkpoint but the first (the step-0 one), throttled, and at the
    end of training when the last checkpoint was not evaluated."""

    def __init__(self, evaluator, eval_throttle_secs):
        self._evaluator = evaluator
        self._eval_throttle_secs = eval_throttle_secs
        self.eval_result, self.export_results = None, None

    def begin(self):
        from flowloom.train.basic_session_run_hooks import SecondOrStepTimer

        self._timer = SecondOrStepTimer(every_secs=self._eval_throttle_secs)
        self._is_first_run = True

    def after_save(self, session, global_step_value):
        del session
        if self._is_first_run:
            self._is_first_run = False
            return False
        if self._timer.should_trigger_for_step(global_step_value):
            self._evaluate(global_step_value)
        else:
            logging.info("Skip the current checkpoint eval due to throttle secs "
                         f"({self._eval_throttle_secs} secs).")
        return False

    def end(self, session, global_step_value):
        if global_step_value != self._timer.last_triggered_step():
            self._evaluate(global_step_value)

    def _evaluate(self, global_step_value):
        self._timer.update_last_triggered_step(global_step_value)
        self.eval_result, self.export_results = self._evaluator.evaluate_and_export()
        if self.eval_result.status != _EVALUATED:
            raise RuntimeError("There was no new checkpoint after the training. Eval status: "
                               f"{self.eval_result.status}")
