"""The kernels' worker threads: one pool for the parallel work inside CPU kernels.

TF runs every kernel's parallel work on one intra-op pool. flowloom's kernels split their
work (image blocks of a convolution, batch slices of a pooling, row blocks of a matmul) over
these few threads. Two pools, ours and OpenBLAS's, each sized to the cores, oversubscribe
them, and OpenBLAS's threads wait whole scheduler ticks for a core on a loaded machine (the
bench CNN step measured 75-250 ms wall with both pools on 2 cores, a steady 38-55 ms with
one). So a Session runs a plan whose kernels used this pool with BLAS on one thread
(`uses()` tells it), and MatMul then splits large products over this pool too; plans that
never use it (an MLP) keep BLAS's own threading (blas_threads.matmul), which is ~15% faster
for mid-sized matmuls on a quiet machine. NumPy releases the GIL inside its loops and
matmuls. FLOWLOOM_NN_THREADS (else OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, the cores) sets
the number of workers (1: no pool, and BLAS is left alone).
"""

import itertools
import os
import threading

import numpy as np

from flowloom.runtime import blas_threads


def _worker_count():
    """FLOWLOOM_NN_THREADS, else the BLAS thread count the environment asks for (a process
    told to use one BLAS thread gets no pool either), else the cores; at most 4."""
    for var in ("FLOWLOOM_NN_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(var, "").strip()
        if value.isdigit() and int(value) > 0:
            return min(int(value), 4)
    return max(1, min(os.cpu_count() or 1, 4))


def _pool(workers):
    if workers <= 1:
        return None  # (concurrent.futures, with logging and queue, is not even imported)
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(workers, thread_name_prefix="flowloom-kernels")


WORKERS = _worker_count()
POOL = _pool(WORKERS)
# Less work than this runs on the calling thread: handing it over would cost more.
PARALLEL_MIN_BYTES = 1 << 20
# Groups per worker: a worker that the OS deschedules (a loaded machine) leaves its queued
# groups to the others instead of holding up the whole op.
GROUPS_PER_WORKER = 2
# Matmuls under this many multiply-adds run whole.
MATMUL_MIN_MACS = 1 << 21


def start_all():
    """Starts every worker of the pool now, on behalf of the calling thread: a worker the
    pool started later, from whichever thread submitted work, would inherit that thread's
    scheduling priority (runtime/handoff.py calls this once per process). Waits at most a
    second for busy workers."""
    if POOL is None:
        return
    barrier = threading.Barrier(WORKERS)

    def meet():
        try:
            barrier.wait(timeout=1.0)
        except threading.BrokenBarrierError:
            pass
    for f in [POOL.submit(meet) for _ in range(WORKERS)]:
        f.result()


_uses = [0]  # how many times kernels handed work to the pool (read by Session.run)


def uses():
    """A count that grows whenever a kernel hands work to the pool."""
    return _uses[0]


def over_batch(fn, n, nbytes):
    """Calls fn(batch_slice) for slices covering range(n), in parallel when worth it."""
    parts = min(WORKERS, n) if POOL is not None and nbytes >= PARALLEL_MIN_BYTES else 1
    if parts <= 1:
        fn(slice(0, n))
        return
    _uses[0] += 1
    bounds = np.linspace(0, n, parts + 1).astype(int)
    for f in [POOL.submit(fn, slice(a, b)) for a, b in itertools.pairwise(bounds)]:
        f.result()


def group_count(nblocks, nbytes, big_matmuls=False):
    """How many groups `in_groups` splits `nblocks` blocks into (1: it runs them in order on
    the calling thread)."""
    groups = min(WORKERS * GROUPS_PER_WORKER, nblocks) \
        if POOL is not None and nbytes >= PARALLEL_MIN_BYTES else 1
    if groups > 1 and big_matmuls and (blas_threads.current() or 1) > 1:
        groups = 1
    return groups


def in_groups(fn, blocks, nbytes, big_matmuls=False):
    """[fn(group)] over contiguous groups of `blocks`, queued on the workers when `nbytes` of
    work make threads worth it. With `big_matmuls` (matmuls BLAS would thread), only while
    BLAS runs on one thread: one level of parallelism at a time."""
    groups = group_count(len(blocks), nbytes, big_matmuls)
    if groups <= 1:
        return [fn(blocks)]
    _uses[0] += 1
    bounds = np.linspace(0, len(blocks), groups + 1).astype(int)
    futures = [POOL.submit(fn, blocks[a:b]) for a, b in itertools.pairwise(bounds)]
    return [f.result() for f in futures]


def splits_matmul(xp, a, b):
    """Whether `matmul(a, b)` splits the product: a large 2-D NumPy product while BLAS runs
    on one thread (a run whose kernels use this pool)."""
    if POOL is None or xp is not np or a.ndim != 2 or b.ndim != 2:
        return False
    m, k = a.shape
    n = b.shape[1]
    return (m * n * k >= MATMUL_MIN_MACS and max(m, n) >= 2 * WORKERS
            and (blas_threads.current() or 1) == 1)


def matmul(a, b):
    """a @ b for 2-D NumPy arrays, in row (or column) blocks on the workers."""
    m, n = a.shape[0], b.shape[1]
    if POOL is None:
        return np.matmul(a, b)
    out = np.empty((m, n), np.result_type(a, b))
    if m >= n:
        bounds = np.linspace(0, m, WORKERS + 1).astype(int)

        def block(lo, hi):
            np.matmul(a[lo:hi], b, out=out[lo:hi])
    else:
        bounds = np.linspace(0, n, WORKERS + 1).astype(int)

        def block(lo, hi):
            out[:, lo:hi] = np.matmul(a, b[:, lo:hi])
    # One block per worker, the first on this thread (a handoff costs ~10 us).
    pairs = list(itertools.pairwise(bounds))
    futures = [POOL.submit(block, lo, hi) for lo, hi in pairs[1:]]
    block(*pairs[0])
    for f in futures:
        f.result()
    return out
