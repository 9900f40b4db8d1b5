"""Early stopping for Estimator training (`tf.estimator.experimental.stop_if_*_hook`): hooks
that read the evaluation summaries in `eval_dir` and stop training on a metric's value."""

import collections
import operator
import os

from flowloom.platform import tf_logging as logging
from flowloom.train.session_run_hook import SessionRunArgs, SessionRunHook
from flowloom.io import file_system

_EVENT_FILE_GLOB_PATTERN = "events.out.tfevents.*"


def make_early_stopping_hook(estimator, should_stop_fn, run_every_secs=60,
                             run_every_steps=None):
    """A hook that calls `should_stop_fn()` every `run_every_secs` seconds (or steps) and
    stops training when it returns True (the chief sets `signal_early_stopping/STOP`).

    Raises:
      TypeError: `estimator` is not an Estimator.
      ValueError: both `run_every_secs` and `run_every_steps`.
    """
    from flowloom.estimator.estimator import Estimator

    if not isinstance(estimator, Estimator):
        raise TypeError("`estimator` must have type `tf.estimator.Estimator`. "
                        f"Got: {type(estimator)}")
    if run_every_secs is not None and run_every_steps is not None:
        raise ValueError("Only one of `run_every_secs` and `run_every_steps` must be set.")
    if estimator.config.is_chief:
        return _StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps)
    return _CheckForStoppingHook()


def stop_if_higher_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0,
                        run_every_secs=60, run_every_steps=None):
    """Stops training once an evaluation (at step >= min_steps) has `metric_name` above
    `threshold`."""
    return _threshold_hook(estimator, metric_name, threshold, True, eval_dir, min_steps,
                           run_every_secs, run_every_steps)


def stop_if_lower_hook(estimator, metric_name, threshold, eval_dir=None, min_steps=0,
                       run_every_secs=60, run_every_steps=None):
    """Stops training once an evaluation has `metric_name` below `threshold`."""
    return _threshold_hook(estimator, metric_name, threshold, False, eval_dir, min_steps,
                           run_every_secs, run_every_steps)


def stop_if_no_increase_hook(estimator, metric_name, max_steps_without_increase,
                             eval_dir=None, min_steps=0, run_every_secs=60,
                             run_every_steps=None):
    """Stops training when `metric_name` has not increased for that many steps."""
    return _no_improvement_hook(estimator, metric_name, max_steps_without_increase, True,
                                eval_dir, min_steps, run_every_secs, run_every_steps)


def stop_if_no_decrease_hook(estimator, metric_name, max_steps_without_decrease,
                             eval_dir=None, min_steps=0, run_every_secs=60,
                             run_every_steps=None):
    """Stops training when `metric_name` has not decreased for that many steps."""
    return _no_improvement_hook(estimator, metric_name, max_steps_without_decrease, False,
                                eval_dir, min_steps, run_every_secs, run_every_steps)


def read_eval_metrics(eval_dir):
    """{global step: {tag: simple value}} of the evaluation summaries in `eval_dir`,
    ordered by step."""
    from flowloom.train.summary_io import summary_iterator

    by_step = collections.defaultdict(dict)
    if file_system.isdir_ok(eval_dir):
        for path in file_system.glob(os.path.join(eval_dir, _EVENT_FILE_GLOB_PATTERN)):
            for event in summary_iterator(path):
                if not event.HasField("summary"):
                    continue
                metrics = {v.tag: v.simple_value for v in event.summary.value
                           if v.HasField("simple_value")}
                if metrics:
                    by_step[event.step].update(metrics)
    return collections.OrderedDict(sorted(by_step.items(), key=lambda t: t[0]))


def _threshold_hook(estimator, metric_name, threshold, higher_is_better, eval_dir, min_steps,
                    run_every_secs, run_every_steps):
    eval_dir = eval_dir or estimator.eval_dir()
    better = operator.gt if higher_is_better else operator.lt
    word = "greater than" if higher_is_better else "less than"

    def should_stop():
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            val = metrics[metric_name]
            if better(val, threshold):
                logging.info('At step %s, metric "%s" has value %s which is %s the configured '
                             "threshold (%s) for early stopping.", step, metric_name, val,
                             word, threshold)
                return True
        return False
    return make_early_stopping_hook(estimator, should_stop, run_every_secs, run_every_steps)


def _no_improvement_hook(estimator, metric_name, max_steps, higher_is_better, eval_dir,
                         min_steps, run_every_secs, run_every_steps):
    eval_dir = eval_dir or estimator.eval_dir()
    better = operator.gt if higher_is_better else operator.lt
    word = "increase" if higher_is_better else "decrease"

    def should_stop():
        best_val = best_step = None
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            val = metrics[metric_name]
            if best_val is None or better(val, best_val):
                best_val, best_step = val, step
            if step - best_step >= max_steps:
                logging.info('No %s in metric "%s" for %s steps, which is greater than or equal '
                             "to max steps (%s) configured for early stopping.", word,
                             metric_name, step - best_step, max_steps)
                return True
        return False
    return make_early_stopping_hook(estimator, should_stop, run_every_secs, run_every_steps)


def _get_or_create_stop_var():
    from flowloom.framework import dtypes
    from flowloom.framework.graph import GraphKeys
    from flowloom.ops.state.init_ops import constant_initializer
    from flowloom.variable_scope import AUTO_REUSE, get_variable, variable_scope

    with variable_scope("signal_early_stopping", values=[], reuse=AUTO_REUSE):
        return get_variable("STOP", shape=[], dtype=dtypes.bool_,
                            initializer=constant_initializer(False),
                            collections=[GraphKeys.GLOBAL_VARIABLES], trainable=False)


class _StopOnPredicateHook(SessionRunHook):
    """Calls a predicate every N secs/steps; sets the STOP variable and stops when True."""

    def __init__(self, should_stop_fn, run_every_secs=60, run_every_steps=None):
        from flowloom.train.basic_session_run_hooks import SecondOrStepTimer

        if not callable(should_stop_fn):
            raise TypeError("`should_stop_fn` must be callable.")
        self._should_stop_fn = should_stop_fn
        self._timer = SecondOrStepTimer(every_secs=run_every_secs, every_steps=run_every_steps)

    def begin(self):
        from flowloom.ops.state.state_ops import assign
        from flowloom.train.training_util import get_global_step

        self._global_step_tensor = get_global_step()
        self._stop_var = _get_or_create_stop_var()
        self._stop_op = assign(self._stop_var, True)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        global_step = run_values.results
        if self._timer.should_trigger_for_step(global_step):
            self._timer.update_last_triggered_step(global_step)
            if self._should_stop_fn():
                logging.info("Requesting early stopping at global step %d", global_step)
                run_context.session.run(self._stop_op)
                run_context.request_stop()


class _CheckForStoppingHook(SessionRunHook):
    """A non-chief worker's side: stops when the chief has set the STOP variable."""

    def begin(self):
        self._stop_var = _get_or_create_stop_var()

    def before_run(self, run_context):
        return SessionRunArgs(self._stop_var)

    def after_run(self, run_context, run_values):
        if run_values.results:
            logging.info("Early stopping requested, suspending run.")
            run_context.request_stop()
