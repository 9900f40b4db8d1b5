"""The kernels' worker pool: sharded matmuls equal whole ones."""

import numpy as np
import pytest

from flowloom.ops.nn import kernel_threads
from flowloom.runtime import blas_threads


@pytest.mark.parametrize("shape", [(37, 11, 5), (6, 9, 41), (64, 64, 64)])
def test_sharded_matmul_matches_numpy(shape, monkeypatch):
    if kernel_threads.POOL is None:
        pytest.skip("one worker: nothing to shard")
    monkeypatch.setattr(kernel_threads, "MATMUL_MIN_MACS", 0)
    monkeypatch.setattr(blas_threads, "current", lambda: 1)
    m, k, n = shape
    rng = np.random.default_rng(m)
    a = rng.standard_normal((k, m)).astype(np.float32).T  # a transposed view, as MatMul passes
    b = rng.standard_normal((k, n)).astype(np.float32)
    assert kernel_threads.splits_matmul(np, a, b)
    got = kernel_threads.matmul(a, b)
    assert got.dtype == np.float32 and got.shape == (m, n)
    np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-5)


def test_in_groups_covers_every_block_once(monkeypatch):
    monkeypatch.setattr(kernel_threads, "PARALLEL_MIN_BYTES", 0)
    blocks = list(range(11))
    groups = kernel_threads.in_groups(list, blocks, 1)
    assert sorted(i for g in groups for i in g) == blocks


def test_relu_bias_add_and_relu_grad_in_row_blocks_match_numpy(monkeypatch):
    import flowloom as tf

    monkeypatch.setattr(kernel_threads, "PARALLEL_MIN_BYTES", 0)
    rng = np.random.default_rng(3)
    xv = rng.standard_normal((5, 4, 3, 6)).astype(np.float32)
    bv = rng.standard_normal(6).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(xv)
        y = tf.nn.relu(tf.nn.bias_add(x, tf.constant(bv)))
        (dx,) = tf.gradients(tf.reduce_sum(y * y), [x])
    with tf.Session(graph=graph) as sess:
        yv, dxv = sess.run([y, dx])
    want = np.maximum(xv + bv, 0)
    np.testing.assert_allclose(yv, want, rtol=1e-6)
    np.testing.assert_allclose(dxv, 2 * want * (want > 0), rtol=1e-6)
