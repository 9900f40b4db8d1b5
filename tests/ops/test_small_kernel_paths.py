"""Host fast paths of small kernels (MatMul bound on the host, DivNoNan, ReluGrad,
BiasAddGrad): bit for bit the values and errors of the general expressions."""

import types

import numpy as np
import pytest

from flowloom.framework import errors
from flowloom.ops.math import matmul_ops
from flowloom.ops.nn import nn_ops
from flowloom.framework.op_def import get


def _bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (32, 4, 32), (3, 32, 32), (64, 64, 17), (70, 70, 70)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.complex64])
def test_bound_matmul_equals_the_kernel(ta, tb, m, k, n, dtype):
    rng = np.random.RandomState(m * k + n)
    a = (rng.randn(*((k, m) if ta else (m, k))) * 4).astype(dtype)
    b = (rng.randn(*((n, k) if tb else (k, n))) * 4).astype(dtype)
    op = types.SimpleNamespace(_attrs={"transpose_a": ta, "transpose_b": tb})
    bound = matmul_ops._bind_matmul(np, op)
    want = matmul_ops.matmul_kernel(np, a, b, transpose_a=ta, transpose_b=tb)
    _bits(bound(a, b), want)
    _bits(want, np.matmul(a.T if ta else a, b.T if tb else b))


def test_bound_matmul_errors_are_the_kernels():
    op = types.SimpleNamespace(_attrs={"transpose_a": False, "transpose_b": False})
    bound = matmul_ops._bind_matmul(np, op)
    with pytest.raises(errors.InvalidArgumentError, match=r"In\[0\]: \[2,3\], In\[1\]: \[2,3\]"):
        bound(np.ones([2, 3], np.float32), np.ones([2, 3], np.float32))
    assert matmul_ops._bind_matmul(None, op) is None


def _div_no_nan_reference(x, y):
    r = np.where(y == 0, 0, x / np.where(y == 0, 1, y))
    return r.astype(x.dtype) if r.dtype != x.dtype else r


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32,
                                   np.complex64])
@pytest.mark.parametrize("shapes", [((), ()), ((7,), (7,)), ((3, 4), (3, 4)), ((3, 4), (4,)),
                                    ((), (5,)), ((0,), (0,))])
def test_div_no_nan_equals_its_selections(dtype, shapes):
    rng = np.random.RandomState(1)
    specials = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-30, 3.0, -2.5])
    def draw(shape):
        x = rng.choice(specials, size=shape) if dtype(0).dtype.kind in "fc" else \
            rng.randint(-2, 3, size=shape)
        return np.asarray(x).astype(dtype)
    x, y = draw(shapes[0]), draw(shapes[1])
    kernel = get("DivNoNan").kernel_fn
    with np.errstate(all="ignore"):
        _bits(kernel(np, x, y), _div_no_nan_reference(x, y))
        _bits(kernel(np, np.asarray(dtype(3)), np.asarray(dtype(0))),
              _div_no_nan_reference(np.asarray(dtype(3)), np.asarray(dtype(0))))


@pytest.mark.parametrize("shape", [(1,), (32, 32), (5, 3, 2), (600, 500)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_relu_grad_and_bias_add_grad_equal_their_expressions(shape, dtype):
    rng = np.random.RandomState(2)
    g = rng.randn(*shape).astype(dtype)
    f = rng.choice([-1.0, 0.0, -0.0, 2.0, np.nan], size=shape).astype(dtype)
    _bits(nn_ops._relu_grad(np, g, f), g * (f > 0))
    bias_grad = get("BiasAddGrad").kernel_fn
    _bits(bias_grad(np, g, data_format="NHWC"), g.reshape(-1, shape[-1]).sum(axis=0))


def test_relu_grad_of_other_shapes_broadcasts_as_before():
    g = np.ones([3, 2], np.float32)
    f = np.array([1.0, -1.0], np.float32)
    _bits(nn_ops._relu_grad(np, g, f), g * (f > 0))
