"""ConfigProto.intra_op_parallelism_threads limits BLAS threads during a session's runs."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.runtime import blas_threads


def test_intra_op_threads_limit_blas_during_run_and_restore(monkeypatch):
    api = blas_threads._openblas()
    if api is None:
        pytest.skip("NumPy is not linked with OpenBLAS")
    get, _ = api
    before = get()
    seen = []
    from flowloom.runtime import executor

    real_run_plan = executor.run_plan

    def recording_run_plan(plan, feed_values):
        seen.append(get())
        return real_run_plan(plan, feed_values)

    monkeypatch.setattr(executor, "run_plan", recording_run_plan)
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [4, 4])
    y = tf.matmul(x, x)
    sess = tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=1))
    out = sess.run(y, {x: np.eye(4, dtype=np.float32)})
    np.testing.assert_array_equal(out, np.eye(4))
    tf.Session().run(y, {x: np.eye(4, dtype=np.float32)})
    assert seen == [1, before]
    assert get() == before
    # Nested limits keep the smallest and restore the original at the end.
    with blas_threads.at_most(1), blas_threads.shared_between(2):
        assert get() == 1
    assert get() == before


def _watch_stalls(monkeypatch, get, set_):
    """A fresh stall watch that sees every product (even tiny ones); the list of the
    thread counts it sets."""
    calls = []
    monkeypatch.setattr(blas_threads, "_api", [(get, lambda n: (calls.append(n), set_(n)))])
    monkeypatch.setattr(blas_threads, "_backoff",
                        {"calls": 0, "single_until": 0, "last_stall": -(1 << 30)})
    monkeypatch.setattr(blas_threads, "_best_seconds", {})
    monkeypatch.setattr(blas_threads, "ONE_THREAD_MACS", 0)
    return calls


def _stall_every_call(monkeypatch, shape):
    seen = blas_threads._best_seconds.setdefault(shape, [1e-12, blas_threads._WARMUP_CALLS])
    seen[0] = 1e-12
    monkeypatch.setattr(blas_threads, "_STALL_SLACK", 0.0)


def test_small_matmul_backs_off_to_one_thread_after_stalls(monkeypatch):
    api = blas_threads._openblas()
    if api is None:
        pytest.skip("NumPy is not linked with OpenBLAS")
    get, set_ = api
    before = get()
    if before <= 1:
        pytest.skip("one BLAS thread already")
    calls = _watch_stalls(monkeypatch, get, set_)
    monkeypatch.setattr(blas_threads, "STALL_WATCH", True)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((8, 5)), rng.standard_normal((5, 3))
    # Idle cores: small products keep every thread while they run near their best time.
    for _ in range(30):
        np.testing.assert_array_equal(blas_threads.matmul(np, a, b), a @ b)
    assert calls == []
    # Two stalls close together (every call is one once the best is tiny and there is no
    # slack) send the following small products to one thread, restoring the count after.
    _stall_every_call(monkeypatch, (8, 5, 3))
    blas_threads.matmul(np, a, b)
    blas_threads.matmul(np, a, b)
    assert calls == []
    np.testing.assert_array_equal(blas_threads.matmul(np, a, b), a @ b)
    assert calls == [1, before] and get() == before
    # Large products always keep every thread.
    calls.clear()
    monkeypatch.setattr(blas_threads, "SPLIT_MIN_MACS", 10)
    np.testing.assert_array_equal(blas_threads.matmul(np, a, b), a @ b)
    assert calls == []


def _stalled_products(monkeypatch, a, b, calls=40):
    """MatMul's kernel on a @ b, `calls` times, with every call after the warm-up timed as
    a stall."""
    from flowloom.ops.math import matmul_ops

    outs = []
    for i in range(calls):
        if i == blas_threads._WARMUP_CALLS + 1:
            _stall_every_call(monkeypatch, (a.shape[0], a.shape[1], b.shape[1]))
        outs.append(matmul_ops.matmul_kernel(np, a, b, transpose_a=False, transpose_b=False))
    return outs


def test_a_product_has_the_same_bits_however_long_its_calls_take(monkeypatch):
    # OpenBLAS sums in another order on one thread than on two ([1030,8]x[8,520] float32:
    # ~14,000 of 535,600 elements differ in their last bits), so a timing-driven switch
    # of the thread count made one product differ from call to call in one process.
    api = blas_threads._openblas()
    if api is None:
        pytest.skip("NumPy is not linked with OpenBLAS")
    get, set_ = api
    if get() <= 1:
        pytest.skip("one BLAS thread already")
    calls = _watch_stalls(monkeypatch, get, set_)
    rng = np.random.RandomState(0)
    a = rng.standard_normal((1030, 8)).astype(np.float32)
    b = rng.standard_normal((8, 520)).astype(np.float32)
    outs = _stalled_products(monkeypatch, a, b)
    assert calls == []  # the watch is off by default: the count depends on the config only
    assert all(out.tobytes() == outs[0].tobytes() for out in outs)


def test_the_stall_watch_leaves_a_session_limit_alone(monkeypatch):
    # While a Session.run limits BLAS threads (intra_op_parallelism_threads, a plan using the
    # kernels' pool, devices sharing the cores), the config sets the count, not the watch.
    api = blas_threads._openblas()
    if api is None:
        pytest.skip("NumPy is not linked with OpenBLAS")
    get, set_ = api
    before = get()
    if before <= 1:
        pytest.skip("one BLAS thread already")
    calls = _watch_stalls(monkeypatch, get, set_)
    monkeypatch.setattr(blas_threads, "STALL_WATCH", True)
    rng = np.random.RandomState(1)
    a, b = rng.standard_normal((40, 30)), rng.standard_normal((30, 60))
    with blas_threads.at_most(before):  # a limit that lowers nothing still holds the count
        _stalled_products(monkeypatch, a, b)
    assert calls == [] and get() == before
    blas_threads._best_seconds.clear()
    # Outside a limit the same stalls do switch it (the watch is on).
    _stalled_products(monkeypatch, a, b)
    assert calls[:2] == [1, before] and get() == before
