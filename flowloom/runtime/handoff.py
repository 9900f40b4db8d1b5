"""The interpreter's thread switch interval while flowloom runs compute on threads of its own.

Queue runners and tf.data's background threads are Python threads: while one of them runs
Python code (a reader, a preprocessing subgraph), a thread that wants the GIL back — the
training step's thread, after a NumPy kernel released it — waits until the running thread
is asked to drop it, which CPython does only after its switch interval (5 ms by default).
A step that reacquires the GIL hundreds of times then pays milliseconds each time the
pipeline is busy, where TF's C++ threads cost it nothing. So when flowloom starts such
threads it lowers the interval to `FLOWLOOM_SWITCH_INTERVAL` seconds (default 0.001; the
CIFAR-10 step fed by its queue went from 0.74x to 0.89x of the fed step, bench/
queue_fed_step.py). It only ever lowers it, once per process; `FLOWLOOM_SWITCH_INTERVAL=0`
leaves the interpreter's setting alone.

Queue runner threads also run at a lower OS scheduling priority (`lower_this_thread`): the
training step's own threads (the kernels' pool, BLAS's) use the cores in bursts, and an op
split between them waits for its last part, so a runner that takes a core from one of them
delays the whole op; at a lower priority the runners get the cores the step leaves idle
(measured on the CIFAR-10 step fed by its queue, 2 cores: the kernel threads' wait for a
core fell from 24 to 16 ms a step, what it is when the step is fed), and a starved queue
blocks the step, whose cores then go idle for the runners. Other processes busy on the same
cores are favoured over the runners too: `FLOWLOOM_PIPELINE_NICE=0` leaves them at the
process's priority, as TF's are. On Linux the runner raises its own nice value by
`FLOWLOOM_PIPELINE_NICE` (default 10); other systems have no per-thread nice value and are
left alone. A thread inherits its creator's priority and an unprivileged process can never
lower a nice value again, so the shared workers the step also uses are never started by a
lowered thread: the kernels' pool is started whole beforehand (`prepare_lowered_threads`,
once per process), and the inter-op pool starts its threads through `start_thread`, which
hands the start to a thread at normal priority.
"""

import os
import queue
import sys
import threading

_done = []


def quick_handoff():
    """Lowers the switch interval (see above); called where flowloom starts its threads."""
    if _done:
        return
    _done.append(True)
    try:
        interval = float(os.environ.get("FLOWLOOM_SWITCH_INTERVAL") or "0.001")
    except ValueError:
        return
    if 0 < interval < sys.getswitchinterval():
        sys.setswitchinterval(interval)


_local = threading.local()  # .lowered: this thread runs at the pipeline's priority
_starter = []  # [the SimpleQueue of a thread at normal priority that starts threads]
_starter_lock = threading.Lock()
_DEFAULT_NICE = 10


def pipeline_nice():
    """How much a queue runner thread raises its nice value (0: not at all)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "setpriority"):
        return 0
    try:
        nice = int(os.environ.get("FLOWLOOM_PIPELINE_NICE") or _DEFAULT_NICE)
    except ValueError:
        return 0
    return max(0, min(nice, 19))


def prepare_lowered_threads():
    """Readies the process for threads that lower their priority: starts the thread that
    starts shared workers for them, and every worker of the kernels' pool. Called by the
    thread that creates the pipeline threads (it keeps its priority); False when no thread
    will be lowered (`pipeline_nice` is 0)."""
    if not pipeline_nice():
        return False
    with _starter_lock:
        if _starter:
            return True
        if getattr(_local, "lowered", False):
            return False  # a lowered thread would start its helpers lowered
        requests = queue.SimpleQueue()
        threading.Thread(target=_start_threads, args=(requests,), daemon=True,
                         name="flowloom-thread-starter").start()
        from flowloom.ops.nn import kernel_threads

        kernel_threads.start_all()
        _starter.append(requests)
    return True


def lower_this_thread():
    """Raises the calling thread's nice value by `pipeline_nice()` (after
    `prepare_lowered_threads`; never the main thread). True when it did."""
    nice = pipeline_nice()
    if not nice or not _starter or getattr(_local, "lowered", False) or \
            threading.current_thread() is threading.main_thread():
        return False
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + nice))
    except OSError:
        return False
    _local.lowered = True
    return True


def start_thread(thread):
    """`thread.start()` such that `thread` runs at normal priority: from a lowered thread,
    the start is done by the starter thread."""
    if not getattr(_local, "lowered", False):
        thread.start()
        return
    done, failed = threading.Event(), []
    _starter[0].put((thread, done, failed))
    done.wait()
    if failed:
        raise failed[0]


def _start_threads(requests):
    while True:
        thread, done, failed = requests.get()
        try:
            thread.start()
        except Exception as e:  # noqa: BLE001 - raised in the thread that asked
            failed.append(e)
        done.set()
