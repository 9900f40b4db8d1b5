"""The standard SessionRunHooks (TF's basic_session_run_hooks): stop at a step, save
checkpoints and summaries, log tensors and steps/sec, fail on NaN, final ops, feeds, timelines.
"""

import os
import time

import numpy as np

from flowloom.framework.graph import get_collection, get_default_graph
from flowloom.platform import tf_logging  # TF's hooks log through it; tests patch its functions
from flowloom.train.session_run_hook import SessionRunArgs, SessionRunHook
from flowloom.io import file_system


def global_step_read_tensor(graph=None):
    """A tensor that reads the global step (a copy, `global_step/add`), made once per graph;
    None when the graph has no global step (training_util._get_or_create_global_step_read)."""
    from flowloom.train.training_util import _get_or_create_global_step_read

    return _get_or_create_global_step_read(graph)


def _required_global_step(hook_name):
    tensor = global_step_read_tensor()
    if tensor is None:
        raise RuntimeError(f"Global step should be created to use {hook_name}.")
    return tensor


class _HookTimer:
    """Base of the timers: when a hook should trigger."""

    def reset(self):
        pass

    def should_trigger_for_step(self, step):
        raise NotImplementedError

    def update_last_triggered_step(self, step):
        raise NotImplementedError

    def last_triggered_step(self):
        raise NotImplementedError


class SecondOrStepTimer(_HookTimer):
    """Triggers every `every_secs` seconds or every `every_steps` steps (one of the two)."""

    def __init__(self, every_secs=None, every_steps=None):
        self.reset()
        self._every_secs = every_secs
        self._every_steps = every_steps
        if self._every_secs is None and self._every_steps is None:
            raise ValueError("Either every_secs or every_steps should be provided.")
        if self._every_secs is not None and self._every_steps is not None:
            raise ValueError("Can not provide both every_secs and every_steps.")

    def reset(self):
        self._last_triggered_step = None
        self._last_triggered_time = None

    def should_trigger_for_step(self, step):
        if self._last_triggered_step is None:
            return True
        if self._last_triggered_step == step:
            return False
        if self._every_secs is not None and \
                time.time() >= self._last_triggered_time + self._every_secs:
            return True
        if self._every_steps is not None and step >= self._last_triggered_step + self._every_steps:
            return True
        return False

    def update_last_triggered_step(self, step):
        """Records a trigger at `step`; returns (seconds, steps) since the previous one."""
        now = time.time()
        if self._last_triggered_time is None:
            elapsed_secs = elapsed_steps = None
        else:
            elapsed_secs = now - self._last_triggered_time
            elapsed_steps = step - self._last_triggered_step
        self._last_triggered_time = now
        self._last_triggered_step = step
        return elapsed_secs, elapsed_steps

    def last_triggered_step(self):
        return self._last_triggered_step


class NeverTriggerTimer(_HookTimer):
    def should_trigger_for_step(self, step):
        return False

    def update_last_triggered_step(self, step):
        return None, None

    def last_triggered_step(self):
        return None


def _as_graph_element(obj):
    graph = get_default_graph()
    if not isinstance(obj, str):
        if getattr(obj, "graph", None) is not graph:
            raise ValueError(f"Passed {obj} should have graph attribute that is equal to "
                             f"current graph {graph}.")
        return obj
    if ":" in obj:
        return graph.as_graph_element(obj)
    element = graph.as_graph_element(obj + ":0")
    try:
        graph.as_graph_element(obj + ":1")
    except (KeyError, ValueError):
        return element
    raise ValueError(f"Name {obj} is ambiguous, as this `Operation` has multiple outputs "
                     "(at least 2).")


class LoggingTensorHook(SessionRunHook):
    """Logs the values of tensors every N steps, every N seconds, and/or at the end.

    Example:
      tf.train.LoggingTensorHook({"loss": loss, "step": global_step}, every_n_iter=10)
    """

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False,
                 formatter=None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and "
                             "every_n_secs must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(tensors, dict):
            self._tag_order = list(tensors)
            tensors = {item: item for item in tensors}
        else:
            self._tag_order = sorted(tensors.keys())
        self._tensors = tensors
        self._formatter = formatter
        self._timer = (NeverTriggerTimer() if only_log_at_end else
                       SecondOrStepTimer(every_secs=every_n_secs, every_steps=every_n_iter))
        self._log_at_end = at_end

    def begin(self):
        self._timer.reset()
        self._iter_count = 0
        self._current_tensors = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}

    def before_run(self, run_context):
        self._should_trigger = self._timer.should_trigger_for_step(self._iter_count)
        if self._should_trigger:
            return SessionRunArgs(self._current_tensors)
        return None

    def _log_tensors(self, tensor_values):
        original = np.get_printoptions()
        np.set_printoptions(suppress=True)
        elapsed_secs, _ = self._timer.update_last_triggered_step(self._iter_count)
        if self._formatter:
            tf_logging.info(self._formatter(tensor_values))
        else:
            # str() of the value, as TF prints it (f-strings print np.float32 as a float64).
            stats = ", ".join("%s = %s" % (tag, tensor_values[tag]) for tag in self._tag_order)
            if elapsed_secs is not None:
                tf_logging.info("%s (%.3f sec)", stats, elapsed_secs)
            else:
                tf_logging.info("%s", stats)
        np.set_printoptions(**original)

    def after_run(self, run_context, run_values):
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session):
        if self._log_at_end:
            self._log_tensors(session.run(self._current_tensors))


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches `last_step` (or `num_steps` more)."""

    def __init__(self, num_steps=None, last_step=None):
        if num_steps is None and last_step is None:
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and last_step is not None:
            raise ValueError("Only one of num_steps or last_step can be specified.")
        self._num_steps = num_steps
        self._last_step = last_step

    def begin(self):
        self._global_step_tensor = _required_global_step("StopAtStepHook")

    def after_create_session(self, session, coord):
        if self._last_step is None:
            self._last_step = session.run(self._global_step_tensor) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        if run_values.results + 1 >= self._last_step:
            # The fetched value is from before the run: read the step again.
            step = run_context.session.run(self._global_step_tensor)
            if step >= self._last_step:
                run_context.request_stop()


class CheckpointSaverListener:
    """Called around the saves of a CheckpointSaverHook."""

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        """Returns True to stop training."""

    def end(self, session, global_step_value):
        pass


class CheckpointSaverHook(SessionRunHook):
    """Saves checkpoints every N steps or seconds, when the session is created, and at the
    end; writes the graph and meta graph for TensorBoard."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None):
        tf_logging.info("Create CheckpointSaverHook.")
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners = listeners or []
        self._steps_per_run = 1

    def _set_steps_per_run(self, steps_per_run):
        self._steps_per_run = steps_per_run

    def begin(self):
        from flowloom.summary.writer import FileWriterCache

        self._summary_writer = FileWriterCache.get(self._checkpoint_dir)
        self._global_step_tensor = _required_global_step("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        from flowloom.framework.graph_io import write_graph
        from flowloom.framework.meta_graph import export_meta_graph

        global_step = session.run(self._global_step_tensor)
        graph = get_default_graph()
        write_graph(graph.as_graph_def(add_shapes=True), self._checkpoint_dir, "graph.pbtxt")
        saver = self._get_saver()
        saver_def = saver.saver_def if saver else None
        meta_graph_def = export_meta_graph(graph_def=graph.as_graph_def(add_shapes=True),
                                           saver_def=saver_def, graph=graph)
        self._summary_writer.add_graph(graph)
        self._summary_writer.add_meta_graph(meta_graph_def)
        # The checkpoint of the state at `global_step` (what a restart resumes from).
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                self._timer.update_last_triggered_step(global_step)
                if self._save(run_context.session, global_step):
                    run_context.request_stop()

    def end(self, session):
        last_step = session.run(self._global_step_tensor)
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)
        for listener in self._listeners:
            listener.end(session, last_step)

    def _save(self, session, step):
        """Saves; returns True when a listener asks to stop."""
        from flowloom.proto.event_pb2 import SessionLog

        tf_logging.info("Saving checkpoints for %d into %s.", step, self._save_path)
        for listener in self._listeners:
            listener.before_save(session, step)
        self._get_saver().save(session, self._save_path, global_step=step)
        self._summary_writer.add_session_log(
            SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._save_path), step)
        should_stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                tf_logging.info("A CheckpointSaverListener requested that training be stopped. "
                          "listener: %s", listener)
                should_stop = True
        return should_stop

    def _get_saver(self):
        from flowloom.framework.graph import GraphKeys

        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            return self._scaffold.saver
        savers = get_collection(GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(f"No items in collection {GraphKeys.SAVERS}. Please add a saver "
                               "to the collection or provide a saver or scaffold.")
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. Please "
                               "indicate which one to use by passing it to the constructor.")
        self._saver = savers[0]
        return savers[0]


class StepCounterHook(SessionRunHook):
    """Logs and records (as summary `global_step/sec`) the training speed."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None,
                 summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._last_global_step = None
        self._steps_per_run = 1

    def _set_steps_per_run(self, steps_per_run):
        self._steps_per_run = steps_per_run

    def begin(self):
        from flowloom.summary.writer import FileWriterCache
        from flowloom.train.training_util import get_global_step

        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._global_step_tensor = _required_global_step("StepCounterHook")
        self._summary_tag = get_global_step().op.name + "/sec"

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step_tensor)

    def _log_and_record(self, elapsed_steps, elapsed_time, global_step):
        from flowloom.proto.summary_pb2 import Summary

        steps_per_sec = elapsed_steps / elapsed_time
        if self._summary_writer is not None:
            summary = Summary(value=[Summary.Value(tag=self._summary_tag,
                                                   simple_value=steps_per_sec)])
            self._summary_writer.add_summary(summary, global_step)
        tf_logging.info("%s: %g", self._summary_tag, steps_per_sec)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results
        if self._timer.should_trigger_for_step(stale_global_step + self._steps_per_run):
            global_step = run_context.session.run(self._global_step_tensor)
            if self._timer.should_trigger_for_step(global_step):
                elapsed_time, elapsed_steps = self._timer.update_last_triggered_step(
                    global_step)
                if elapsed_time is not None:
                    self._log_and_record(elapsed_steps, elapsed_time, global_step)
        if stale_global_step == self._last_global_step:
            # As TF: the first 5 times in the process (all hooks together), as some optimizers
            # (SyncReplicasOptimizer's workers) leave the step alone by design.
            tf_logging.log_first_n(
                tf_logging.WARN, "It seems that global step (tf.train.get_global_step) has not "
                "been increased. Current value (could be stable): %s vs previous value: %s. You "
                "could increase the global step by passing tf.train.get_global_step() to "
                "Optimizer.apply_gradients or Optimizer.minimize.", 5, stale_global_step,
                self._last_global_step)
        self._last_global_step = stale_global_step


class NanLossDuringTrainingError(RuntimeError):
    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Fails (NanLossDuringTrainingError) or stops when the loss is NaN."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            failure_message = "Model diverged with loss = NaN."
            if self._fail_on_nan_loss:
                tf_logging.error(failure_message)
                raise NanLossDuringTrainingError
            tf_logging.warning(failure_message)
            run_context.request_stop()


class SummarySaverHook(SessionRunHook):
    """Saves the summaries every N steps or seconds (with the START session log)."""

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None,
                 scaffold=None, summary_op=None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        from flowloom.summary.writer import FileWriterCache

        if self._summary_writer is None and self._output_dir:
            self._summary_writer = FileWriterCache.get(self._output_dir)
        self._next_step = None
        self._global_step_tensor = _required_global_step("SummarySaverHook")

    def before_run(self, run_context):
        self._request_summary = (self._next_step is None or
                                 self._timer.should_trigger_for_step(self._next_step))
        requests = {"global_step": self._global_step_tensor}
        if self._request_summary:
            summary_op = self._get_summary_op()
            if summary_op is not None:
                requests["summary"] = summary_op
        return SessionRunArgs(requests)

    def after_run(self, run_context, run_values):
        from flowloom.proto.event_pb2 import SessionLog

        if not self._summary_writer:
            return
        global_step = run_values.results["global_step"] + 1
        if self._next_step is None or self._request_summary:
            global_step = run_context.session.run(self._global_step_tensor)
        if self._next_step is None:
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START),
                                                 global_step)
        if self._request_summary:
            self._timer.update_last_triggered_step(global_step)
            for summary in run_values.results.get("summary", ()):
                self._summary_writer.add_summary(summary, global_step)
        self._next_step = global_step + 1

    def end(self, session=None):
        if self._summary_writer:
            self._summary_writer.flush()

    def _get_summary_op(self):
        summary_op = self._summary_op if self._summary_op is not None else \
            self._scaffold.summary_op
        if summary_op is None:
            return None
        return summary_op if isinstance(summary_op, list) else [summary_op]


class GlobalStepWaiterHook(SessionRunHook):
    """Delays the start of training until the global step reaches `wait_until_step`."""

    def __init__(self, wait_until_step):
        self._wait_until_step = wait_until_step

    def begin(self):
        self._worker_is_started = False
        self._global_step_tensor = _required_global_step("GlobalStepWaiterHook")

    def before_run(self, run_context):
        if self._worker_is_started or self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        while True:
            current = run_context.session.run(self._global_step_tensor)
            if current >= self._wait_until_step:
                self._worker_is_started = True
                return None
            time.sleep(0.5)


class FinalOpsHook(SessionRunHook):
    """Runs `final_ops` when the session ends; `final_ops_values` holds their values."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        return self._final_ops_values

    def end(self, session):
        from flowloom.framework import errors

        if self._final_ops is not None:
            try:
                self._final_ops_values = session.run(self._final_ops,
                                                     feed_dict=self._final_ops_feed_dict)
            except (errors.OutOfRangeError, StopIteration):
                tf_logging.warning("An OutOfRangeError or StopIteration exception is raised by the "
                             "code in FinalOpsHook. This typically means the Ops running by "
                             "the FinalOpsHook have a dependency back to some input source, "
                             "which should not happen.")
                raise


class FeedFnHook(SessionRunHook):
    """Feeds `feed_fn()` (a dict) into every run."""

    def __init__(self, feed_fn):
        self.feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class ProfilerHook(SessionRunHook):
    """Traces a run every N steps or seconds and writes its Chrome-trace timeline
    (`timeline-<step>.json` in `output_dir`) and its RunMetadata for TensorBoard."""

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True,
                 show_memory=False):
        from flowloom.summary.writer import FileWriterCache

        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._file_writer = FileWriterCache.get(output_dir)
        self._show_dataflow = show_dataflow
        self._show_memory = show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self):
        self._next_step = None
        self._global_step_tensor = _required_global_step("ProfilerHook")

    def before_run(self, run_context):
        from flowloom.proto.config_pb2 import RunOptions

        self._request_summary = (self._next_step is not None and
                                 self._timer.should_trigger_for_step(self._next_step))
        requests = {"global_step": self._global_step_tensor}
        opts = RunOptions(trace_level=RunOptions.FULL_TRACE) if self._request_summary else None
        return SessionRunArgs(requests, options=opts)

    def after_run(self, run_context, run_values):
        stale_global_step = run_values.results["global_step"]
        if self._next_step is None:
            # The first trace comes N steps (or seconds) after the start.
            self._timer.update_last_triggered_step(stale_global_step)
        global_step = stale_global_step + 1
        if self._request_summary:
            global_step = run_context.session.run(self._global_step_tensor)
            self._timer.update_last_triggered_step(global_step)
            self._save(global_step, self._output_file.format(global_step),
                       run_values.run_metadata.step_stats)
            self._file_writer.add_run_metadata(run_values.run_metadata, f"step_{global_step}")
        self._next_step = global_step + 1

    def _save(self, step, save_path, step_stats):
        from flowloom.client.timeline import Timeline

        tf_logging.info("Saving timeline for %d into '%s'.", step, save_path)
        with file_system.open_file(save_path, "w") as f:
            f.write(Timeline(step_stats).generate_chrome_trace_format(
                show_dataflow=self._show_dataflow, show_memory=self._show_memory))
