"""`tf.train.SessionManager`: creates sessions, restoring from checkpoints or initializing."""

import logging
import time

import numpy as np

from flowloom.framework import errors
from flowloom.framework.graph import get_default_graph

_log = logging.getLogger("tensorflow")  # TF logs these lines on its logger


def _maybe_name(obj):
    if obj is None:
        return None
    return getattr(obj, "name", f"<no name for {type(obj)}>")


def _ready(op, sess, msg):
    """(True, None) when `op` (report_uninitialized_variables) reports nothing."""
    if op is None:
        return True, None
    try:
        value = sess.run(op)
        # Ready: an empty vector (or None / an int32 value, for older ready ops).
        if value is None or np.asarray(value).dtype == np.int32 or np.size(value) == 0:
            return True, None
        names = ", ".join(v.decode("utf-8") if isinstance(v, bytes) else str(v)
                          for v in np.asarray(value).ravel())
        return False, "Variables not initialized: " + names
    except errors.FailedPreconditionError as e:
        if "uninitialized" not in str(e):
            _log.warning("%s raised: %s", msg, e)
            raise
        return False, str(e)


def _waited_for_names(message):
    prefix = "Variables not initialized: "
    if not message or not message.startswith(prefix):
        return []
    return [n for n in message[len(prefix):].split(", ") if n]


def _on_task(device, task):
    from flowloom.framework.device import DeviceSpec

    spec = DeviceSpec.from_string(device or "")
    return spec.job == task[0] and (spec.task or 0) == task[1]


class _CountDownTimer:
    def __init__(self, duration_secs):
        self._start = time.time()
        self._duration = duration_secs

    def secs_remaining(self):
        return max(0, self._duration - (time.time() - self._start))


class SessionManager:
    """Creates a session that is ready to use: restored from the latest checkpoint, or
    initialized; local variables (and queue runners' epoch counters) initialized each time.

    Example:
      sm = tf.train.SessionManager()
      sess = sm.prepare_session("", init_op=init_op, saver=saver, checkpoint_dir=train_dir)
    """

    def __init__(self, local_init_op=None, ready_op=None, ready_for_local_init_op=None,
                 graph=None, recovery_wait_secs=30, local_init_run_options=None,
                 local_init_feed_dict=None):
        if graph is None:
            graph = get_default_graph()
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph
        self._recovery_wait_secs = recovery_wait_secs
        self._target = None
        self._local_init_run_options = local_init_run_options
        self._local_init_feed_dict = local_init_feed_dict
        if ready_for_local_init_op is not None and local_init_op is None:
            raise ValueError("If you pass a ready_for_local_init_op you must also pass a "
                             f"local_init_op , ready_for_local_init_op [{ready_for_local_init_op}]")

    def _new_session(self, master, config):
        from flowloom.distributed import inprocess  # a higher layer: imported when used
        from flowloom.runtime.session import Session

        sess = inprocess.session_for_target(master, graph=self._graph, config=config)
        return sess if sess is not None else Session(master, graph=self._graph, config=config)

    def _restore_checkpoint(self, master, saver=None, checkpoint_dir=None,
                            checkpoint_filename_with_path=None, wait_for_checkpoint=False,
                            max_wait_secs=7200, config=None):
        from flowloom.train.checkpoint_management import get_checkpoint_state

        self._target = master
        sess = self._new_session(master, config)
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and "
                             "checkpoint_filename_with_path.")
        if not saver or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        if checkpoint_filename_with_path:
            saver.restore(sess, checkpoint_filename_with_path)
            return sess, True
        wait_time = 0
        ckpt = get_checkpoint_state(checkpoint_dir)
        while not ckpt or not ckpt.model_checkpoint_path:
            if wait_for_checkpoint and wait_time < max_wait_secs:
                _log.info("Waiting for checkpoint to be available.")
                time.sleep(self._recovery_wait_secs)
                wait_time += self._recovery_wait_secs
                ckpt = get_checkpoint_state(checkpoint_dir)
            else:
                return sess, False
        saver.restore(sess, ckpt.model_checkpoint_path)
        saver.recover_last_checkpoints(list(ckpt.all_model_checkpoint_paths))
        return sess, True

    def prepare_session(self, master, init_op=None, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False,
                        max_wait_secs=7200, config=None, init_feed_dict=None, init_fn=None):
        """Returns a session restored from a checkpoint if there is one, else initialized by
        `init_op` / `init_fn`; then runs the local init op and checks the model is ready.

        Raises:
          RuntimeError: the model is not ready afterwards (names the uninitialized variables).
        """
        sess, loaded = self._restore_checkpoint(
            master, saver, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
            config=config)
        if not loaded:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or "
                                   "local_init_op was given")
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)
        ok, msg = self._try_run_local_init_op(sess)
        if not ok:
            raise RuntimeError("Init operations did not make model ready for local_init.  "
                               f"Init op: {_maybe_name(init_op)}, init fn: {init_fn}, "
                               f"error: {msg}")
        ready, msg = self._model_ready(sess)
        if not ready:
            raise RuntimeError("Init operations did not make model ready.  Init op: "
                               f"{_maybe_name(init_op)}, init fn: {init_fn}, local_init_op: "
                               f"{self._local_init_op}, error: {msg}")
        return sess

    def recover_session(self, master, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False,
                        max_wait_secs=7200, config=None):
        """Returns (session, restored): the session restored from a checkpoint when one
        makes the model ready, else (uninitialized session, False)."""
        sess, loaded = self._restore_checkpoint(
            master, saver, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
            config=config)
        ok, msg = self._try_run_local_init_op(sess)
        if not loaded:
            return sess, False
        source = checkpoint_dir or checkpoint_filename_with_path
        if not ok:
            _log.info("Restoring model from %s did not make model ready for local init: %s",
                      source, msg)
            return sess, False
        ready, msg = self._model_ready(sess)
        if not ready:
            _log.info("Restoring model from %s did not make model ready: %s", source, msg)
            return sess, False
        _log.info("Restored model from %s", source)
        return sess, loaded

    def wait_for_session(self, master, config=None, max_wait_secs=float("Inf")):
        """Creates sessions until one finds the model ready (initialized by a chief).

        Raises:
          DeadlineExceededError: not ready within `max_wait_secs`.
        """
        self._target = master
        if max_wait_secs is None:
            max_wait_secs = float("Inf")
        timer = _CountDownTimer(max_wait_secs)
        warned = set()
        while True:
            sess = self._new_session(master, config)
            not_ready_msg = None
            ok, not_ready_local_msg = self._try_run_local_init_op(sess)
            if ok:
                ready, not_ready_msg = self._model_ready(sess)
                if ready:
                    return sess
            try:
                sess.close()
            except Exception:  # noqa: BLE001 - closing a half-made session
                pass
            if timer.secs_remaining() - self._recovery_wait_secs < 0:
                raise errors.DeadlineExceededError(
                    None, None, f"Session was not ready after waiting {max_wait_secs} secs.")
            _log.info("Waiting for model to be ready.  Ready_for_local_init_op:  %s, ready: %s",
                      not_ready_local_msg, not_ready_msg)
            self._log_waited_for(master, not_ready_local_msg or not_ready_msg, warned)
            time.sleep(self._recovery_wait_secs)

    def _log_waited_for(self, master, message, warned):
        """Beyond TF: names the variables a non-chief task waits for, with their devices,
        and says when one lives on this very task (no chief can initialize it there)."""
        names = _waited_for_names(message)
        if not names:
            return
        from flowloom.distributed import inprocess

        own = inprocess.task_of_target(master)
        placed, stuck = [], []
        for name in names:
            try:
                device = self._graph.get_operation_by_name(name).device
            except (KeyError, ValueError):
                device = ""
            placed.append(f"{name} ({device or 'no device'})")
            if own is not None and _on_task(device, own) and name not in warned:
                stuck.append(name)
                warned.add(name)
        _log.info("Waiting for the chief to initialize %d variable(s): %s", len(names),
                  ", ".join(placed))
        if stuck:
            _log.warning(
                "%s live(s) on this task (/job:%s/task:%d), where only this task's own "
                "local_init_op could initialize them: the chief's init_op initializes its own "
                "copy. A per-task variable belongs in tf.GraphKeys.LOCAL_VARIABLES (or on the "
                "ps), otherwise this task waits forever.", ", ".join(stuck), own[0], own[1])

    def _model_ready(self, sess):
        return _ready(self._ready_op, sess, "Model not ready")

    def _model_ready_for_local_init(self, sess):
        return _ready(self._ready_for_local_init_op, sess, "Model not ready for local init")

    def _try_run_local_init_op(self, sess):
        if self._local_init_op is None:
            return True, None
        ready, msg = self._model_ready_for_local_init(sess)
        if not ready:
            return False, msg
        _log.info("Running local_init_op.")
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict,
                 options=self._local_init_run_options)
        _log.info("Done running local_init_op.")
        return True, None
