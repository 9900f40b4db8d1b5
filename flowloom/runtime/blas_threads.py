"""Sharing the cores between concurrent devices: the BLAS thread count during a run.

NumPy's OpenBLAS runs each matmul on all cores. When two devices run their partitions at
the same time, two multi-threaded matmuls oversubscribe the cores and both slow down; TF
avoids this with one intra-op pool shared by all devices. flowloom gets the same effect by
giving OpenBLAS `cores // concurrent_partitions` threads while a multi-device run is in
progress (measured on 2 cores: the two-tower step went from 0.8x to 1.6x of one device).
Without OpenBLAS (MKL, Accelerate, a CuPy-only run) this is a no-op.
"""

import contextlib
import ctypes
import os
import threading
import time

_lock = threading.Lock()
_state = {"active": 0, "saved": None, "lowered": False}
_api = []  # [(get, set)] once looked up; [] → not looked up yet; [None] → not available

_SYMBOLS = [("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
            ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
            ("openblas_get_num_threads", "openblas_set_num_threads")]


def _openblas():
    if _api:
        return _api[0]
    found = None
    try:
        with open("/proc/self/maps") as f:
            libs = sorted({line.split()[-1] for line in f if "openblas" in line.lower()
                           and line.split()[-1].startswith("/")})
        for path in libs:
            lib = ctypes.CDLL(path)
            for get, set_ in _SYMBOLS:
                if hasattr(lib, get) and hasattr(lib, set_):
                    found = (getattr(lib, get), getattr(lib, set_))
                    break
            if found:
                break
    except OSError:
        found = None
    _api.append(found)
    return found


def current():
    """BLAS's thread count (None without OpenBLAS)."""
    api = _openblas()
    return int(api[0]()) if api else None


@contextlib.contextmanager
def shared_between(partitions):
    """While the block runs, BLAS uses `cores // partitions` threads (at least one)."""
    with at_most(max(1, (os.cpu_count() or 1) // partitions) if partitions > 1 else 0):
        yield


class at_most:  # noqa: N801 - a context manager used as a function
    """While the block runs, BLAS uses at most `threads` threads (0: no limit). Sessions
    apply `ConfigProto.intra_op_parallelism_threads` this way: on a machine whose cores are
    busy with other processes, one BLAS thread per kernel avoids OpenBLAS's statically split
    matmuls waiting on a descheduled thread. (A class, not a generator: every Session.run
    enters one.)"""

    __slots__ = ("_threads", "_api")

    def __init__(self, threads):
        self._threads = threads

    def __enter__(self):
        threads = self._threads
        api = self._api = _openblas() if threads > 0 else None
        if api is None:
            return self
        with _lock:
            if _state["active"] == 0:
                _state["saved"] = api[0]()
                _state["lowered"] = False
            _state["active"] += 1
            if threads < _state["saved"]:
                api[1](threads)
                _state["lowered"] = True
        return self

    def __exit__(self, *exc):
        if self._api is not None:
            with _lock:
                _state["active"] -= 1
                if _state["active"] == 0 and _state["lowered"]:
                    self._api[1](_state["saved"])
        return False


# -- small kernels when the cores are busy (opt-in) -------------------------------------------
# OpenBLAS splits a matmul statically between its threads and waits for the slowest. On a
# machine whose cores also run other work, a thread that loses its core stalls the whole
# product for a scheduler slice (measured on 2 busy cores: [32,320]x[320,1024] takes 0.18 ms
# at best with 2 threads but 1-3 ms in one call of ten; 0.32 ms steadily with one). TF's
# Eigen pool steals work instead and degrades gracefully. With FLOWLOOM_BLAS_STALL_WATCH=1,
# a small product (under SPLIT_MIN_MACS multiply-adds) that takes far longer than its best
# time counts as a stall; two stalls within STALL_WINDOW small products send the next
# BACKOFF_CALLS of them to one thread; then all threads are tried again. It is off by
# default because OpenBLAS sums in another order on one thread than on several, so the
# watch makes a product's last bits depend on timing: one product repeated in one process
# came out different in most calls under load. Without it the thread count, and so every
# value, depends on the shapes and the config only (ConfigProto.intra_op_parallelism_threads
# = 1 is the deterministic way to run on busy cores). The watch also leaves the count alone
# while a Session.run limits it (`at_most`: intra_op_parallelism_threads, a plan that uses
# the kernels' pool, a multi-device run sharing the cores): the config then sets the count,
# and the count is process-wide, so a watch switching it would cut across those limits.
STALL_WATCH = os.environ.get("FLOWLOOM_BLAS_STALL_WATCH", "0").strip() == "1"
SPLIT_MIN_MACS = int(os.environ.get("FLOWLOOM_BLAS_SPLIT_MIN_MACS", str(1 << 25)))
BACKOFF_CALLS = 2000
_STALL_FACTOR, _STALL_SLACK = 4.0, 2e-4  # slower than 4x best + 0.2 ms: a stall
STALL_WINDOW = 200
_backoff = {"calls": 0, "single_until": 0, "last_stall": -(1 << 30)}
_best_seconds = {}  # (m, k, n) -> [the fastest time seen with all threads, calls timed]
_WARMUP_CALLS = 20  # a shape's first calls (cold caches, page faults) set its best only
# OpenBLAS runs a product of at most 65536 * GEMM_MULTITHREAD_THRESHOLD (>= 1) multiply-adds
# on the calling thread (interface/gemm.c): no thread of it can stall, nothing to watch.
ONE_THREAD_MACS = 1 << 16


def matmul(xp, a, b):
    """`xp.matmul(a, b)`; with the stall watch on, a small product runs on one BLAS thread
    while stalls are being seen (see above)."""
    if not STALL_WATCH or xp.__name__ != "numpy" or a.ndim != 2 or _state["active"]:
        return xp.matmul(a, b)
    macs = a.shape[0] * a.shape[1] * b.shape[-1]
    if macs <= ONE_THREAD_MACS or macs >= SPLIT_MIN_MACS:
        return xp.matmul(a, b)
    api = _api[0] if _api else _openblas()
    if api is None:
        return xp.matmul(a, b)
    get, set_ = api
    previous = get()
    if previous <= 1:
        return xp.matmul(a, b)
    _backoff["calls"] += 1
    if _backoff["calls"] < _backoff["single_until"]:
        set_(1)
        try:
            return xp.matmul(a, b)
        finally:
            set_(previous)
    key = (a.shape[0], a.shape[1], b.shape[-1])
    start = time.perf_counter()
    out = xp.matmul(a, b)
    seconds = time.perf_counter() - start
    seen = _best_seconds.get(key)
    if seen is None:
        _best_seconds[key] = [seconds, 1]
        return out
    best, count = seen
    seen[1] = count + 1
    if seconds < best:
        seen[0] = seconds
    elif count >= _WARMUP_CALLS and seconds > _STALL_FACTOR * best + _STALL_SLACK:
        # One stall now and then costs little; stalls in close succession mean busy cores.
        if _backoff["calls"] - _backoff["last_stall"] <= STALL_WINDOW:
            _backoff["single_until"] = _backoff["calls"] + BACKOFF_CALLS
        _backoff["last_stall"] = _backoff["calls"]
    return out
