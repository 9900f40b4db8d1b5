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

_lock = threading.Lock()
_state = {"active": 0, "saved": None}
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


@contextlib.contextmanager
def shared_between(partitions):
    """While the block runs, BLAS uses `cores // partitions` threads (at least one)."""
    with at_most(max(1, (os.cpu_count() or 1) // partitions) if partitions > 1 else 0):
        yield


@contextlib.contextmanager
def at_most(threads):
    """While the block runs, BLAS uses at most `threads` threads (0: no limit). Sessions
    apply `ConfigProto.intra_op_parallelism_threads` this way: on a machine whose cores are
    busy with other processes, one BLAS thread per kernel avoids OpenBLAS's statically split
    matmuls waiting on a descheduled thread."""
    api = _openblas() if threads > 0 else None
    if api is None:
        yield
        return
    get, set_ = api
    with _lock:
        if _state["active"] == 0:
            _state["saved"] = get()
        _state["active"] += 1
        if threads < _state["saved"]:
            set_(threads)
    try:
        yield
    finally:
        with _lock:
            _state["active"] -= 1
            if _state["active"] == 0:
                set_(_state["saved"])


# -- small kernels on one thread ---------------------------------------------------------------
# OpenBLAS splits a matmul statically between its threads and waits for the slowest. On a
# machine whose cores also run other work, a thread that loses its core stalls the whole
# product for a scheduler slice (measured on 2 busy cores: [32,320]x[320,1024] takes 0.18 ms
# at best but 1-3 ms in one call of ten with 2 threads, 0.32 ms steadily with one). TF's Eigen
# pool steals work instead and degrades gracefully. So products below SPLIT_MIN_MACS
# multiply-adds run on one thread; larger ones keep all threads. (OpenBLAS's thread count is
# process-wide, so this is skipped while a multi-device run shares the cores: see
# `shared_between`.)
SPLIT_MIN_MACS = int(os.environ.get("FLOWLOOM_BLAS_SPLIT_MIN_MACS", str(1 << 25)))


def matmul(xp, a, b):
    """`xp.matmul(a, b)`, on one BLAS thread when the product is small (see above)."""
    if xp.__name__ != "numpy" or a.ndim != 2 or _state["active"] or \
            a.shape[0] * a.shape[1] * b.shape[-1] >= SPLIT_MIN_MACS:
        return xp.matmul(a, b)
    api = _api[0] if _api else _openblas()
    if api is None:
        return xp.matmul(a, b)
    get, set_ = api
    previous = get()
    if previous <= 1:
        return xp.matmul(a, b)
    set_(1)
    try:
        return xp.matmul(a, b)
    finally:
        set_(previous)
