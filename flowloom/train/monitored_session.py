"""`tf.train.MonitoredSession`, `SingularMonitoredSession` and `MonitoredTrainingSession`.

A monitored session is a stack of wrappers around a plain Session, as in TF:

  _RecoverableSession      re-creates the session after a preemption (AbortedError)
    _CoordinatedSession    a Coordinator for the queue-runner threads; their errors surface
      _HookedSession       runs the hooks' before_run/after_run around every run
        Session

Creating it calls `begin()` on every hook, creates the session (restoring the latest
checkpoint, or initializing), starts the queue runners and calls `after_create_session`.
Leaving the `with` block calls `end()` on every hook (unless an error is propagating) and
joins the threads; OutOfRangeError (the input is exhausted) ends the block cleanly.
"""

import logging
import sys

from flowloom.framework import errors
from flowloom.framework.graph import GraphKeys, get_collection, get_default_graph
from flowloom.train import basic_session_run_hooks as hooks_lib
from flowloom.train.coordinator import Coordinator
from flowloom.train.queue_runner import start_queue_runners
from flowloom.train.scaffold import Scaffold
from flowloom.train.session_manager import SessionManager
from flowloom.train.session_run_hook import SessionRunArgs, SessionRunContext, \
    SessionRunValues

_log = logging.getLogger("tensorflow")  # TF logs these lines on its logger
_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)
USE_DEFAULT = object()


class SessionCreator:
    """Creates a session (`create_session()`)."""

    def create_session(self):
        raise NotImplementedError("create_session is not implemented for "
                                  f"{type(self).__name__}.")


class ChiefSessionCreator(SessionCreator):
    """Creates a session that restores the latest checkpoint of `checkpoint_dir` or
    initializes the model (the chief's creator)."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._session_manager = None
        self._master = master
        self._config = config

    def _get_session_manager(self):
        if self._session_manager is None:
            self._session_manager = SessionManager(
                local_init_op=self._scaffold.local_init_op, ready_op=self._scaffold.ready_op,
                ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=get_default_graph())
        return self._session_manager

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master, saver=self._scaffold.saver, checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path,
            config=self._config, init_op=self._scaffold.init_op,
            init_feed_dict=self._scaffold.init_feed_dict, init_fn=self._scaffold.init_fn)


class WorkerSessionCreator(SessionCreator):
    """Creates a session that waits until the chief has initialized the model."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        self._scaffold = scaffold or Scaffold()
        self._session_manager = None
        self._master = master
        self._config = config
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        self._scaffold.finalize()
        if self._session_manager is None:
            self._session_manager = SessionManager(
                local_init_op=self._scaffold.local_init_op, ready_op=self._scaffold.ready_op,
                ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=get_default_graph())
        return self._session_manager.wait_for_session(self._master, config=self._config,
                                                      max_wait_secs=self._max_wait_secs)


class _WrappedSession:
    """A session wrapper that forwards runs and knows when to stop."""

    def __init__(self, sess):
        self._sess = sess
        self._wrapped_is_stoppable = isinstance(sess, _WrappedSession)

    @property
    def graph(self):
        return self._sess.graph

    @property
    def sess_str(self):
        return self._sess.sess_str

    def as_default(self):
        return self._sess.as_default()

    def _check_stop(self):
        return False

    def should_stop(self):
        if self._check_stop():
            return True
        if self._sess:
            return self._wrapped_is_stoppable and self._sess.should_stop()
        return True

    def close(self):
        if self._sess:
            try:
                self._sess.close()
            except _PREEMPTION_ERRORS as e:
                _log.error("An error occurred when attempting to close the session. This may "
                           "be due to a preemption in a connected worker or parameter server. "
                           "Error: %s", e)
            finally:
                self._sess = None

    def run(self, *args, **kwargs):
        return self._sess.run(*args, **kwargs)

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        """Calls `step_fn` with a StepContext whose run_with_hooks runs this session (or
        `run_with_hooks`, when a wrapper above passes its own)."""
        run_with_hooks = run_with_hooks or self.run
        return step_fn(_MonitoredSession.StepContext(raw_session, run_with_hooks))


class _RecoverableSession(_WrappedSession):
    """Re-creates its session when a run or a stop check fails with a preemption error."""

    def __init__(self, sess_creator):
        self._sess_creator = sess_creator
        super().__init__(self._create_session())

    def _create_session(self):
        while True:
            try:
                return self._sess_creator.create_session()
            except _PREEMPTION_ERRORS as e:
                _log.info("An error was raised while a session was being created. A new "
                          "session will be created. Error: %s", e)

    def _check_stop(self):
        try:
            if self._sess:
                return self._sess._check_stop()
            return True
        except _PREEMPTION_ERRORS as e:
            _log.info("An error was raised while considering whether the session is complete. "
                      "A new session will be created. Error: %s", e)
            self.close()
            self._sess = self._create_session()
            return False
        except Exception:  # noqa: BLE001 - as TF: a failed stop check means stop; the
            # error is raised again when the session is closed (the coordinator's join)
            return True

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return self._sess.run(fetches, feed_dict=feed_dict, options=options,
                                      run_metadata=run_metadata)
            except _PREEMPTION_ERRORS as e:
                _log.info("An error was raised. A new session will be created. Error: %s", e)
                self.close()
                self._sess = None

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        """Runs `step_fn`, re-creating the session and calling it again after a preemption
        error (raised inside it or by its hooked runs)."""
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                run_with_hooks = self._sess.run
                return self._sess.run_step_fn(step_fn, raw_session, run_with_hooks)
            except _PREEMPTION_ERRORS as e:
                _log.info("An error was raised. A new session will be created. Error: %s", e)
                self.close()
                self._sess = None


class _CoordinatedSession(_WrappedSession):
    """Stops when its coordinator does, and re-raises the threads' errors on run/stop checks."""

    def __init__(self, sess, coord, stop_grace_period_secs=120):
        super().__init__(sess)
        self._coord = coord
        self._stop_grace_period_secs = stop_grace_period_secs

    def _check_stop(self):
        self._coord.raise_requested_exception()
        return self._coord.should_stop()

    def close(self):
        self._coord.request_stop()
        try:
            self._coord.join(stop_grace_period_secs=self._stop_grace_period_secs,
                             ignore_live_threads=True)
        finally:
            try:
                _WrappedSession.close(self)
            except Exception:  # noqa: BLE001 - TF ignores errors closing here
                pass

    def run(self, *args, **kwargs):
        try:
            return self._sess.run(*args, **kwargs)
        except _PREEMPTION_ERRORS:
            raise
        except Exception:
            # A thread's error (reported to the coordinator) may be the root cause.
            original = sys.exc_info()
            try:
                self._coord.raise_requested_exception()
            except _PREEMPTION_ERRORS:
                raise
            except Exception:
                raise original[1].with_traceback(original[2]) from None
            raise original[1].with_traceback(original[2])


def _merge_run_options(options, incoming):
    options.trace_level = max(options.trace_level, incoming.trace_level)
    options.timeout_in_ms = max(options.timeout_in_ms, incoming.timeout_in_ms)
    options.inter_op_thread_pool = max(options.inter_op_thread_pool,
                                       incoming.inter_op_thread_pool)
    options.output_partition_graphs = max(options.output_partition_graphs,
                                          incoming.output_partition_graphs)
    options.debug_options.debug_tensor_watch_opts.extend(
        incoming.debug_options.debug_tensor_watch_opts)
    options.debug_options.reset_disk_byte_usage = (
        options.debug_options.reset_disk_byte_usage or
        incoming.debug_options.reset_disk_byte_usage)
    options.report_tensor_allocations_upon_oom = (
        options.report_tensor_allocations_upon_oom or
        incoming.report_tensor_allocations_upon_oom)


class _HookedSession(_WrappedSession):
    """Calls the hooks around each run: their fetches and feeds join the caller's."""

    def __init__(self, sess, hooks):
        super().__init__(sess)
        self._hooks = hooks
        self._should_stop = False

    def _check_stop(self):
        return self._should_stop

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        from flowloom.proto.config_pb2 import RunMetadata, RunOptions

        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        actual_fetches = {"caller": fetches}
        run_context = SessionRunContext(original_args=SessionRunArgs(fetches, feed_dict),
                                        session=self._sess)
        options = options or RunOptions()
        feed_dict = self._call_hook_before_run(run_context, actual_fetches, feed_dict, options)
        run_metadata = run_metadata or RunMetadata()
        outputs = _WrappedSession.run(self, fetches=actual_fetches, feed_dict=feed_dict,
                                      options=options, run_metadata=run_metadata)
        for hook in self._hooks:
            hook.after_run(run_context, SessionRunValues(
                results=outputs[hook] if hook in outputs else None, options=options,
                run_metadata=run_metadata))
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]

    def _call_hook_before_run(self, run_context, fetch_dict, user_feed_dict, options):
        hook_feeds = {}
        for hook in self._hooks:
            request = hook.before_run(run_context)
            if request is not None:
                if request.fetches is not None:
                    fetch_dict[hook] = request.fetches
                if request.feed_dict:
                    _raise_if_feeds_intersect(hook_feeds, request.feed_dict,
                                              "Same tensor is fed by two hooks.")
                    hook_feeds.update(request.feed_dict)
                if request.options:
                    _merge_run_options(options, request.options)
        if not hook_feeds:
            return user_feed_dict
        if not user_feed_dict:
            return hook_feeds
        _raise_if_feeds_intersect(user_feed_dict, hook_feeds,
                                  "Same tensor is fed by a SessionRunHook and user.")
        hook_feeds.update(user_feed_dict)
        return hook_feeds


def _raise_if_feeds_intersect(feeds1, feeds2, message):
    intersection = set(feeds1.keys()) & set(feeds2.keys())
    if intersection:
        raise RuntimeError(message + f" Conflict(s): {list(intersection)}")


class _MonitoredSession:
    """What MonitoredSession and SingularMonitoredSession share."""

    def __init__(self, session_creator, hooks, should_recover, stop_grace_period_secs=120):
        self._graph_was_finalized = get_default_graph().finalized
        self._hooks = list(hooks or [])
        for h in self._hooks:
            h.begin()
        self._coordinated_creator = self._CoordinatedSessionCreator(
            session_creator=session_creator or ChiefSessionCreator(), hooks=self._hooks,
            stop_grace_period_secs=stop_grace_period_secs)
        if should_recover:
            self._sess = _RecoverableSession(self._coordinated_creator)
        else:
            self._sess = self._coordinated_creator.create_session()

    @property
    def graph(self):
        """The graph that was launched in this session."""
        if self._tf_sess() is None:
            return None
        return self._tf_sess().graph

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs `fetches` like Session.run, with the hooks around the run."""
        return self._sess.run(fetches, feed_dict=feed_dict, options=options,
                              run_metadata=run_metadata)

    def run_step_fn(self, step_fn):
        """Runs ops through a step function.

        Args:
          step_fn: A function of one argument `step_context` (a `StepContext`), or a method
            of `self` and `step_context`. It may run the raw session
            (`step_context.session`) or runs with the hooks (`step_context.run_with_hooks`),
            and call `step_context.request_stop()` to end the loop.

        Returns:
          What `step_fn` returns.

        Raises:
          StopIteration: When `step_fn` called request_stop() (a `with MonitoredSession()`
            block ends cleanly on it).
          ValueError: When `step_fn` has other arguments.
        """
        import inspect

        params = list(inspect.signature(step_fn).parameters)
        if inspect.ismethod(step_fn):
            params = ["self"] + params
        if params not in (["step_context"], ["self", "step_context"]):
            raise ValueError("`step_fn` may either have one `step_context` argument, or `self` "
                             "and `step_context` arguments if it's an instance method. Got "
                             f"{tuple(params)} instead.")
        # The runs with hooks go through the coordinated (and, if recoverable, re-created)
        # session, so preemption errors inside step_fn reach the recoverable session.
        return self._sess.run_step_fn(step_fn, self._tf_sess(), run_with_hooks=None)

    class StepContext:
        """What `step_fn` of run_step_fn() gets: the raw session, runs with hooks, stop."""

        def __init__(self, session, run_with_hooks_fn):
            self._session = session
            self._run_with_hooks_fn = run_with_hooks_fn

        @property
        def session(self):
            """The raw `tf.Session` (runs without the hooks)."""
            return self._session

        def run_with_hooks(self, *args, **kwargs):
            """Session.run with the hooks' before_run/after_run around it."""
            return self._run_with_hooks_fn(*args, **kwargs)

        def request_stop(self):
            """Ends the loop: raises StopIteration, after which should_stop() is True.

            Raises:
              StopIteration: Always.
            """
            raise StopIteration("step_fn has requested the iterations to stop.")

    def should_stop(self):
        return self._sess is None or self._sess.should_stop()

    def close(self):
        self._close_internal()

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        self._close_internal(exception_type)
        # True suppresses the exception (the input ran out: the loop ends cleanly).
        return exception_type is None

    class _CoordinatedSessionCreator(SessionCreator):
        def __init__(self, session_creator, hooks, stop_grace_period_secs):
            self._session_creator = session_creator
            self._hooks = hooks
            self.coord = None
            self.tf_sess = None
            self._stop_grace_period_secs = stop_grace_period_secs

        def create_session(self):
            self.tf_sess = self._session_creator.create_session()
            # The coordinator reports every thread error, OutOfRangeError included.
            self.coord = Coordinator(clean_stop_exception_types=[])
            if get_collection(GraphKeys.QUEUE_RUNNERS):
                start_queue_runners(sess=self.tf_sess, coord=self.coord)
            for hook in self._hooks:
                hook.after_create_session(self.tf_sess, self.coord)
            return _CoordinatedSession(_HookedSession(self.tf_sess, self._hooks), self.coord,
                                       self._stop_grace_period_secs)

    def _close_internal(self, exception_type=None):
        try:
            if not exception_type:
                for h in self._hooks:
                    h.end(self._coordinated_creator.tf_sess)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                self._sess.close()
            finally:
                self._sess = None
                self._coordinated_creator.tf_sess = None
                self._coordinated_creator.coord = None
                if not self._graph_was_finalized:
                    get_default_graph()._unsafe_unfinalize()

    def _is_closed(self):
        return self._sess is None

    def _tf_sess(self):
        return self._coordinated_creator.tf_sess


class MonitoredSession(_MonitoredSession):
    """A session-like object that handles initialization, recovery and hooks.

    Example:
      with tf.train.MonitoredSession(session_creator=ChiefSessionCreator(...),
                                     hooks=[tf.train.StopAtStepHook(last_step=1000)]) as sess:
          while not sess.should_stop():
              sess.run(train_op)
    """

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super().__init__(session_creator, hooks, should_recover=True,
                         stop_grace_period_secs=stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSession):
    """A MonitoredSession for a single process (no recovery); `raw_session()` gives the
    underlying Session."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        session_creator = ChiefSessionCreator(
            scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(session_creator, hooks, should_recover=False,
                         stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self):
        return self._tf_sess()


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None,  # noqa: N802
                             scaffold=None, hooks=None, chief_only_hooks=None,
                             save_checkpoint_secs=USE_DEFAULT, save_summaries_steps=USE_DEFAULT,
                             save_summaries_secs=USE_DEFAULT, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100,
                             max_wait_secs=7200, save_checkpoint_steps=USE_DEFAULT,
                             summary_dir=None):
    """A MonitoredSession for training: restores from or saves checkpoints in
    `checkpoint_dir`, writes summaries and steps/sec there, and runs `hooks`.

    Defaults (TF's): a checkpoint every 600 s, summaries every 100 steps, steps/sec logged
    every 100 steps. The chief adds `chief_only_hooks` and the saving hooks; the other
    workers wait for the chief to initialize the model.

    Example:
      with tf.train.MonitoredTrainingSession(
              checkpoint_dir="/tmp/train", hooks=[tf.train.StopAtStepHook(last_step=1000)]
      ) as sess:
          while not sess.should_stop():
              sess.run(train_op)

    Returns:
      A MonitoredSession.
    """
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    scaffold = scaffold or Scaffold()
    if not is_chief:
        session_creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config,
                                               max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=session_creator, hooks=hooks or [],
                                stop_grace_period_secs=stop_grace_period_secs)
    all_hooks = list(chief_only_hooks or [])
    session_creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir,
                                          master=master, config=config)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(hooks_lib.StepCounterHook(output_dir=summary_dir,
                                                       every_n_steps=log_step_count_steps))
        if ((save_summaries_steps and save_summaries_steps > 0) or
                (save_summaries_secs and save_summaries_secs > 0)):
            all_hooks.append(hooks_lib.SummarySaverHook(
                scaffold=scaffold, save_steps=save_summaries_steps,
                save_secs=save_summaries_secs, output_dir=summary_dir))
    if checkpoint_dir:
        if ((save_checkpoint_secs and save_checkpoint_secs > 0) or
                (save_checkpoint_steps and save_checkpoint_steps > 0)):
            all_hooks.append(hooks_lib.CheckpointSaverHook(
                checkpoint_dir, save_steps=save_checkpoint_steps,
                save_secs=save_checkpoint_secs, scaffold=scaffold))
    if hooks:
        all_hooks.extend(hooks)
    _add_progress_bar(all_hooks)
    return MonitoredSession(session_creator=session_creator, hooks=all_hooks,
                            stop_grace_period_secs=stop_grace_period_secs)


def _add_progress_bar(hooks):
    """A progress bar on a terminal when a StopAtStepHook gives the step budget."""
    from flowloom.train import progress

    stop = next((h for h in hooks if isinstance(h, hooks_lib.StopAtStepHook)), None)
    if stop is None or any(isinstance(h, progress.ProgressBarHook) for h in hooks):
        return
    if progress.wanted():
        hooks.append(progress.ProgressBarHook(stop_hook=stop))
