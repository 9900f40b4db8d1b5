"""A Session runs plans whose kernels use the kernel pool with BLAS on one thread."""

import contextlib

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.nn import kernel_threads
from flowloom.runtime import blas_threads


def test_plans_that_use_the_kernel_pool_run_with_blas_on_one_thread(monkeypatch):
    if kernel_threads.POOL is None:
        pytest.skip("one kernel worker: no pool")
    entered = []
    at_most = blas_threads.at_most

    @contextlib.contextmanager
    def recording_at_most(threads):
        if threads == 1:
            entered.append(True)
        with at_most(threads):
            yield

    monkeypatch.setattr(blas_threads, "at_most", recording_at_most)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [8, 48, 48, 16])  # 1.2 MB: worth the workers
        w = tf.constant(np.full((3, 3, 16, 16), 0.01, np.float32))
        y = tf.reduce_sum(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"))
        small = tf.matmul(tf.ones([2, 2]), tf.ones([2, 2]))
    feed = {x: np.ones((8, 48, 48, 16), np.float32)}
    with tf.Session(graph=graph) as sess:
        first = sess.run(y, feed)
        assert entered == []  # the first run finds out
        assert sess.run(y, feed) == pytest.approx(first, rel=1e-5)
        assert entered == [True]
        sess.run(small)
        sess.run(small)
        assert entered == [True]  # plans that never used the pool keep BLAS's threads
