"""`tf.train.QueueRunner`: threads that keep running enqueue ops, and closing the queue."""

import logging
import threading
import weakref

from flowloom.framework import errors
from flowloom.framework.graph import GraphKeys, add_to_collection, get_collection
from flowloom.runtime import handoff
from flowloom.train import chunked_enqueue
from flowloom.train.queue_runner_def import QueueRunnerDef

_log = logging.getLogger("flowloom")


class QueueRunner:
    """Holds a list of enqueue ops for a queue, each to be run in its own thread.

    Each thread runs its enqueue op until the queue is closed (OutOfRangeError from the
    producer, by default) or its coordinator stops; the last thread to finish closes the
    queue, and a coordinator's stop cancels pending enqueues (`cancel_op`).

    Example:
      qr = tf.train.QueueRunner(queue, [enqueue_op] * 4)
      tf.train.add_queue_runner(qr)
      threads = tf.train.start_queue_runners(sess, coord)
    """

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        if queue_runner_def:
            if queue or enqueue_ops:
                raise ValueError("queue_runner_def and queue are mutually exclusive.")
            self._init_from_proto(queue_runner_def, import_scope)
            return
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = (cancel_op if cancel_op is not None else
                           queue.close(cancel_pending_enqueues=True))
        if queue_closed_exception_types is None:
            queue_closed_exception_types = (errors.OutOfRangeError,)
        elif (not isinstance(queue_closed_exception_types, tuple) or
              not queue_closed_exception_types or
              not all(isinstance(t, type) and issubclass(t, errors.OpError)
                      for t in queue_closed_exception_types)):
            raise TypeError("queue_closed_exception_types, when provided, must be a tuple of "
                            f"tf.error types, but saw: {queue_closed_exception_types}")
        self._queue_closed_exception_types = queue_closed_exception_types
        self._init_state()

    def _init_state(self):
        self._lock = threading.Lock()
        self._runs_per_session = weakref.WeakKeyDictionary()
        self._exceptions_raised = []

    def _init_from_proto(self, queue_runner_def, import_scope=None):
        from flowloom.framework.graph import get_default_graph
        from flowloom.framework.graph_def import prepend_name_scope

        if isinstance(queue_runner_def, (bytes, bytearray)):
            queue_runner_def = QueueRunnerDef.FromString(queue_runner_def)
        g = get_default_graph()

        def element(name):
            return g.as_graph_element(prepend_name_scope(name, import_scope))

        self._queue = _QueueOfHandle(element(queue_runner_def.queue_name))
        self._enqueue_ops = [element(n) for n in queue_runner_def.enqueue_op_name]
        self._close_op = element(queue_runner_def.close_op_name)
        self._cancel_op = element(queue_runner_def.cancel_op_name)
        codes = queue_runner_def.queue_closed_exception_types
        self._queue_closed_exception_types = (
            tuple(errors.exception_type_from_error_code(c) for c in codes) if codes else
            (errors.OutOfRangeError,))
        self._init_state()
    @property
    def queue(self):
        return self._queue

    @property
    def enqueue_ops(self):
        return self._enqueue_ops

    @property
    def close_op(self):
        return self._close_op

    @property
    def cancel_op(self):
        return self._cancel_op

    @property
    def queue_closed_exception_types(self):
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self):
        """Exceptions the threads raised while running without a coordinator."""
        return self._exceptions_raised

    @property
    def name(self):
        """The name of the queue's handle op."""
        return self._queue.name

    def _enqueue_fn(self, sess, enqueue_op):
        """What one thread calls, again and again, to run `enqueue_op` in `sess`: a run of
        several examples at once where that is exact (train/chunked_enqueue.py), else one
        run of the op."""
        chunked = chunked_enqueue.build(sess, enqueue_op, len(self._enqueue_ops))
        return chunked if chunked is not None else sess.make_callable(enqueue_op)

    def _run(self, sess, enqueue_op, coord=None):
        decremented = False
        handoff.lower_this_thread()  # the step's threads come first (runtime/handoff.py)
        try:
            run_enqueue = self._enqueue_fn(sess, enqueue_op)
            while True:
                if coord and coord.should_stop():
                    break
                try:
                    run_enqueue()
                except self._queue_closed_exception_types:
                    # The producer is exhausted: the last thread out closes the queue.
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        if self._runs_per_session[sess] == 0:
                            try:
                                sess.run(self._close_op)
                            except Exception as e:  # noqa: BLE001 - TF ignores close errors
                                _log.debug("Ignored exception: %s", e)
                    return
        except Exception as e:  # noqa: BLE001 - reported to the coordinator or kept
            if coord:
                coord.request_stop(e)
            else:
                _log.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, cancel_op, coord):
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # noqa: BLE001 - the session may be closed already
            _log.debug("Ignored exception: %s", e)

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """Creates (and with `start`, starts) the threads that run the enqueue ops in `sess`.

        With a coordinator, one more thread waits for its stop and runs `cancel_op`. Threads
        already running for `sess` are not started twice (returns []).

        Returns:
          The list of threads.
        """
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        handoff.quick_handoff()
        handoff.prepare_lowered_threads()
        # TF's thread names: QueueRunnerThread-<queue>-<enqueue op or tensor name>.
        threads = [threading.Thread(target=self._run, args=(sess, op, coord),
                                    name=f"QueueRunnerThread-{self.name}-{op.name}")
                   for op in self._enqueue_ops]
        if coord:
            threads.append(threading.Thread(target=self._close_on_stop,
                                            args=(sess, self._cancel_op, coord),
                                            name=f"QueueRunnerThread-{self.name}-close_on_stop"))
        for t in threads:
            if coord:
                coord.register_thread(t)
            if daemon:
                t.daemon = True
            if start:
                t.start()
        return threads

    def to_proto(self, export_scope=None):
        """A QueueRunnerDef naming the queue and ops (None outside `export_scope`)."""
        from flowloom.framework.graph_def import strip_name_scope

        names = [self.queue.name] + [op.name for op in self.enqueue_ops] + \
            [self.close_op.name, self.cancel_op.name]
        if export_scope is not None and not all(n.startswith(export_scope) for n in names):
            return None
        return QueueRunnerDef(
            queue_name=strip_name_scope(self.queue.name, export_scope),
            enqueue_op_name=[strip_name_scope(op.name, export_scope) for op in self.enqueue_ops],
            close_op_name=strip_name_scope(self.close_op.name, export_scope),
            cancel_op_name=strip_name_scope(self.cancel_op.name, export_scope),
            queue_closed_exception_types=[t(None, None, "").error_code
                                          for t in self._queue_closed_exception_types])

    @staticmethod
    def from_proto(queue_runner_def, import_scope=None):
        return QueueRunner(queue_runner_def=queue_runner_def, import_scope=import_scope)


class _QueueOfHandle:
    """What a QueueRunner read from a QueueRunnerDef knows of its queue: the handle op."""

    def __init__(self, handle):
        self.queue_ref = handle
        self.name = handle.op.name if hasattr(handle, "op") else handle.name


def _register_proto_functions():
    from flowloom.framework.meta_graph import register_proto_function

    register_proto_function(GraphKeys.QUEUE_RUNNERS, lambda qr, scope: qr.to_proto(scope),
                            lambda data, scope: QueueRunner.from_proto(data, scope))


_register_proto_functions()


def add_queue_runner(qr, collection=GraphKeys.QUEUE_RUNNERS):
    """Adds `qr` to the graph collection that start_queue_runners reads."""
    add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True,
                        collection=GraphKeys.QUEUE_RUNNERS):
    """Starts the threads of every queue runner in `collection` of the session's graph.

    Args:
      sess: the session (default: the default session).
      coord: an optional Coordinator for the threads.
      daemon: whether the threads are daemons.
      start: False creates the threads without starting them.
      collection: the graph collection of QueueRunners.

    Returns:
      The list of threads.
    """
    if sess is None:
        from flowloom.runtime.session import get_default_session

        sess = get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is registered. "
                             "Use `with sess.as_default()` or pass an explicit session to "
                             "tf.start_queue_runners(sess=sess)")
    from flowloom.runtime.session import BaseSession

    if not isinstance(sess, BaseSession):
        # A MonitoredSession starts its queue runners itself.
        if type(sess).__name__ in ("MonitoredSession", "SingularMonitoredSession"):
            return []
        raise TypeError(f"sess must be a `tf.Session` object. Given class: {type(sess)}")
    with sess.graph.as_default():
        threads = []
        for qr in get_collection(collection):
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
