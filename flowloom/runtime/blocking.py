"""Waiting inside a kernel: deadlines, the inter-op limit, and cancellation on close.

A blocking kernel (a queue's enqueue or dequeue, a reader waiting for work) waits on a
condition of its resource through `wait_until`. While it waits:

- it holds no session lock and gives back its slot of the session's inter-op limit, so the
  runs that would wake it (queue-runner threads calling Session.run concurrently) can go on;
- the run's deadline (`RunOptions.timeout_in_ms`, else `ConfigProto.operation_timeout_in_ms`)
  ends the wait with DeadlineExceededError;
- a resource that is cancelled (its session closed, its queue closed with
  cancel_pending_enqueues) wakes its waiters, which re-check and raise.

- the run failing elsewhere (another partition's op raised) cancels it: `RunCancellation`
  wakes the waiter, which raises CancelledError and leaves its resource's line.

The run's deadline, inter-op semaphore and cancellation are per thread: Session.run sets them
on the calling thread, and the partition runners copy them onto the worker threads of the run.

Op types that can block register in BLOCKING_TYPES; runtime/pruning.py orders them after
every op of the run that does not depend on them, so on one thread the rest of a run has
already run (and may have failed) before a blocking op waits, as TF's concurrent executor
would have run it meanwhile.
"""

import threading
import time

from flowloom.framework import errors


# The op types whose kernels may wait (queue enqueue/dequeue/close, reader reads).
BLOCKING_TYPES = set()


class RunCancellation:
    """Cancels the waits of one run (TF's per-step CancellationManager): `cancel()` wakes
    every condition a kernel of the run waits on; those waits raise CancelledError."""

    __slots__ = ("cancelled", "_waiting", "_lock")

    def __init__(self):
        self.cancelled = False
        self._waiting = set()
        self._lock = threading.Lock()

    def cancel(self):
        with self._lock:
            self.cancelled = True
            waiting = list(self._waiting)
        for cond in waiting:
            with cond:
                cond.notify_all()

    def _enter(self, cond):
        with self._lock:
            self._waiting.add(cond)

    def _leave(self, cond):
        with self._lock:
            self._waiting.discard(cond)


class _RunState(threading.local):
    def __init__(self):
        super().__init__()
        self.deadline = None   # time.monotonic() value, or None
        self.semaphore = None  # the inter-op semaphore held by the running kernel, or None
        self.cancellation = None  # the run's RunCancellation, or None


_state = _RunState()


def snapshot():
    """The calling thread's run state, to hand to the threads that run its partitions."""
    return (_state.deadline, _state.semaphore, _state.cancellation)


def restore(saved):
    _state.deadline, _state.semaphore, _state.cancellation = saved


def set_cancellation(cancellation):
    """Sets the calling thread's run cancellation (None: none); returns the old one."""
    old = _state.cancellation
    _state.cancellation = cancellation
    return old


def set_deadline(timeout_ms):
    """Sets the deadline of the runs on this thread (None or <= 0: none); returns the old one."""
    old = _state.deadline
    _state.deadline = (time.monotonic() + timeout_ms / 1000.0
                       if timeout_ms is not None and timeout_ms > 0 else None)
    return old


def reset_deadline(old):
    _state.deadline = old


def set_semaphore(semaphore):
    old = _state.semaphore
    _state.semaphore = semaphore
    return old


def current_deadline():
    """The calling thread's run deadline (a time.monotonic() value), or None."""
    return _state.deadline


def check_deadline(op=None):
    """Raises DeadlineExceededError when the calling thread's run is past its deadline.

    Called by the executor at each new iteration of a loop frame, so a `tf.while_loop` that
    never ends stops at `RunOptions.timeout_in_ms` as it does in TF.
    """
    deadline = _state.deadline
    if deadline is not None and time.monotonic() > deadline:
        raise errors.DeadlineExceededError(
            None, op, "Timed out waiting for notification")


def wait_until(cond, ready, op_timeout_ms=-1):
    """Waits on `cond` (held by the caller) until `ready()` is true.

    `ready()` is evaluated with `cond` held; it returns True when the wait is over and may
    raise (a closed queue raises OutOfRangeError, a cancelled one CancelledError). The
    earlier of the run's deadline and the op's own `timeout_ms` attr ends the wait with
    DeadlineExceededError.
    """
    if ready():
        return
    deadline = _state.deadline
    if op_timeout_ms is not None and op_timeout_ms >= 0:
        own = time.monotonic() + op_timeout_ms / 1000.0
        deadline = own if deadline is None else min(deadline, own)
    sem = _state.semaphore
    if sem is not None:
        # The slot is given back for good: the rest of the kernel runs without one (the
        # runner sees `semaphore` cleared and does not release it again).
        _state.semaphore = None
        sem.release()
    cancellation = _state.cancellation
    if cancellation is None:
        _wait(cond, ready, deadline, None)
        return
    cancellation._enter(cond)
    try:
        _wait(cond, ready, deadline, cancellation)
    finally:
        cancellation._leave(cond)


def _wait(cond, ready, deadline, cancellation):
    while True:
        if cancellation is not None and cancellation.cancelled:
            raise errors.CancelledError(None, None, "Run cancelled: another op of the step "
                                        "failed")
        if deadline is None:
            cond.wait()
        else:
            left = deadline - time.monotonic()
            if left <= 0:
                if ready():
                    return
                raise errors.DeadlineExceededError(
                    None, None, "Timed out waiting for notification")
            cond.wait(left)
        if ready():
            return
