"""Keeping freed host memory for the next step: glibc malloc tuning, set once per process.

A training step allocates and frees the same few dozen large arrays every step. glibc gives
freed memory at the top of the heap back to the kernel once it passes M_TRIM_THRESHOLD
(128 KiB, adapted upward only for mmapped chunks), so the next step touches fresh pages and
the kernel zero-fills them again: on the bench CNN step that was ~20 ms of system time per
step, a fifth of the step. TF keeps its memory in its own allocator (BFC) for the same reason.
Here malloc keeps up to `_KEEP_BYTES` of freed heap and serves arrays up to 32 MiB (glibc's
maximum) from the heap. Set FLOWLOOM_MALLOC_TUNING=0 to leave malloc alone; without glibc
this is a no-op.
"""

import ctypes
import os
import platform
import threading

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_KEEP_BYTES = 512 << 20
_MMAP_THRESHOLD_BYTES = 32 << 20  # glibc refuses larger values on 64-bit
_lock = threading.Lock()
_done = []


def keep_freed_memory():
    """Tunes glibc malloc to keep freed memory (once per process). Returns whether it did."""
    with _lock:
        if _done:
            return _done[0]
        ok = False
        if (os.environ.get("FLOWLOOM_MALLOC_TUNING", "1") != "0"
                and platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"):
            try:
                mallopt = ctypes.CDLL(None).mallopt
                mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
                ok = bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_BYTES)
                          and mallopt(_M_TRIM_THRESHOLD, _KEEP_BYTES))
            except (OSError, AttributeError):
                ok = False
        _done.append(ok)
        return ok
