"""ApplyAdam's update through two temporaries: bit for bit the values of the textbook
expressions (one new array per operation), for every dtype, shape and Nesterov."""

import numpy as np
import pytest

from flowloom.ops.state import training_ops
from flowloom.runtime.executor import Ref


def _reference(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
               use_nesterov):
    one = np.ones((), dtype=var.dtype)
    lr_t = lr * np.sqrt(one - beta2_power) / (one - beta1_power)
    m += (grad - m) * (one - beta1)
    v += (grad * grad - v) * (one - beta2)
    if use_nesterov:
        var -= ((grad * (one - beta1) + beta1 * m) * lr_t) / (np.sqrt(v) + epsilon)
    else:
        var -= (m * lr_t) / (np.sqrt(v) + epsilon)


def _arrays(shape, dtype, seed):
    rng = np.random.RandomState(seed)
    var = np.asarray(rng.randn(*shape) * 3, dtype)
    m = np.asarray(rng.randn(*shape), dtype)
    v = np.asarray(np.abs(rng.randn(*shape)), dtype)
    grad = np.asarray(rng.randn(*shape) * 10, dtype)
    return var, m, v, grad


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (1,), (3,), (4, 32), (2, 3, 5)])
@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("scalar_dtype", ["same", "float64", "python"])
def test_adam_matches_the_textbook_expressions(dtype, shape, nesterov, scalar_dtype):
    sdtype = {"same": dtype, "float64": np.float64}.get(scalar_dtype)
    raw = (0.9 ** 3, 0.999 ** 3, 0.01, 0.9, 0.999, 1e-7)
    scalars = [float(x) if sdtype is None else np.array(x, sdtype) for x in raw]
    got, want = _arrays(shape, dtype, 1), _arrays(shape, dtype, 1)
    for _ in range(3):  # m and v carry from step to step
        var, m, v, grad = got
        training_ops._adam(var, m, v, *scalars, grad, nesterov)
        var, m, v, grad = want
        _reference(var, m, v, *scalars, grad, nesterov)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("use_locking", [False, True])
def test_apply_adam_kernel_updates_the_buffers(use_locking):
    refs = []
    for x in _arrays((5, 2), np.float32, 4)[:3]:
        r = Ref("r")
        r.value = x.copy()
        refs.append(r)
    grad = _arrays((5, 2), np.float32, 4)[3]
    scalars = [np.array(x, np.float32) for x in (0.9, 0.999, 0.01, 0.9, 0.999, 1e-7)]
    want = [r.value.copy() for r in refs]
    _reference(*want, *scalars, grad, False)
    out = training_ops.ApplyAdam.kernel_fn(np, *refs, *scalars, grad,
                                           use_locking=use_locking, use_nesterov=False)
    assert out is refs[0]
    for r, w in zip(refs, want):
        assert r.value.tobytes() == w.tobytes()
