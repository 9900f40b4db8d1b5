"""`tf.train.Supervisor`: the pre-MonitoredSession training helper (session preparation,
queue runners, and background threads that save summaries, steps/sec and checkpoints)."""

import contextlib
import logging
import os
import time

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.graph import GraphKeys, add_to_collection, get_collection, \
    get_default_graph
from flowloom.train.coordinator import Coordinator, LooperThread
from flowloom.train.session_manager import SessionManager

_log = logging.getLogger("flowloom")


def _global_step_value(sess, tensor):
    # TF reads a one-element step (shape [1]) too, as NumPy 1 allowed int() of it.
    return int(np.asarray(sess.run(tensor)).item())


class Supervisor:
    """A training helper that checkpoints models and computes summaries (`tf.train.Supervisor`).

    Example:
      sv = tf.train.Supervisor(logdir="/tmp/mydir")
      with sv.managed_session() as sess:
          while not sv.should_stop():
              sess.run(train_op)
    """

    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT,
                 is_chief=True, init_op=USE_DEFAULT, init_feed_dict=None,
                 local_init_op=USE_DEFAULT, logdir=None, summary_op=USE_DEFAULT,
                 saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120,
                 checkpoint_basename="model.ckpt", session_manager=None,
                 summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        from flowloom.framework.meta_graph import export_meta_graph

        if graph is None:
            graph = get_default_graph()
        with graph.as_default():
            self._init_ready_op(ready_op, ready_for_local_init_op)
            self._init_init_op(init_op, init_feed_dict)
            self._init_local_init_op(local_init_op)
            self._init_saver(saver)
            self._init_summary_op(summary_op)
            self._init_global_step(global_step)
            self._meta_graph_def = export_meta_graph(
                graph_def=graph.as_graph_def(add_shapes=True),
                saver_def=self._saver.saver_def if self._saver else None, graph=graph)
        self._graph = graph
        self._is_chief = is_chief
        self._coord = Coordinator()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._local_init_run_options = local_init_run_options
        self._logdir = None
        self._save_summaries_secs = None
        self._save_model_secs = None
        self._save_path = None
        self._summary_writer = None
        if self._is_chief:
            # Only a chief writes checkpoints and events.
            self._logdir = logdir
            self._save_summaries_secs = save_summaries_secs
            self._save_model_secs = save_model_secs
            if self._logdir:
                self._save_path = os.path.join(self._logdir, checkpoint_basename)
            if summary_writer is Supervisor.USE_DEFAULT:
                if self._logdir:
                    from flowloom.summary.writer import FileWriter

                    self._summary_writer = FileWriter(self._logdir)
            else:
                self._summary_writer = summary_writer
            self._graph_added_to_summary = False
        self._session_manager = session_manager or SessionManager(
            local_init_op=self._local_init_op, ready_op=self._ready_op,
            ready_for_local_init_op=self._ready_for_local_init_op, graph=self._graph,
            recovery_wait_secs=self._recovery_wait_secs,
            local_init_run_options=self._local_init_run_options)
        self._verify_setup()
        graph.finalize()

    # -- the pieces, from the arguments, the graph's collections or TF's defaults -------------
    @staticmethod
    def _first_in_collection(key):
        items = get_collection(key)
        if len(items) > 1:
            _log.info("Found %d %s operations. Returning the first one.", len(items), key)
        return items[0] if items else None

    def _init_ready_op(self, ready_op, ready_for_local_init_op):
        from flowloom import variables

        if ready_op is Supervisor.USE_DEFAULT:
            ready_op = self._first_in_collection(GraphKeys.READY_OP)
            if ready_op is None:
                ready_op = variables.report_uninitialized_variables()
                add_to_collection(GraphKeys.READY_OP, ready_op)
        self._ready_op = ready_op
        if ready_for_local_init_op is Supervisor.USE_DEFAULT:
            ready_for_local_init_op = self._first_in_collection(
                GraphKeys.READY_FOR_LOCAL_INIT_OP)
        self._ready_for_local_init_op = ready_for_local_init_op

    def _init_init_op(self, init_op, init_feed_dict):
        from flowloom import variables

        if init_op is Supervisor.USE_DEFAULT:
            init_op = self._first_in_collection(GraphKeys.INIT_OP)
            if init_op is None:
                init_op = variables.global_variables_initializer()
                add_to_collection(GraphKeys.INIT_OP, init_op)
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict

    def _init_local_init_op(self, local_init_op):
        from flowloom import variables
        from flowloom.ops.control_flow.control_flow_ops import group

        if local_init_op is Supervisor.USE_DEFAULT:
            local_init_op = self._first_in_collection(GraphKeys.LOCAL_INIT_OP)
            if local_init_op is None:
                from flowloom.ops.lookup.tables import tables_initializer

                # TF's default: the local variables and the tables.
                local_init_op = group(variables.local_variables_initializer(),
                                      tables_initializer())
                add_to_collection(GraphKeys.LOCAL_INIT_OP, local_init_op)
        self._local_init_op = local_init_op

    def _init_saver(self, saver):
        from flowloom import variables
        from flowloom.train.saver import Saver

        if saver is Supervisor.USE_DEFAULT:
            saver = self._first_in_collection(GraphKeys.SAVERS)
            if saver is None and variables.global_variables():
                saver = Saver()
                add_to_collection(GraphKeys.SAVERS, saver)
        self._saver = saver

    def _init_summary_op(self, summary_op):
        from flowloom.summary import summary

        if summary_op is Supervisor.USE_DEFAULT:
            summary_op = self._first_in_collection(GraphKeys.SUMMARY_OP)
            if summary_op is None:
                summary_op = summary.merge_all()
                if summary_op is not None:
                    add_to_collection(GraphKeys.SUMMARY_OP, summary_op)
        self._summary_op = summary_op

    def _init_global_step(self, global_step):
        if global_step is Supervisor.USE_DEFAULT:
            global_step = self._first_in_collection(GraphKeys.GLOBAL_STEP)
            if global_step is None:
                global_step = self._default_global_step_tensor()
                if global_step is not None:
                    add_to_collection(GraphKeys.GLOBAL_STEP, global_step)
        self._global_step = global_step

    @staticmethod
    def _default_global_step_tensor():
        try:
            gs = get_default_graph().get_tensor_by_name("global_step:0")
        except KeyError:
            return None
        if gs.dtype.base_dtype in (dtypes.int32, dtypes.int64):
            return gs
        _log.warning("Found 'global_step' is not an int type: %s", gs.dtype)
        return None

    def _verify_setup(self):
        if not self._is_chief:
            for op in self._graph.get_operations():
                if op.type in ("Variable", "VariableV2") and not op.device:
                    raise ValueError("When using replicas, all Variables must have their device "
                                     f"set: {op}")

    # -- properties ---------------------------------------------------------------------------
    session_manager = property(lambda self: self._session_manager)
    coord = property(lambda self: self._coord)
    init_op = property(lambda self: self._init_op)
    init_feed_dict = property(lambda self: self._init_feed_dict)
    ready_op = property(lambda self: self._ready_op)
    ready_for_local_init_op = property(lambda self: self._ready_for_local_init_op)
    summary_writer = property(lambda self: self._summary_writer)
    summary_op = property(lambda self: self._summary_op)
    save_summaries_secs = property(lambda self: self._save_summaries_secs)
    global_step = property(lambda self: self._global_step)
    saver = property(lambda self: self._saver)
    save_model_secs = property(lambda self: self._save_model_secs)
    save_path = property(lambda self: self._save_path)
    is_chief = property(lambda self: self._is_chief)

    # -- running ------------------------------------------------------------------------------
    def _write_graph(self):
        from flowloom.framework.graph_io import write_graph

        if self._is_chief and self._logdir:
            write_graph(self._graph.as_graph_def(add_shapes=True), self._logdir, "graph.pbtxt")
        if self._summary_writer and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            self._summary_writer.add_meta_graph(self._meta_graph_def)
            self._graph_added_to_summary = True

    def start_standard_services(self, sess):
        """Starts the summary, steps/sec and checkpoint threads (chief only)."""
        from flowloom.proto.event_pb2 import SessionLog

        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. Because only "
                               "chief supervisors can write events.")
        if not self._logdir:
            _log.warning("Standard services need a 'logdir' passed to the SessionManager")
            return None
        if self._global_step is not None and self._summary_writer:
            self._summary_writer.add_session_log(
                SessionLog(status=SessionLog.START),
                _global_step_value(sess, self._global_step))
        threads = []
        if self._save_summaries_secs and self._summary_writer:
            if self._summary_op is not None:
                threads.append(SVSummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(SVStepCounterThread(self, sess))
        if self.saver and self._save_model_secs:
            threads.append(SVTimerCheckpointThread(self, sess))
        for t in threads:
            t.start()
        return threads

    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False,
                                    max_wait_secs=7200, start_standard_services=True):
        """A session restored from `logdir` or initialized (the chief), or one that waits for
        the chief; starts the standard services and the queue runners."""
        self._coord.clear_stop()
        if self._summary_writer:
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self.init_op, saver=self.saver, checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
                config=config, init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                _log.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config,
                                                          max_wait_secs=max_wait_secs)
        if start_standard_services:
            _log.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    def start_queue_runners(self, sess, queue_runners=None):
        """Starts the graph's queue runners under this supervisor's coordinator."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        return threads

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Runs `target` every `timer_interval_secs` in a thread until the supervisor stops."""
        looper = LooperThread(self._coord, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Stops the threads (re-raising a reported exception) and closes the writer."""
        from flowloom.proto.event_pb2 import SessionLog

        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            if close_summary_writer and self._summary_writer:
                self._summary_writer.add_session_log(SessionLog(status=SessionLog.STOP))
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex=None):
        self._coord.request_stop(ex=ex)

    def should_stop(self):
        return self._coord.should_stop()

    def stop_on_exception(self):
        return self._coord.stop_on_exception()

    def wait_for_stop(self):
        self._coord.wait_for_stop()

    def summary_computed(self, sess, summary, global_step=None):
        """Writes a summary computed by the caller (at the global step by default)."""
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self.global_step is not None:
            global_step = _global_step_value(sess, self.global_step)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True,
                        close_summary_writer=True):
        """A session for the block; an exception in it stops the supervisor (and is
        re-raised by `stop()` unless it is OutOfRangeError); the session is closed at the end."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(
                master=master, config=config, start_standard_services=start_standard_services)
            yield sess
        except Exception as e:  # noqa: BLE001 - reported to the coordinator, as TF does
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    try:
                        sess.close()
                    except Exception:  # noqa: BLE001 - TF ignores errors closing here
                        pass

    # TF's older spellings.
    PrepareSession = prepare_or_wait_for_session
    StartQueueRunners = start_queue_runners
    StartStandardServices = start_standard_services
    Stop = stop
    RequestStop = request_stop
    Loop = loop
    ShouldStop = should_stop
    StopOnException = stop_on_exception
    WaitForStop = wait_for_stop
    SummaryComputed = summary_computed


class SVSummaryThread(LooperThread):
    """Writes the summary op's value every `save_summaries_secs`."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self):
        if self._sv.global_step is not None:
            summary_strs, global_step = self._sess.run([self._sv.summary_op,
                                                        self._sv.global_step])
        else:
            summary_strs, global_step = self._sess.run(self._sv.summary_op), None
        if self._sv.summary_writer:
            _log.info("Recording summary at step %s.", global_step)
            self._sv.summary_writer.add_summary(summary_strs, global_step)


class SVStepCounterThread(LooperThread):
    """Writes `global_step/sec` every `save_summaries_secs`."""

    def __init__(self, sv, sess, step_counter=None):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv = sv
        self._sess = sess
        self._last_time = 0.0
        self._last_step = 0
        self._step_counter = sv.global_step if step_counter is None else step_counter
        self._summary_tag = f"{self._step_counter.op.name}/sec"

    def start_loop(self):
        self._last_time = time.time()
        self._last_step = _global_step_value(self._sess, self._step_counter)

    def run_loop(self):
        from flowloom.proto.summary_pb2 import Summary

        current_step = _global_step_value(self._sess, self._step_counter)
        added_steps = current_step - self._last_step
        self._last_step = current_step
        now = time.time()
        elapsed = now - self._last_time
        self._last_time = now
        steps_per_sec = added_steps / elapsed if elapsed > 0.0 else float("inf")
        summary = Summary(value=[Summary.Value(tag=self._summary_tag,
                                               simple_value=steps_per_sec)])
        if self._sv.summary_writer:
            self._sv.summary_writer.add_summary(summary, current_step)
        _log.info("%s: %g", self._summary_tag, steps_per_sec)


class SVTimerCheckpointThread(LooperThread):
    """Saves a checkpoint every `save_model_secs`."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self):
        from flowloom.proto.event_pb2 import SessionLog

        _log.info("Saving checkpoint to path %s", self._sv.save_path)
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        if self._sv.summary_writer and self._sv.global_step is not None:
            self._sv.summary_writer.add_session_log(
                SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._sv.save_path),
                _global_step_value(self._sess, self._sv.global_step))
