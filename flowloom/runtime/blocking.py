"""Waiting inside a kernel: deadlines, the inter-op limit, and cancellation on close.

A blocking kernel (a queue's enqueue or dequeue, a reader waiting for work) waits on a
condition of its resource through `wait_until`. While it waits:

- it holds no session lock and gives back its slot of the session's inter-op limit, so the
  runs that would wake it (queue-runner threads calling Session.run concurrently) can go on;
- the run's deadline (`RunOptions.timeout_in_ms`, else `ConfigProto.operation_timeout_in_ms`)
  ends the wait with DeadlineExceededError;
- a resource that is cancelled (its session closed, its queue closed with
  cancel_pending_enqueues) wakes its waiters, which re-check and raise;
- a run under a `Cancellation` (the runs of a session on a server, whose resources outlive
  the session) ends with CancelledError when it is cancelled (the session closed);
- the run failing elsewhere (another partition's op raised) cancels the run's own
  `Cancellation` (a child of the session's), so its blocked kernels stop waiting and leave
  their resources' lines.

Op types that can block register in BLOCKING_TYPES; runtime/pruning.py orders them after
every op of the run that does not depend on them, so on one thread the rest of a run has
already run (and may have failed) before a blocking op waits, as TF's concurrent executor
would have run it meanwhile.

The run's deadline, inter-op semaphore and step container are per thread: Session.run sets
them on the calling thread (`run_scope`), and the partition runners copy them onto the worker
threads of the run.
"""

import threading
import time

from flowloom.framework import errors
from flowloom.runtime.step_container import StepContainer


class _RunState(threading.local):
    def __init__(self):
        super().__init__()
        self.deadline = None   # time.monotonic() value, or None
        self.semaphore = None  # the inter-op semaphore held by the running kernel, or None
        self.cancellation = None  # the Cancellation of the run, or None
        self.step = None  # the StepContainer of the run (runtime/step_container.py), or None


_state = _RunState()

# The op types whose kernels may wait (queue enqueue/dequeue/close, reader reads).
BLOCKING_TYPES = set()


def independent_waits(ops):
    """Whether two of `ops` (a run's ops, each after its inputs) may block and neither
    depends on the other: a dequeue and the enqueue that feeds it, in one run.

    TF's queue kernels are asynchronous: a waiting dequeue holds no thread, so the enqueue of
    the same step runs and wakes it. Run one after the other, the first would wait for ever;
    such runs give each blocking op a thread of its own (runtime/parallel.py, lanes)."""
    if sum(op._type in BLOCKING_TYPES for op in ops) < 2:
        return False
    below = {}  # op -> bit mask of the blocking ops it waits for (itself included)
    earlier = 0  # the bits of the blocking ops seen so far
    for op in ops:
        mask = 0
        for t in op._inputs:
            mask |= below.get(t._op, 0)
        for c in op._control_inputs:
            mask |= below.get(c, 0)
        if op._type in BLOCKING_TYPES:
            if earlier & ~mask:
                return True
            mask |= earlier + 1  # the next bit: `earlier` is 2**n - 1
            earlier = 2 * earlier + 1
        if mask:
            below[op] = mask
    return False


class Cancellation:
    """Cancels the waits of a set of runs at once (TF's CancellationManager of a session's
    steps): `cancel(message)` wakes every wait of a run under it, which then raises
    CancelledError(message), as will any wait that starts afterwards."""

    def __init__(self, parent=None):
        self.message = None
        self._waiting = {}  # id(cond) -> [cond, number of waits on it]
        self._lock = threading.Lock()
        self._parent = parent  # cancelling it cancels this one's waits too

    def cancel(self, message):
        with self._lock:
            self.message = message
            conds = [c for c, _ in self._waiting.values()]
        for cond in conds:
            with cond:
                cond.notify_all()

    def check(self):
        if self._parent is not None:
            self._parent.check()
        if self.message is not None:
            raise errors.CancelledError(None, None, self.message)

    def _enter(self, cond):
        if self._parent is not None:
            self._parent._enter(cond)
        with self._lock:
            self._waiting.setdefault(id(cond), [cond, 0])[1] += 1

    def _leave(self, cond):
        if self._parent is not None:
            self._parent._leave(cond)
        with self._lock:
            entry = self._waiting[id(cond)]
            entry[1] -= 1
            if not entry[1]:
                del self._waiting[id(cond)]


class cancellable:
    """`with cancellable(cancellation):` the runs of the block (and the threads that run
    their partitions) end their waits with CancelledError when `cancellation` is cancelled."""

    def __init__(self, cancellation):
        self._cancellation = cancellation

    def __enter__(self):
        self._outer = _state.cancellation
        _state.cancellation = self._cancellation
        self._cancellation.check()
        return self

    def __exit__(self, *exc):
        _state.cancellation = self._outer
        return False


def snapshot():
    """The calling thread's run state, to hand to the threads that run its partitions:
    (deadline, semaphore, cancellation, step container)."""
    return (_state.deadline, _state.semaphore, _state.cancellation, _state.step)


def restore(saved):
    _state.deadline, _state.semaphore, _state.cancellation, _state.step = saved


def with_cancellation(saved, cancellation):
    """`saved` (a snapshot) with its cancellation replaced."""
    return saved[:2] + (cancellation,) + saved[3:]


class run_scope:
    """`with run_scope(timeout_ms):` one Session.run on the calling thread: its deadline (a
    falsy `timeout_ms` keeps the outer one) and a fresh step container, emptied when the run
    ends (TF's per-step resource container)."""

    __slots__ = ("_timeout_ms", "_outer", "_step")

    def __init__(self, timeout_ms):
        self._timeout_ms = timeout_ms

    def __enter__(self):
        self._outer = (_state.deadline, _state.step)
        if self._timeout_ms:
            set_deadline(self._timeout_ms)
        self._step = _state.step = StepContainer()
        return self

    def __exit__(self, *exc):
        _state.deadline, _state.step = self._outer
        self._step.clear()
        return False


def current_step():
    """The step container of the calling thread's run, or None outside a run."""
    return _state.step


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
        return _wait(cond, ready, deadline, None)
    cancellation._enter(cond)
    try:
        return _wait(cond, ready, deadline, cancellation)
    finally:
        cancellation._leave(cond)


def _wait(cond, ready, deadline, cancellation):
    while True:
        if cancellation is not None:
            cancellation.check()
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
        if cancellation is not None:
            cancellation.check()
        if ready():
            return
