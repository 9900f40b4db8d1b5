"""Runs a partitioned plan: each device's steps on its own thread, joined by a rendezvous.

NumPy releases the GIL inside its kernels, so devices really overlap. The session's
inter-op limit (`inter_op_parallelism_threads`) is a semaphore held while a kernel runs
and released while a partition waits in a Recv, so the limit bounds concurrent kernels
without being able to deadlock the partitions.

Control flow: a partition whose steps include Switch/Merge/Enter/Exit/NextIteration is run
by `flowloom.runtime.dataflow.run_partition(partition, vals, rendezvous, context)` — the one
hook for the frame-aware executor. It receives the same `Partition` (steps with `kind`
'op'/'send'/'recv', slots `ins`/`out`/`nout`/`frees`, bound `fn`), the shared value list,
the run's `Rendezvous` (send(key, value, is_dead) / recv(key) -> (value, is_dead)) and the
`RunContext` below (semaphore, stats recording, `execute_op(step, args)`).
"""

import queue
import sys
import threading
import time

from flowloom.framework import errors
from flowloom.runtime import blas_threads
from flowloom.runtime import blocking
from flowloom.runtime import devices as devices_lib
from flowloom.runtime import handoff
from flowloom.runtime.executor import deref, op_error, trace_step, Ref, _DEBUG
from flowloom.runtime.rendezvous import Rendezvous

_DUMMY = None  # the value a control-edge Send carries


class WorkerPool:
    """Daemon threads that run partitions; grows when every worker is busy (a partition may
    block in a Recv, so a bounded pool could starve the partition it waits for)."""

    def __init__(self):
        self._tasks = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0

    def submit(self, fn):
        with self._lock:
            start = self._idle == 0
            if not start:
                self._idle -= 1
        if start:
            # (never from a lowered pipeline thread: the worker would inherit its priority)
            handoff.start_thread(threading.Thread(target=self._work, daemon=True,
                                                  name="flowloom-inter-op"))
        self._tasks.put(fn)

    def _work(self):
        while True:
            fn = self._tasks.get()
            fn()
            with self._lock:
                self._idle += 1


_POOL = WorkerPool()


class RunContext:
    """What partition runners share during one run."""

    __slots__ = ("vals", "rendezvous", "semaphore", "stats", "t0_ns")

    def __init__(self, vals, rendezvous, semaphore, stats):
        self.vals = vals
        self.rendezvous = rendezvous
        self.semaphore = semaphore
        self.stats = stats  # None, or {device name: [NodeRecord]}
        self.t0_ns = time.time_ns()

    def execute_op(self, step, args):
        """Runs one op's kernel under the inter-op limit, wrapping failures in TF errors."""
        sem = self.semaphore
        sem.acquire()
        # A kernel that blocks (runtime/blocking.py) gives its slot back while it waits.
        outer = blocking.set_semaphore(sem)
        try:
            return step.fn(*args)
        except Exception as e:  # noqa: BLE001 - every kernel failure becomes a TF error
            raise op_error(step.op, args, e) from (None if isinstance(e, errors.OpError) else e)
        finally:
            if blocking.set_semaphore(outer) is sem:
                sem.release()


class NodeRecord:
    """One executed node, for RunMetadata.step_stats (`step` gives its timeline label)."""

    __slots__ = ("name", "type", "start_ns", "end_ns", "outputs", "step", "thread_id")

    def __init__(self, name, type_, start_ns, end_ns, outputs, step, thread_id):
        self.name = name
        self.type = type_
        self.start_ns = start_ns
        self.end_ns = end_ns
        self.outputs = outputs
        self.step = step
        self.thread_id = thread_id


def run_partition(partition, ctx):
    """Runs one device's steps in order (the dataflow executor takes control flow)."""
    if partition.has_control_flow:
        try:
            from flowloom.runtime import dataflow
            run_cf = dataflow.run_partition
        except (ImportError, AttributeError):
            raise errors.UnimplementedError(
                None, None, "This graph uses TF1 control flow (Switch/Merge/Enter/Exit/"
                "NextIteration) across devices; runtime/dataflow.py has no run_partition for "
                "partitioned plans yet.") from None
        run_cf(partition, ctx.vals, ctx.rendezvous, ctx)
        return
    if partition.lanes:
        _run_lanes(partition, ctx)
        return
    vals = ctx.vals
    rdv = ctx.rendezvous
    stats = ctx.stats
    records = None
    tid = threading.get_ident() & 0xFFFFFFFF
    for step in partition.steps:
        kind = step.kind
        if stats is not None:
            # (A merged sequential list holds steps of several devices.)
            records = stats.setdefault(step.device.name, [])
            start = time.time_ns()
        if kind == "op":
            args = [vals[i] for i in step.ins]
            if step.derefs:
                for j in step.derefs:
                    args[j] = deref(args[j], step.op)
            _run_op(step, args, ctx, records, start if records is not None else 0, tid)
        elif kind == "send":
            value = _DUMMY
            if step.ins:
                value = vals[step.ins[0]]
                if type(value) is Ref and not step.host_to_host:
                    # Between host devices a variable's buffer is shared, as in TF (the
                    # receiver reads it when it runs); a GPU gets the value at send time.
                    value = deref(value, step.op)
            rdv.send(step.key, value, False)
            if records is not None:
                records.append(NodeRecord(step.name, "_Send", start, time.time_ns(), [],
                                          step, tid))
        else:
            value, is_dead = rdv.recv(step.key)
            if _DEBUG:
                t = time.perf_counter()
            if value is not None:
                value = devices_lib.transfer(value, step.src, step.dst)
            vals[step.out] = value
            if _DEBUG:
                _trace_copy(step, value, time.perf_counter() - t)
            if records is not None:
                records.append(NodeRecord(step.name, "_Recv", start, time.time_ns(),
                                          [value] if value is not None else [], step, tid))
        for i in step.frees:
            vals[i] = None


class _Lane:
    """A blocking op running on a worker thread of its own: `join()` waits for it."""

    def __init__(self):
        self.done = threading.Event()
        self.error = None

    def join(self):
        self.done.wait()
        if self.error is not None:
            raise self.error


def _run_lanes(partition, ctx):
    """Runs a partition (op steps only) whose blocking ops do not all wait for each other: each
    blocking op runs on a worker thread, as TF's asynchronous queue kernels wait without holding
    a thread, so the enqueue of a step runs while its dequeue waits; a step that reads a
    blocking op's output or has it as a control input waits for it first. An op that fails
    cancels the waits of the others (the run's Cancellation), and the first failure is raised.
    """
    vals = ctx.vals
    stats = ctx.stats
    caller_state = blocking.snapshot()
    cancellation = blocking.Cancellation(parent=caller_state[2])
    worker_state = blocking.with_cancellation(caller_state, cancellation)
    lanes = {}  # op -> _Lane, and out slot -> _Lane
    started = []
    failures = []  # in the order they happened: the first is the cause

    def run(step, args, record):
        _run_op(step, args, ctx, record, time.time_ns(), threading.get_ident() & 0xFFFFFFFF)

    def in_lane(step, args, lane, record):
        outer = blocking.snapshot()
        blocking.restore(worker_state)
        try:
            run(step, args, record)
            for i in step.frees:
                vals[i] = None
        except BaseException as e:  # noqa: BLE001 - raised by the step that joins the lane
            lane.error = e
            failures.append(e)
            cancellation.cancel("Run cancelled: another op of the step failed")
        finally:
            blocking.restore(outer)
            lane.done.set()

    try:
        with blocking.cancellable(cancellation):
            for step in partition.steps:
                op = step.op
                for i in step.ins:
                    if i in lanes:
                        lanes[i].join()
                for c in op._control_inputs:
                    if c in lanes:
                        lanes[c].join()
                args = [vals[i] for i in step.ins]
                for j in step.derefs:
                    args[j] = deref(args[j], op)
                record = stats.setdefault(step.device.name, []) if stats is not None else None
                if op._type in blocking.BLOCKING_TYPES:
                    lane = _Lane()
                    lanes[op] = lane
                    for i in range(step.out, step.out + step.nout):
                        lanes[i] = lane
                    started.append(lane)
                    _POOL.submit(lambda s=step, a=args, ln=lane, r=record: in_lane(s, a, ln, r))
                    continue
                run(step, args, record)
                for i in step.frees:
                    vals[i] = None
    except BaseException as e:
        if not any(e is f for f in failures):  # an op of this thread failed
            failures.append(e)
        cancellation.cancel("Run cancelled: another op of the step failed")
    for lane in started:
        lane.done.wait()
    if failures:
        raise failures[0]


def _run_op(step, args, ctx, records, start, tid):
    """Runs an op step's kernel on `args` into its output slots; records it in `records`
    (a list of NodeRecords, or None) as started at `start` (time.time_ns())."""
    if _DEBUG:
        t = time.perf_counter()
    r = ctx.execute_op(step, args)
    if _DEBUG:
        trace_step(step, r, time.perf_counter() - t)
    vals = ctx.vals
    if step.nout == 1:
        vals[step.out] = r
    elif step.nout:
        vals[step.out: step.out + step.nout] = r
    if records is not None:
        outs = [r] if step.nout == 1 else list(r or ())
        records.append(NodeRecord(step.op._name, step.op._type, start, time.time_ns(), outs,
                                  step, tid))


def _trace_copy(step, value, seconds):
    what = step.tensor.name if step.tensor is not None else "^" + step.control_op._name
    if type(value) is Ref:
        size = f"{getattr(value.value, 'nbytes', 0)} bytes (variable buffer, shared)"
    elif step.tensor is None:
        size = "control edge"
    else:
        size = f"{getattr(value, 'nbytes', 0)} bytes"
    print(f"[flowloom] {'_Recv':<16} {what:<40} {step.src.name} -> {step.dst.name} "
          f"{seconds * 1e6:8.1f} us  {size}", file=sys.stderr)


def run_partitioned(pplan, feed_values, semaphore, stats=None):
    """Runs every partition of `pplan` once; returns the raw fetched values.

    Raises:
      The first error any partition raised (the others are aborted through the rendezvous).
    """
    vals = [None] * pplan.num_slots
    for i, (v, device) in enumerate(zip(feed_values, pplan.feed_devices)):
        vals[i] = v if device.is_host else device.put(v)
    ctx = RunContext(vals, Rendezvous(), semaphore, stats)
    parts = pplan.partitions
    if len(parts) == 1:
        run_partition(parts[0], ctx)
    elif pplan.sequential is not None and pplan.run_sequentially:
        # A small plan: every device's steps in the global order on this thread. Thread
        # handoffs would cost more than the overlap gains; a slow run switches back.
        t0 = time.perf_counter()
        run_partition(pplan.sequential, ctx)
        if time.perf_counter() - t0 > SEQUENTIAL_LIMIT_S:
            pplan.run_sequentially = False
    else:
        t0 = time.perf_counter()
        with blas_threads.shared_between(len(parts)):
            _run_concurrently(parts, ctx)
        if pplan.sequential is not None and time.perf_counter() - t0 < SEQUENTIAL_LIMIT_S:
            pplan.run_sequentially = True
    return [vals[i] for i in pplan.fetch_slots], ctx


# Plans whose runs take less than this run on the calling thread (see run_partitioned).
SEQUENTIAL_LIMIT_S = 0.002


def _run_concurrently(parts, ctx):
    remaining = [len(parts)]
    failures = []
    done = threading.Condition(threading.Lock())

    # The run's deadline, for the worker threads; and its cancellation: a failing partition
    # ends the waits of the others' blocked kernels (a dequeue of this run), as in TF.
    caller_state = blocking.snapshot()
    cancellation = blocking.Cancellation(parent=caller_state[2])
    caller_state = blocking.with_cancellation(caller_state, cancellation)

    def runner(part):
        outer = blocking.snapshot()
        blocking.restore(caller_state)
        try:
            run_partition(part, ctx)
        except BaseException as e:  # noqa: BLE001 - re-raised on the calling thread
            failures.append(e)
            ctx.rendezvous.abort(e)
            cancellation.cancel("Run cancelled: another op of the step failed")
        finally:
            blocking.restore(outer)
            with done:
                remaining[0] -= 1
                done.notify_all()

    for part in parts[1:]:
        _POOL.submit(lambda part=part: runner(part))
    runner(parts[0])
    with done:
        while remaining[0]:
            done.wait()
    if failures:
        # The first failure is the cause; the others are the aborts it triggered.
        raise failures[0]
