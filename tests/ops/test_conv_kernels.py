"""nn_kernels' convolution and pooling paths (im2col, Winograd, blocked pooling) against
direct float64 references written with loops over kernel offsets."""

import numpy as np
import pytest

from flowloom.ops.nn import kernel_threads, nn_kernels, winograd


def _conv_ref(x, w, pads_h, pads_w):
    """Stride-1 correlation in float64, one kernel offset at a time."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    kh, kw = w.shape[:2]
    xp = np.pad(x, ((0, 0), pads_h, pads_w, (0, 0)))
    oh, ow = xp.shape[1] - kh + 1, xp.shape[2] - kw + 1
    out = np.zeros(x.shape[:1] + (oh, ow, w.shape[3]))
    for i in range(kh):
        for j in range(kw):
            out += xp[:, i:i + oh, j:j + ow] @ w[i, j]
    return out


def _filter_grad_ref(x, dy, r, pads_h, pads_w):
    xp = np.pad(x.astype(np.float64), ((0, 0), pads_h, pads_w, (0, 0)))
    oh, ow = dy.shape[1:3]
    dyf = dy.astype(np.float64).reshape(-1, dy.shape[3])
    return np.stack([np.stack([xp[:, i:i + oh, j:j + ow].reshape(-1, x.shape[3]).T @ dyf
                               for j in range(r)]) for i in range(r)])


@pytest.mark.parametrize("m,r", [(2, 3), (4, 3), (2, 5), (4, 5)])
def test_winograd_matrices_are_exact_in_float64(m, r):
    at, g, bt = winograd.matrices(m, r, np.float64)
    rng = np.random.default_rng(m * 10 + r)
    d, f = rng.standard_normal(m + r - 1), rng.standard_normal(r)
    want = np.array([d[i:i + r] @ f for i in range(m)])
    np.testing.assert_allclose(at @ ((g @ f) * (bt @ d)), want, rtol=1e-12, atol=1e-12)


# (n, h, w, c, co, r, padding, explicit): odd sizes leave partial Winograd tiles.
CASES = [(2, 12, 12, 16, 24, 5, "SAME", None), (3, 11, 9, 20, 16, 5, "VALID", None),
         (2, 13, 10, 16, 16, 3, "SAME", None), (1, 9, 14, 17, 32, 3, "VALID", None),
         (2, 10, 11, 16, 16, 5, "EXPLICIT", ((1, 3), (0, 2)))]


def _pads(h, w, r, padding, explicit):
    if padding == "EXPLICIT":
        return explicit
    return (nn_kernels.same_pads(h, r, 1, 1, padding), nn_kernels.same_pads(w, r, 1, 1, padding))


@pytest.mark.parametrize("n,h,w,c,co,r,padding,explicit", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("one_image_blocks", [False, True])
def test_conv2d_and_its_gradients_take_winograd_and_match(n, h, w, c, co, r, padding, explicit,
                                                          dtype, one_image_blocks, monkeypatch):
    if one_image_blocks:  # and the blocks in groups on the worker threads
        monkeypatch.setattr(winograd, "_BLOCK_BYTES", 1)
        monkeypatch.setattr(kernel_threads, "PARALLEL_MIN_BYTES", 0)
    rng = np.random.default_rng(h * w + c)
    x = rng.standard_normal((n, h, w, c)).astype(dtype)
    f = (rng.standard_normal((r, r, c, co)) / (r * np.sqrt(c))).astype(dtype)
    pads = _pads(h, w, r, padding, explicit)
    ex = explicit or ((0, 0), (0, 0))
    want = _conv_ref(x, f, *pads)
    assert nn_kernels._winograd_tile(x, r, r, c, co, (1, 1), (1, 1), *want.shape[1:3])
    tol = 2e-5 if dtype == np.float32 else 1e-11
    y = nn_kernels.conv2d(x, f, (1, 1), (1, 1), padding, ex)
    assert y.dtype == dtype and y.flags.c_contiguous
    np.testing.assert_allclose(y, want, rtol=tol, atol=tol * np.abs(want).max())

    dy = rng.standard_normal(want.shape).astype(dtype)
    dw = nn_kernels.conv2d_backprop_filter(x, f.shape, dy, (1, 1), (1, 1), padding, ex)
    dw_want = _filter_grad_ref(x, dy, r, *pads)
    np.testing.assert_allclose(dw, dw_want, rtol=tol, atol=tol * np.abs(dw_want).max())

    # Input gradient: <conv(x), dy> is linear in x, so its gradient is the adjoint applied
    # to dy; check it against <x', dx> = <conv(x'), dy> for a random x'.
    dx = nn_kernels.conv2d_backprop_input(x.shape, f, dy, (1, 1), (1, 1), padding, ex)
    probe = rng.standard_normal(x.shape)
    lhs = np.sum(probe * dx)
    rhs = np.sum(_conv_ref(probe, f, *pads) * dy)
    assert abs(lhs - rhs) <= 1e-4 * (abs(rhs) + np.sqrt(dy.size))


@pytest.mark.parametrize("strides", [(1, 1), (2, 1)])
def test_im2col_blocks_on_worker_threads_match(strides, monkeypatch):
    monkeypatch.setattr(nn_kernels, "_BLOCK_BYTES", 1)
    monkeypatch.setattr(kernel_threads, "PARALLEL_MIN_BYTES", 0)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((5, 9, 8, 3)).astype(np.float32)
    f = rng.standard_normal((5, 5, 3, 8)).astype(np.float32)
    y = nn_kernels.conv2d(x, f, strides, (1, 1), "VALID")
    xs = x.astype(np.float64)
    want = _conv_ref(xs, f, (0, 0), (0, 0))[:, ::strides[0], ::strides[1]]
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dyfull = np.zeros(want.shape[:1] + (9 - 4, 8 - 4, 8))
    dyfull[:, ::strides[0], ::strides[1]] = dy
    dw = nn_kernels.conv2d_backprop_filter(x, f.shape, dy, strides, (1, 1), "VALID")
    np.testing.assert_allclose(dw, _filter_grad_ref(x, dyfull, 5, (0, 0), (0, 0)), rtol=1e-4,
                               atol=1e-4)


def test_small_channel_counts_and_strides_keep_im2col():
    x = np.zeros((1, 8, 8, 3), np.float32)
    assert nn_kernels._winograd_tile(x, 5, 5, 3, 64, (1, 1), (1, 1), 8, 8) is None
    x = np.zeros((1, 8, 8, 32), np.float32)
    assert nn_kernels._winograd_tile(x, 5, 5, 32, 32, (2, 2), (1, 1), 4, 4) is None
    assert nn_kernels._winograd_tile(x, 5, 5, 32, 32, (1, 1), (2, 2), 8, 8) is None
    assert nn_kernels._winograd_tile(x, 3, 5, 32, 32, (1, 1), (1, 1), 8, 8) is None
    assert nn_kernels._winograd_tile(x, 5, 5, 32, 32, (1, 1), (1, 1), 8, 8) == 4


def _max_pool_grad_ref(x, dy, k, s, padding):
    n, h, w, c = x.shape
    ph, pw, oh, ow = nn_kernels._pool_geometry(x.shape, k, s, padding)
    dx = np.zeros(x.shape)
    for b in range(n):
        for a in range(oh):
            for q in range(ow):
                for ch in range(c):
                    best, where = -np.inf, None
                    for i in range(k[0]):
                        for j in range(k[1]):
                            r, t = a * s[0] + i - ph[0], q * s[1] + j - pw[0]
                            if 0 <= r < h and 0 <= t < w and x[b, r, t, ch] > best:
                                best, where = x[b, r, t, ch], (r, t)
                    dx[b, where[0], where[1], ch] += dy[b, a, q, ch]
    return dx


@pytest.mark.parametrize("shape,k,s,padding", [((5, 9, 8, 3), (3, 3), (2, 2), "SAME"),
                                               ((3, 7, 7, 2), (2, 3), (1, 2), "VALID"),
                                               ((2, 8, 9, 2), (2, 2), (3, 3), "SAME")])
def test_max_pool_grad_routes_ties_to_the_first_maximum(shape, k, s, padding, monkeypatch):
    monkeypatch.setattr(nn_kernels, "_POOL_BLOCK_BYTES", 1)  # one image per block
    rng = np.random.default_rng(0)
    x = np.maximum(rng.integers(-2, 3, shape), 0).astype(np.float32)  # many ties
    y = nn_kernels.max_pool(x, k, s, padding)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dx = nn_kernels.max_pool_grad(x, y, dy, k, s, padding)
    np.testing.assert_allclose(dx, _max_pool_grad_ref(x, dy, k, s, padding), rtol=1e-6,
                               atol=1e-6)
