"""The host callable bound for `_FusedMatMul` (BiasAdd[, Relu]): bit for bit the values of
the general kernel and of the separate MatMul, BiasAdd and Relu, on small and large products."""

import types

import numpy as np
import pytest

from flowloom.ops.nn import fused_ops


def _op(a, b, bias, fused, ta=False, tb=False):
    # What binding reads of the op the remapping rewrite makes.
    return types.SimpleNamespace(_inputs=[a, b, bias], _attrs={
        "transpose_a": ta, "transpose_b": tb, "fused_ops": fused})


@pytest.mark.parametrize("fused", [["BiasAdd"], ["BiasAdd", "Relu"], [b"BiasAdd", b"Relu"]])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
# (the large product, over the pool threshold, has k = 1: BLAS may split a product in other
# ways from call to call, and its sums with them)
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (32, 4, 32), (5, 7, 3), (1030, 1, 520)])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True)])
def test_bound_fused_matmul_equals_the_separate_ops(fused, dtype, m, k, n, ta, tb):
    rng = np.random.RandomState(m + k + n)
    a = rng.randn(*((k, m) if ta else (m, k))).astype(dtype)
    b = rng.randn(*((n, k) if tb else (k, n))).astype(dtype)
    bias = rng.randn(n).astype(dtype)
    op = _op(a, b, bias, fused, ta, tb)
    bound = fused_ops._bind_fused_matmul(np, op)
    assert bound is not None
    got = bound(a, b, bias)
    general = fused_ops._fused_matmul(np, a, b, bias, transpose_a=ta, transpose_b=tb,
                                      fused_ops=fused)
    want = np.matmul(a.T if ta else a, b.T if tb else b) + bias
    if len(fused) == 2:
        want = np.maximum(want, 0)
    for x in (got, general):
        assert x.dtype == want.dtype and x.shape == want.shape
        assert x.tobytes() == want.tobytes()


def test_bound_fused_matmul_falls_back_for_other_biases():
    a = np.ones([3, 2], np.float32)
    b = np.ones([2, 4], np.float32)
    op = _op(a, b, np.ones(4, np.float32), ["BiasAdd", "Relu"])
    bound = fused_ops._bind_fused_matmul(np, op)
    bias64 = np.arange(4, dtype=np.float64) - 3
    np.testing.assert_array_equal(bound(a, b, bias64),
                                  fused_ops._fused_matmul(np, a, b, bias64, transpose_a=False,
                                                          transpose_b=False,
                                                          fused_ops=["BiasAdd", "Relu"]))
    with pytest.raises(ValueError):
        bound(a, b, np.ones(3, np.float32))  # a bias that does not broadcast, as the kernel


def test_other_fusions_are_not_bound():
    a, b = np.ones([2, 2], np.float32), np.ones([2, 2], np.float32)
    assert fused_ops._bind_fused_matmul(np, _op(a, b, np.ones(2, np.float32),
                                                ["BiasAdd", "Elu"])) is None
