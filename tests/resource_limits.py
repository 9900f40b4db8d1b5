"""Runs a hostile input in a forked child under a memory and time limit.

`run_limited(fn, *args)` forks; the child lowers RLIMIT_AS to its current address space plus
`extra_mb`, calls `fn(*args)` and reports how it ended: ("ok", None), or ("error", the
exception's class name, whether it is one of TF's classes). The parent kills a child still
running after `seconds`. The fuzz tests ask every input to end, in time and memory, either
normally or with a TF error class (tf.errors.* or the ValueError/TypeError TF raises at graph
construction); a MemoryError, another exception, a timeout or a crash fails them.
"""

import json
import os
import resource
import select
import signal
import time

import flowloom as tf

EXTRA_MB = 512
SECONDS = 5.0
TF_PYTHON_CLASSES = (ValueError, TypeError)


def _address_space():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


def _peak_rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def run_limited(fn, *args, extra_mb=EXTRA_MB, seconds=SECONDS):
    """Returns {"end": "ok"|"error"|"timeout"|"crash", "error": name, "tf": bool, ...}."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child never returns into the caller
        report = {"end": "crash"}
        try:
            os.close(read_fd)
            limit = _address_space() + extra_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            rss0 = _peak_rss()
            started = time.monotonic()
            try:
                fn(*args)
                report = {"end": "ok"}
            except Exception as e:  # noqa: BLE001 - how it ended is the report
                report = {"end": "error", "error": type(e).__name__,
                          "tf": isinstance(e, (tf.errors.OpError,) + TF_PYTHON_CLASSES),
                          "message": str(e)[:300]}
            report["seconds"] = time.monotonic() - started
            report["extra_rss_mb"] = (_peak_rss() - rss0) / 2**20
            os.write(write_fd, json.dumps(report).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    ready, _, _ = select.select([read_fd], [], [], seconds)
    if not ready:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(read_fd)
        return {"end": "timeout", "seconds": seconds}
    chunks = []
    while True:
        chunk = os.read(read_fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_fd)
    os.waitpid(pid, 0)
    return json.loads(b"".join(chunks) or b'{"end": "crash"}')


def assert_ends_well(fn, *args, **kwargs):
    """`fn(*args)` ends normally or with a TF error class, within the limits."""
    report = run_limited(fn, *args, **kwargs)
    assert report["end"] in ("ok", "error"), report
    assert report["end"] == "ok" or report["tf"], report
    return report
