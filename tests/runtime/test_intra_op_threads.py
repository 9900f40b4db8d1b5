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


def test_small_matmul_backs_off_to_one_thread_after_stalls(monkeypatch):
    api = blas_threads._openblas()
    if api is None:
        pytest.skip("NumPy is not linked with OpenBLAS")
    get, set_ = api
    before = get()
    if before <= 1:
        pytest.skip("one BLAS thread already")
    calls = []
    monkeypatch.setattr(blas_threads, "_api", [(get, lambda n: (calls.append(n), set_(n)))])
    monkeypatch.setattr(blas_threads, "_backoff",
                        {"calls": 0, "single_until": 0, "last_stall": -(1 << 30)})
    monkeypatch.setattr(blas_threads, "_best_seconds", {})
    monkeypatch.setattr(blas_threads, "ONE_THREAD_MACS", 0)  # watch even this tiny product
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((8, 5)), rng.standard_normal((5, 3))
    # Idle cores: small products keep every thread while they run near their best time.
    for _ in range(30):
        np.testing.assert_array_equal(blas_threads.matmul(np, a, b), a @ b)
    assert calls == []
    # Two stalls close together (every call is one once the best is tiny and there is no
    # slack) send the following small products to one thread, restoring the count after.
    monkeypatch.setattr(blas_threads, "_STALL_SLACK", 0.0)
    blas_threads._best_seconds[(8, 5, 3)][0] = 1e-12
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
