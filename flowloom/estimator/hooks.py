"""Estimator-specific hooks (`tf.estimator.experimental.make_stop_at_checkpoint_step_hook`,
`InMemoryEvaluatorHook`)."""

import time

from flowloom.train.session_run_hook import SessionRunArgs, SessionRunHook


class _StopAtCheckpointStepHook(SessionRunHook):
    """A non-chief's stop: once its global step reaches `last_step`, stops when the chief's
    latest checkpoint is at `last_step` too (else waits and checks again)."""

    def __init__(self, model_dir, last_step, wait_after_file_check_secs=30):
        if last_step is None:
            raise ValueError("last_step must be specified.")
        if model_dir is None:
            raise ValueError("model_dir must be specified.")
        self._model_dir = model_dir
        self._last_step = last_step
        self._wait_after_file_check_secs = wait_after_file_check_secs

    def begin(self):
        from flowloom.train.basic_session_run_hooks import global_step_read_tensor

        self._global_step_tensor = global_step_read_tensor()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use StopAtCheckpointStepHook.")

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        from flowloom.estimator.estimator import _load_global_step_from_checkpoint_dir

        if run_values.results + 1 >= self._last_step:
            if _load_global_step_from_checkpoint_dir(self._model_dir) >= self._last_step:
                run_context.request_stop()
            else:
                time.sleep(self._wait_after_file_check_secs)


def make_stop_at_checkpoint_step_hook(estimator, last_step, wait_after_file_check_secs=30):
    """The chief's `StopAtStepHook(last_step)`, or for other workers a hook that stops when
    the chief's checkpoint reaches `last_step`."""
    from flowloom.train.basic_session_run_hooks import StopAtStepHook

    if estimator.config.is_chief:
        return StopAtStepHook(last_step=last_step)
    return _StopAtCheckpointStepHook(estimator.model_dir, last_step, wait_after_file_check_secs)


class InMemoryEvaluatorHook(SessionRunHook):
    """Evaluation inside the training session (TF's `InMemoryEvaluatorHook`).

    Raises:
      NotImplementedError: always; flowloom does not build the evaluation graph next to the
        training graph yet. Evaluate with `Estimator.evaluate` or `train_and_evaluate`.
    """

    def __init__(self, estimator, input_fn, steps=None, hooks=None, name=None,
                 every_n_iter=100):
        raise NotImplementedError("tf.estimator.experimental.InMemoryEvaluatorHook (evaluation "
                                  "inside the training session)")
