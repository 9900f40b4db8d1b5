"""LRN and LRNGrad kernels against a direct reference: every channel window summed one by one
and the power taken with `**`, in float64 (the kernels add shifted slices for windows of up to
8 neighbours a side, take the cumulative-sum form beyond, and replace `**` by 1/sqrt, 1/x or
exp-log)."""

import numpy as np
import pytest

from flowloom.ops.nn import activation_ops


def _window(sq, r):
    depth = sq.shape[-1]
    out = np.zeros_like(sq)
    for c in range(depth):
        out[..., c] = sq[..., max(0, c - r):c + r + 1].sum(axis=-1)
    return out


def _lrn_ref(x, r, bias, alpha, beta):
    x64 = x.astype(np.float64)
    return (x64 * (bias + alpha * _window(x64 * x64, r)) ** -beta).astype(x.dtype)


def _lrn_grad_ref(dy, x, y, r, bias, alpha, beta):
    dy64, x64, y64 = (a.astype(np.float64) for a in (dy, x, y))
    norm = bias + alpha * _window(x64 * x64, r)
    inner = _window(dy64 * y64 / norm, r)
    return (dy64 * norm ** -beta - 2 * alpha * beta * x64 * inner).astype(x.dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("depth", [1, 5, 64])
@pytest.mark.parametrize("radius", [0, 1, 4, 8, 9, 70])
@pytest.mark.parametrize("beta", [0.5, 0.75, 1.0, 2.0])
def test_lrn_and_grad_match_the_direct_reference(dtype, depth, radius, beta):
    rng = np.random.RandomState(depth * 100 + radius)
    x = (rng.randn(2, 3, 4, depth) * 3).astype(dtype)
    dy = rng.randn(*x.shape).astype(dtype)
    for bias, alpha in ((1.0, 0.001 / 9.0), (2.0, 1.0), (0.5, 0.3)):
        attrs = dict(depth_radius=radius, bias=bias, alpha=alpha, beta=beta)
        y = activation_ops.LRN.kernel_fn(np, x, **attrs)
        want = _lrn_ref(x, radius, bias, alpha, beta)
        assert y.dtype == x.dtype and y.shape == x.shape
        rtol = 1e-6 if dtype == np.float32 else 1e-13
        np.testing.assert_allclose(y, want, rtol=rtol, atol=0)
        g = activation_ops.LRNGrad.kernel_fn(np, dy, x, want, **attrs)
        gwant = _lrn_grad_ref(dy, x, want, radius, bias, alpha, beta)
        assert g.dtype == x.dtype
        scale = np.abs(gwant).max()
        np.testing.assert_allclose(g, gwant, rtol=0, atol=scale * (1e-6 if dtype == np.float32 else 1e-13))


def test_zero_norm_gives_what_the_power_gives():
    """bias 0 and an all-zero window: 0 * 0 ** -beta is NaN, as the reference's `**` gives."""
    x = np.zeros((1, 1, 2, 3), np.float32)
    x[0, 0, 1] = [1.0, 2.0, 3.0]
    with np.errstate(all="ignore"):
        y = activation_ops.LRN.kernel_fn(np, x, depth_radius=1, bias=0.0, alpha=1.0, beta=0.75)
        want = _lrn_ref(x, 1, 0.0, 1.0, 0.75)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(want))
    np.testing.assert_allclose(y[0, 0, 1], want[0, 0, 1], rtol=1e-6)
