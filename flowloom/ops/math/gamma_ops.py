"""The incomplete gamma functions and their relatives: Igamma (P(a, x)), Igammac (Q(a, x)),
IgammaGradA (dP/da), Zeta (Hurwitz zeta(x, q)), Polygamma and Betainc (the regularized
incomplete beta function), with TF 1.15's gradients.

The kernels follow Cephes as Eigen (TF's kernels) runs it: P by its power series where
x <= max(1, a), Q by its continued fraction elsewhere, each the complement of the other; dP/da
by forward-mode differentiation of the same series and fraction; zeta by Euler-Maclaurin
summation; Betainc by Cephes' incbet (power series or one of two continued fractions, element by
element). Each runs in float64 (whole arrays, iterations masked per element, but Betainc) and
is cast to the input's dtype.
"""

import math

import numpy as np

from flowloom.framework import common_shapes, dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.ops.math.math_ops import BINARY_OPS, _binary_kernel

_MACHEP = np.finfo(np.float64).eps / 2  # Cephes' MACHEP (2**-53)
_MAXLOG = math.log(np.finfo(np.float64).max)
_BIG, _BIGINV = 4.503599627370496e15, 2.22044604925031308085e-16
_MAXITER = 2000
_lgamma = np.frompyfunc(math.lgamma, 1, 1)


def _log_gamma(x):
    return _lgamma(x).astype(np.float64) if x.size else x.astype(np.float64)


def _digamma(x):
    from flowloom.ops.math.special_math_ops import _digamma as digamma

    return digamma(x)


def _series(a, x, derivative=False):
    """P(a, x) by its power series (Cephes igam), or dP/da where `derivative`."""
    r, c, ans = a.copy(), np.ones_like(a), np.ones_like(a)
    dc_da, dans_da = np.zeros_like(a), np.zeros_like(a)
    active = np.ones(a.shape, bool)
    for _ in range(_MAXITER):
        if not active.any():
            break
        r = np.where(active, r + 1, r)
        term = x / r
        if derivative:
            dc_da = np.where(active, term * dc_da - x / (r * r) * c, dc_da)
            dans_da = np.where(active, dans_da + dc_da, dans_da)
        c = np.where(active, c * term, c)
        ans = np.where(active, ans + c, ans)
        with np.errstate(invalid="ignore", divide="ignore"):
            if derivative:
                active &= ~(np.abs(dc_da) <= _MACHEP * np.abs(dans_da))
            else:
                active &= ~(c <= _MACHEP * ans)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_ax = a * np.log(x) - x - _log_gamma(a + 1)
        ax = np.where(log_ax < -_MAXLOG, 0.0, np.exp(log_ax))
        if derivative:
            return ax * (ans * (np.log(x) - _digamma(a + 1)) + dans_da)
        return ans * ax


def _continued_fraction(a, x, derivative=False):
    """Q(a, x) by its continued fraction (Cephes igamc), or dQ/da where `derivative`."""
    y = 1 - a
    z = x + y + 1
    c = np.zeros_like(a)
    pkm2, qkm2, pkm1, qkm1 = np.ones_like(a), x.copy(), x + 1, z * x
    dpkm2, dqkm2, dpkm1, dqkm1 = (np.zeros_like(a), np.zeros_like(a), np.zeros_like(a), -x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ans = pkm1 / qkm1
        dans = (dpkm1 - ans * dqkm1) / qkm1
        active = np.isfinite(x)
        for _ in range(_MAXITER):
            if not active.any():
                break
            c, y, z = c + 1, y + 1, z + 2
            yc = y * c
            pk, qk = pkm1 * z - pkm2 * yc, qkm1 * z - qkm2 * yc
            dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c
            dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c
            update = active & (qk != 0)
            r = np.where(update, pk / np.where(qk != 0, qk, 1), ans)
            dr = np.where(update, (dpk - r * dqk) / np.where(qk != 0, qk, 1), dans)
            if derivative:
                converged = update & (np.abs(dr - dans) <= _MACHEP)
            else:
                converged = update & (np.abs((ans - r) / r) <= _MACHEP)
            ans = np.where(update, r, ans)
            dans = np.where(update, dr, dans)
            big = np.abs(pk) > _BIG
            scale = np.where(active & big, _BIGINV, 1.0)
            keep = active[...]
            pkm2, pkm1 = np.where(keep, pkm1 * scale, pkm2), np.where(keep, pk * scale, pkm1)
            qkm2, qkm1 = np.where(keep, qkm1 * scale, qkm2), np.where(keep, qk * scale, qkm1)
            dpkm2, dpkm1 = np.where(keep, dpkm1 * scale, dpkm2), np.where(keep, dpk * scale, dpkm1)
            dqkm2, dqkm1 = np.where(keep, dqkm1 * scale, dqkm2), np.where(keep, dqk * scale, dqkm1)
            active &= ~converged
        log_ax = a * np.log(x) - x - _log_gamma(a)
        ax = np.where(log_ax < -_MAXLOG, 0.0, np.exp(log_ax))
        if derivative:
            out = ax * (ans * (np.log(x) - _digamma(a)) + dans)
        else:
            out = ans * ax
        return np.where(np.isfinite(x), out, 0.0)


def _elementwise(fn):
    """A kernel over the broadcast float64 values of (a, x), cast back to a's dtype."""
    def kernel(xp, a, x):
        dtype = np.result_type(a, x)
        a64, x64 = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
        out = fn(a64.copy(), x64.copy()) if a64.size else np.zeros(a64.shape)
        return np.asarray(out, np.float64).astype(dtype)
    return kernel


def _pick(a, x, use_series, series, fraction):
    """series(a, x) where `use_series`, fraction(a, x) elsewhere, each on its elements only."""
    out = np.empty(a.shape)
    if use_series.any():
        out[use_series] = series(a[use_series], x[use_series])
    rest = ~use_series
    if rest.any():
        out[rest] = fraction(a[rest], x[rest])
    return out


def igamma_values(a, x):
    """P(a, x), the regularized lower incomplete gamma function (Eigen's igamma)."""
    with np.errstate(invalid="ignore"):
        bad = (x < 0) | (a <= 0) | np.isnan(a) | np.isnan(x)
        ok = ~bad
        use_series = ok & ~((x > 1) & (x > a))
        out = _pick(np.where(ok, a, 1.0), np.where(ok, x, 1.0), use_series, _series,
                    lambda a, x: 1 - _continued_fraction(a, x))
    out = np.where(bad, np.nan, out)
    return np.where(ok & (x == 0), 0.0, out)


def igammac_values(a, x):
    """Q(a, x) = 1 - P(a, x) (Eigen's igammac)."""
    with np.errstate(invalid="ignore"):
        bad = (x < 0) | (a <= 0) | np.isnan(a) | np.isnan(x)
        ok = ~bad
        use_series = ok & ((x < 1) | (x < a))
        out = _pick(np.where(ok, a, 1.0), np.where(ok, x, 1.0), use_series,
                    lambda a, x: 1 - _series(a, x), _continued_fraction)
    return np.where(bad, np.nan, out)


def igamma_grad_a_values(a, x):
    """dP(a, x)/da (Eigen's igamma_der_a)."""
    with np.errstate(invalid="ignore"):
        bad = (x < 0) | (a <= 0) | np.isnan(a) | np.isnan(x)
        ok = ~bad
        use_series = ok & ~((x > 1) & (x > a))
        out = _pick(np.where(ok, a, 1.0), np.where(ok, x, 1.0), use_series,
                    lambda a, x: _series(a, x, derivative=True),
                    lambda a, x: -_continued_fraction(a, x, derivative=True))
    out = np.where(bad, np.nan, out)
    return np.where(ok & (x == 0), 0.0, out)


# Euler-Maclaurin coefficients: (2k)! / B_2k (Cephes zeta's A).
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def zeta_values(x, q):
    """The Hurwitz zeta function sum_k (k + q)**-x (Cephes zeta, as Eigen's)."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        pole = (x == 1) | ((q <= 0) & (q == np.floor(q)))
        bad = (x < 1) | ((q <= 0) & (x != np.floor(x))) | np.isnan(x) | np.isnan(q)
        s = np.power(q, -x)
        a, b = q.copy(), np.zeros_like(q)
        active = ~(pole | bad)
        i = 0
        done = ~active
        while True:
            more = ~done & ((i < 9) | (a <= 9))
            if not more.any():
                break
            i += 1
            a = np.where(more, a + 1, a)
            b = np.where(more, np.power(a, -x), b)
            s = np.where(more, s + b, s)
            done |= more & (np.abs(b / s) < _MACHEP)
        tail = ~done
        w = a
        s = np.where(tail, s + b * w / (x - 1) - 0.5 * b, s)
        a, k = np.ones_like(q), 0.0
        for coefficient in _ZETA_A:
            if not tail.any():
                break
            a = a * (x + k)
            b = b / w
            t = a * b / coefficient
            s = np.where(tail, s + t, s)
            tail &= ~(np.abs(t / s) < _MACHEP)
            k += 1
            a = a * (x + k)
            b = b / w
            k += 1
        s = np.where(pole, np.inf, s)
        return np.where(bad & ~pole, np.nan, s)


def polygamma_values(n, x):
    """The n-th derivative of digamma: (-1)**(n+1) n! zeta(n + 1, x) (Eigen's polygamma)."""
    with np.errstate(invalid="ignore", over="ignore"):
        integer = (n == np.floor(n)) & (n >= 0)  # a negative order: nan, as TF's
        n_ok = np.where(integer, n, 0.0)
        factorial = np.exp(_log_gamma(n_ok + 1))
        out = np.where(n_ok == 0, _digamma(x),
                       np.power(-1.0, n_ok + 1) * factorial * zeta_values(n_ok + 1, x))
        return np.where(integer, out, np.nan)


def _incbet_fraction(a, b, x, expansion):
    """Cephes' incbcf (expansion 1) / incbd (expansion 2) continued fractions."""
    if expansion == 1:
        k = [a, a + b, a, a + 1, 1.0, b - 1, a + 1, a + 2]
        z, steps = x, (1, 1, 2, 2, 1, -1, 2, 2)
    else:
        k = [a, b - 1, a, a + 1, 1.0, a + b, a + 1, a + 2]
        z, steps = x / (1 - x), (1, -1, 2, 2, 1, 1, 2, 2)
    pkm2, qkm2, pkm1, qkm1, ans = 0.0, 1.0, 1.0, 1.0, 1.0
    for _ in range(300):
        xk = -(z * k[0] * k[1]) / (k[2] * k[3])
        pk, qk = pkm1 + pkm2 * xk, qkm1 + qkm2 * xk
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        xk = (z * k[4] * k[5]) / (k[6] * k[7])
        pk, qk = pkm1 + pkm2 * xk, qkm1 + qkm2 * xk
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        r = pk / qk if qk != 0 else ans
        if r != 0:
            t, ans = abs((ans - r) / r), r
        else:
            t = 1.0
        if t < 3 * _MACHEP:
            break
        k = [v + d for v, d in zip(k, steps)]
        if abs(qk) + abs(pk) > _BIG:
            pkm2, pkm1, qkm2, qkm1 = (v * _BIGINV for v in (pkm2, pkm1, qkm2, qkm1))
        if abs(qk) < _BIGINV or abs(pk) < _BIGINV:
            pkm2, pkm1, qkm2, qkm1 = (v * _BIG for v in (pkm2, pkm1, qkm2, qkm1))
    return ans


def _log_beta_factor(a, b):
    return math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)


def _incbet_series(a, b, x):
    """Cephes' pseries: the power series of I_x(a, b) for b x <= 1, x <= 0.95."""
    u = (1 - b) * x
    v = u / (a + 1)
    t1, t, n, s = v, u, 2.0, 0.0
    while abs(v) > _MACHEP / a:
        u = (n - b) * x / n
        t *= u
        v = t / (a + n)
        s += v
        n += 1
    s += t1 + 1 / a
    log_t = _log_beta_factor(a, b) + a * math.log(x) + math.log(s) if s > 0 else -math.inf
    return 0.0 if log_t < -_MAXLOG else math.exp(log_t)


def _incbet(a, b, x):
    """I_x(a, b), the regularized incomplete beta function (Cephes incbet)."""
    if not (a > 0 and b > 0) or math.isnan(x):
        return math.nan
    if x <= 0:
        return 0.0 if x == 0 else math.nan
    if x >= 1:
        return 1.0 if x == 1 else math.nan
    if b * x <= 1 and x <= 0.95:
        return _incbet_series(a, b, x)
    flip = x > a / (a + b)
    if flip:
        a, b, x, xc = b, a, 1 - x, x
    else:
        xc = 1 - x
    if flip and b * x <= 1 and x <= 0.95:
        t = _incbet_series(a, b, x)
    else:
        if x * (a + b - 2) - (a - 1) < 0:
            w = _incbet_fraction(a, b, x, 1)
        else:
            w = _incbet_fraction(a, b, x, 2) / xc
        y = a * math.log(x) + b * math.log(xc) + _log_beta_factor(a, b) + math.log(w / a)
        t = 0.0 if y < -_MAXLOG else math.exp(y)
    if flip:
        t = 1 - _MACHEP if t <= _MACHEP else 1 - t
    return t


_incbet_elementwise = np.frompyfunc(_incbet, 3, 1)


def betainc_values(a, b, x):
    a, b, x = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, x)))
    return np.asarray(_incbet_elementwise(a, b, x), np.float64) if a.size else np.zeros(a.shape)


_FLOATS = {"T": (dtypes.float32, dtypes.float64)}
for _type, _inputs, _values in (
        ("Igamma", ("a", "x"), igamma_values), ("Igammac", ("a", "x"), igammac_values),
        ("IgammaGradA", ("a", "x"), igamma_grad_a_values), ("Zeta", ("x", "q"), zeta_values),
        ("Polygamma", ("a", "x"), polygamma_values)):
    _od = defop(_type, inputs=[f"{_inputs[0]}: T", f"{_inputs[1]}: T"], outputs=["z: T"],
                allowed_types=_FLOATS)
    _od.shape(common_shapes.binary_broadcast)
    _od.kernel(_binary_kernel(_elementwise(_values)))
    BINARY_OPS[_type] = _od


Betainc = defop("Betainc", inputs=["a: T", "b: T", "x: T"], outputs=["z: T"],
                allowed_types=_FLOATS)


@Betainc.shape
def _(op):
    # As TF: the non-scalar inputs must have one shape (no broadcasting).
    from flowloom.framework.tensor_shape import scalar

    out = None
    for t in op._inputs:
        s = t._shape
        if s.ndims == 0:
            continue
        if out is None or out.ndims is None:
            out = s if out is None or s.ndims is not None else out
            continue
        if s.ndims is not None:
            if s.ndims != out.ndims:
                raise ValueError(f"Shapes must be equal rank, but are {out.ndims} and {s.ndims}")
            for i, (d1, d2) in enumerate(zip(out.as_list(), s.as_list())):
                if d1 is not None and d2 is not None and d1 != d2:
                    raise ValueError(f"Dimension {i} in both shapes must be equal, but are {d1} "
                                     f"and {d2}. Shapes are {_dims(out)} and {_dims(s)}.")
            out = out.merge_with(s)
    return scalar() if out is None else out


def _dims(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


@Betainc.kernel
def _(xp, a, b, x):
    return betainc_values(a, b, x).astype(np.result_type(a, b, x))


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b) (op type `Betainc`).

    a, b and x must have one shape, or be scalars. For example, `tf.betainc(1., 1., .3)` is 0.3.
    """
    return apply_op("Betainc", (a, b, x), name=name).outputs[0]


@Betainc.gradient
def _(op, grad):
    # As TF 1.15: the derivative in x only, in log space.
    from flowloom.ops.array import array_ops, broadcast_ops
    from flowloom.ops.math import math_ops
    from flowloom.ops.math.special_math_ops import lgamma

    a, b, x = op._inputs
    _, rx = broadcast_ops.broadcast_gradient_args(array_ops.shape(a), array_ops.shape(x))
    log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
    partial_x = math_ops.exp((b - 1) * math_ops.log(1 - x) + (a - 1) * math_ops.log(x) -
                             log_beta)
    return [None, None, array_ops.reshape(math_ops.reduce_sum(partial_x * grad, rx),
                                          array_ops.shape(x))]


def igamma(a, x, name=None):
    """The regularized lower incomplete gamma function P(a, x) (op type `Igamma`).

    For example, `tf.igamma(1., 2.)` is `1 - exp(-2)`.
    """
    return apply_op("Igamma", (a, x), name=name).outputs[0]


def igammac(a, x, name=None):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x) (`Igammac`)."""
    return apply_op("Igammac", (a, x), name=name).outputs[0]


def igamma_grad_a(a, x, name=None):
    """dP(a, x)/da (op type `IgammaGradA`)."""
    return apply_op("IgammaGradA", (a, x), name=name).outputs[0]


def zeta(x, q, name=None):
    """The Hurwitz zeta function: the sum over k >= 0 of (k + q)**-x (op type `Zeta`)."""
    return apply_op("Zeta", (x, q), name=name).outputs[0]


def polygamma(a, x, name=None):
    """The polygamma function: the a-th derivative of digamma at x (op type `Polygamma`)."""
    return apply_op("Polygamma", (a, x), name=name).outputs[0]


# -- gradients (TF 1.15's math_grad) ----------------------------------------------------------
def _reduced(op, ga, gx):
    from flowloom.ops.array import broadcast_ops

    return list(broadcast_ops.reduce_gradient_args(op._inputs[0], op._inputs[1], ga, gx))


def _igamma_grads(op, grad):
    from flowloom.framework.graph import control_dependencies
    from flowloom.ops.math import math_ops
    from flowloom.ops.math.special_math_ops import lgamma

    a, x = op._inputs
    with control_dependencies([grad]):
        partial_a = igamma_grad_a(a, x)
        # In log space, as TF: Gamma(a) can grow large.
        partial_x = math_ops.exp(-x + (a - 1) * math_ops.log(x) - lgamma(a))
        return _reduced(op, partial_a * grad, partial_x * grad)


@BINARY_OPS["Igamma"].gradient
def _(op, grad):
    return _igamma_grads(op, grad)


@BINARY_OPS["Igammac"].gradient
def _(op, grad):
    from flowloom.ops.math import math_ops

    return [None if g is None else math_ops.negative(g) for g in _igamma_grads(op, grad)]


@BINARY_OPS["Zeta"].gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies
    from flowloom.ops.math.unary_ops import conj

    with control_dependencies([grad]):
        x, q = conj(op._inputs[0]), conj(op._inputs[1])
        partial_q = -x * zeta(x + 1, q)  # TF has no derivative in x
        return [None, _reduced(op, partial_q * grad, partial_q * grad)[1]]


@BINARY_OPS["Polygamma"].gradient
def _(op, grad):
    from flowloom.framework.graph import control_dependencies
    from flowloom.ops.math.unary_ops import conj

    with control_dependencies([grad]):
        n, x = conj(op._inputs[0]), conj(op._inputs[1])
        partial_x = polygamma(n + 1, x)  # TF has no derivative in n
        return [None, _reduced(op, partial_x * grad, partial_x * grad)[1]]


BINARY_OPS["IgammaGradA"].no_gradient()
