"""One evaluation pass over a checkpoint (TF's `training/evaluation.py`): restore, run the
metric update ops until a hook or the input stops, then read the metric values."""

import math
import time

from flowloom.platform import tf_logging as _log
from flowloom.train.session_run_hook import SessionRunArgs, SessionRunHook


def _get_or_create_eval_step():
    """The `eval_step` local int64 variable (collection EVAL_STEP) counting evaluation runs.

    Raises:
      ValueError: the EVAL_STEP collection holds more than one tensor.
    """
    from flowloom.framework import dtypes
    from flowloom.framework.graph import GraphKeys, get_default_graph
    from flowloom.ops.state.init_ops import zeros_initializer
    from flowloom.variable_scope import get_variable

    eval_steps = get_default_graph().get_collection(GraphKeys.EVAL_STEP)
    if len(eval_steps) == 1:
        return eval_steps[0]
    if len(eval_steps) > 1:
        raise ValueError("Multiple tensors added to tf.GraphKeys.EVAL_STEP")
    return get_variable("eval_step", shape=[], dtype=dtypes.int64,
                        initializer=zeros_initializer(), trainable=False,
                        collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.EVAL_STEP])


def _get_latest_eval_step_value(update_ops):
    """The eval step read after `update_ops` ran."""
    from flowloom.framework.graph import control_dependencies
    from flowloom.ops.array.array_ops import identity

    if isinstance(update_ops, dict):
        update_ops = list(update_ops.values())
    with control_dependencies(update_ops):
        return identity(_get_or_create_eval_step().read_value())


class _StopAfterNEvalsHook(SessionRunHook):
    """Requests a stop after `num_evals` evaluation runs; logs `Evaluation [i/n]`."""

    def __init__(self, num_evals, log_progress=True):
        self._num_evals = num_evals
        self._evals_completed = None
        self._log_progress = log_progress
        self._log_frequency = (1 if (num_evals is None or num_evals < 20)
                               else math.floor(num_evals / 10.))

    def _set_evals_completed_tensor(self, updated_eval_step):
        self._evals_completed = updated_eval_step

    def before_run(self, run_context):
        return SessionRunArgs({"evals_completed": self._evals_completed})

    def after_run(self, run_context, run_values):
        evals_completed = run_values.results["evals_completed"]
        if self._log_progress:
            if self._num_evals is None:
                _log.info("Evaluation [%d]", evals_completed)
            elif (evals_completed % self._log_frequency == 0
                  or self._num_evals == evals_completed):
                _log.info("Evaluation [%d/%d]", evals_completed, self._num_evals)
        if self._num_evals is not None and evals_completed >= self._num_evals:
            run_context.request_stop()


def _evaluate_once(checkpoint_path, master="", scaffold=None, eval_ops=None, feed_dict=None,
                   final_ops=None, final_ops_feed_dict=None, hooks=None, config=None):
    """Restores `checkpoint_path` (or initializes when None), runs `eval_ops` until a hook
    stops or the input ends, then runs `final_ops`; returns their values."""
    from flowloom.ops.state.state_ops import assign_add
    from flowloom.train.basic_session_run_hooks import FinalOpsHook
    from flowloom.train.monitored_session import ChiefSessionCreator, MonitoredSession

    eval_step = _get_or_create_eval_step()
    hooks = list(hooks or [])
    if eval_ops is not None:
        update_eval_step = assign_add(eval_step, 1, use_locking=True)
        if isinstance(eval_ops, dict):
            eval_ops["update_eval_step"] = update_eval_step
        elif isinstance(eval_ops, (tuple, list)):
            eval_ops = list(eval_ops) + [update_eval_step]
        else:
            eval_ops = [eval_ops, update_eval_step]
        eval_step_value = _get_latest_eval_step_value(eval_ops)
        for h in hooks:
            if isinstance(h, _StopAfterNEvalsHook):
                h._set_evals_completed_tensor(eval_step_value)
    _log.info("Starting evaluation at " + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.localtime()))
    session_creator = ChiefSessionCreator(scaffold=scaffold,
                                          checkpoint_filename_with_path=checkpoint_path,
                                          master=master, config=config)
    final_ops_hook = FinalOpsHook(final_ops, final_ops_feed_dict)
    hooks.append(final_ops_hook)
    with MonitoredSession(session_creator=session_creator, hooks=hooks) as session:
        if eval_ops is not None:
            while not session.should_stop():
                session.run(eval_ops, feed_dict)
    _log.info("Finished evaluation at " + time.strftime("%Y-%m-%d-%H:%M:%S", time.localtime()))
    return final_ops_hook.final_ops_values
