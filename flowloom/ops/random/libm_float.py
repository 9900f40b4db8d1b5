"""float32 `logf` and `sincosf` exactly as the C library that TF's CPU kernels call.

TF's float32 Box-Muller transform (random_distributions.h: BoxMullerFloat) calls `logf` and,
on Linux, `sincosf`. Since glibc 2.28 these are the table-driven algorithms of Arm's
optimized-routines (MIT licensed): the argument is reduced and a short polynomial evaluated in
float64, then rounded once to float32. They are faithful (under 1 ulp), not correctly rounded,
so rounding NumPy's float64 `log`/`sin`/`cos` to float32 differs from TF for about 1.5% of
normals. The functions below run the same steps on arrays with the same constants, so they
give glibc's float32 results bit for bit (checked over every input the Box-Muller transform
can pass them: tests/ops/test_libm_float.py).

Only finite inputs of the ranges that matter are taken by the fast paths: `logf` of positive
normal floats, `sincosf` of |x| < 120. Other inputs (zero, subnormals, negatives, |x| >= 120,
inf, nan) are routed to NumPy's float64 functions rounded to float32, which agree with glibc
except perhaps in the last bit.
"""

import numpy as np
from flowloom.ops.layout import c_order


def _h(text):
    return float.fromhex(text)


def _table(text):
    return np.array([float.fromhex(t) for t in text.split()])


# logf: log(x) = log1p(z / c - 1) + log(c) + k * ln2 with x = 2**k * z and 1/c, log(c) from
# a 16-entry table indexed by the top mantissa bits of z.
_LOGF_INVC = _table("""
    0x1.661ec79f8f3bep+0 0x1.571ed4aaf883dp+0 0x1.49539f0f010bp+0 0x1.3c995b0b80385p+0
    0x1.30d190c8864a5p+0 0x1.25e227b0b8eap+0 0x1.1bb4a4a1a343fp+0 0x1.12358f08ae5bap+0
    0x1.0953f419900a7p+0 0x1p+0 0x1.e608cfd9a47acp-1 0x1.ca4b31f026aap-1
    0x1.b2036576afce6p-1 0x1.9c2d163a1aa2dp-1 0x1.886e6037841edp-1 0x1.767dcf5534862p-1
""")
_LOGF_LOGC = _table("""
    -0x1.57bf7808caadep-2 -0x1.2bef0a7c06ddbp-2 -0x1.01eae7f513a67p-2 -0x1.b31d8a68224e9p-3
    -0x1.6574f0ac07758p-3 -0x1.1aa2bc79c81p-3 -0x1.a4e76ce8c0e5ep-4 -0x1.1973c5a611cccp-4
    -0x1.252f438e10c1ep-5 0x0p+0 0x1.aa5aa5df25984p-5 0x1.c5e53aa362eb4p-4
    0x1.526e57720db08p-3 0x1.bc2860d22477p-3 0x1.1058bc8a07ee1p-2 0x1.4043057b6ee09p-2
""")
_LN2 = _h("0x1.62e42fefa39efp-1")
_LOGF_A0, _LOGF_A1, _LOGF_A2 = (_h("-0x1.00ea348b88334p-2"), _h("0x1.5575b0be00b6ap-2"),
                                _h("-0x1.ffffef20a4123p-2"))
_LOGF_OFF = np.uint32(0x3F330000)

# sincosf: x reduced by multiples of pi/2 (quadrant n), then sin and cos polynomials.
_HPI_INV_2P24 = _h("0x1.45F306DC9C883p+23")  # 2/pi * 2**24: the quadrant lands in bits 24..31
_HPI = _h("0x1.921FB54442D18p0")
_HPI_HI = _h("0x1.921FB5p0")  # pi/2's top 25 bits; the rest is exact in _HPI_LO
_HPI_LO = _HPI - _HPI_HI
_C0, _C1, _C2, _C3, _C4 = (_h("0x1p0"), _h("-0x1.ffffffd0c621cp-2"), _h("0x1.55553e1068f19p-5"),
                           _h("-0x1.6c087e89a359dp-10"), _h("0x1.99343027bf8c3p-16"))
_S1, _S2, _S3 = (_h("-0x1.555545995a603p-3"), _h("0x1.1107605230bc4p-7"),
                 _h("-0x1.994eb3774cf24p-13"))
_SIN_SIGN = np.array([1.0, -1.0, -1.0, 1.0])


def _fallback(fn, x):
    return fn(x.astype(np.float64)).astype(np.float32)


def logf(x):
    """Natural log of a float32 array, with glibc's `logf` rounding.

    Args:
      x: array-like of float32.

    Returns:
      A float32 ndarray of the same shape.
    """
    x = c_order(np, x, dtype=np.float32)
    ix = x.view(np.uint32)
    fast = (ix - np.uint32(0x00800000)) < np.uint32(0x7F800000 - 0x00800000)
    out = np.empty_like(x)
    if not fast.all():
        with np.errstate(divide="ignore", invalid="ignore"):
            out[~fast] = _fallback(np.log, x[~fast])
    ixf = ix[fast]
    with np.errstate(over="ignore"):
        tmp = ixf - _LOGF_OFF  # wraps like C's uint32 arithmetic
    i = (tmp >> np.uint32(19)) & np.uint32(15)
    k = (tmp.view(np.int32) >> 23).astype(np.float64)
    iz = ixf - (tmp & np.uint32(0x1FF << 23))
    z = iz.view(np.float32).astype(np.float64)
    r = _fma_exact_minus_one(z, _LOGF_INVC[i])
    y0 = _LOGF_LOGC[i] + k * _LN2
    r2 = r * r
    y = _LOGF_A1 * r + _LOGF_A2
    y = _LOGF_A0 * r2 + y
    y = y * r2 + (y0 + r)
    res = y.astype(np.float32)
    res[ixf == np.uint32(0x3F800000)] = 0.0
    out[fast] = res
    return out


def _fma_exact_minus_one(z, c):
    """z * c - 1 rounded once (glibc's FMA build), for float32-valued z and z * c near 1.

    c is split into 26 + 27 bits so that both partial products are exact in float64; the
    first minus 1 is exact (it lies in [0.5, 2]), so the final sum rounds once.
    """
    split = c * 134217729.0  # 2**27 + 1
    hi = split - (split - c)
    lo = c - hi
    return (z * hi - 1.0) + z * lo


def sincosf(x):
    """(sin(x), cos(x)) of a float32 array, with glibc's `sincosf` rounding.

    Args:
      x: array-like of float32.

    Returns:
      Two float32 ndarrays of x's shape.
    """
    x = c_order(np, x, dtype=np.float32)
    top = (x.view(np.uint32) >> np.uint32(20)) & np.uint32(0x7FF)
    sin_out = np.empty_like(x)
    cos_out = np.empty_like(x)
    tiny = top < np.uint32(0x398)  # |x| < 2**-12: sin x = x, cos x = 1
    small = (top < np.uint32(0x3F4)) & ~tiny  # below the float pi/4's top bits
    mid = (top >= np.uint32(0x3F4)) & (top < np.uint32(0x42F))  # up to 120
    rest = ~(tiny | small | mid)
    sin_out[tiny] = x[tiny]
    cos_out[tiny] = 1.0
    if small.any():
        xs = x[small].astype(np.float64)
        s, c = _sincos_poly(xs, xs * xs)
        sin_out[small] = s.astype(np.float32)
        cos_out[small] = c.astype(np.float32)
    if mid.any():
        xd = x[mid].astype(np.float64)
        n = ((xd * _HPI_INV_2P24).astype(np.int32) + np.int32(0x800000)) >> 24
        # x - n * pi/2 rounded once, as glibc's FMA build computes it: pi/2 in two parts
        # whose products with n are exact, and x - n * hi is exact (Sterbenz).
        nd = n.astype(np.float64)
        r = (xd - nd * _HPI_HI) - nd * _HPI_LO
        s, c = _sincos_poly(r, r * r)
        # the sine polynomial takes the quadrant's sign, the cosine one is negated in
        # quadrants 2 and 3, and odd quadrants swap the two
        s = s * _SIN_SIGN[n & 3]
        c = np.where(n & 2, -c, c)
        odd = (n & 1).astype(bool)
        sin_v = np.where(odd, c, s)
        cos_v = np.where(odd, s, c)
        sin_out[mid] = sin_v.astype(np.float32)
        cos_out[mid] = cos_v.astype(np.float32)
    if rest.any():
        with np.errstate(invalid="ignore"):
            sin_out[rest] = _fallback(np.sin, x[rest])
            cos_out[rest] = _fallback(np.cos, x[rest])
    return sin_out, cos_out


def _sincos_poly(x, x2):
    x4 = x2 * x2
    x3 = x2 * x
    c2 = _C3 + x2 * _C4
    s1 = _S2 + x2 * _S3
    c1 = _C0 + x2 * _C1
    x5 = x3 * x2
    x6 = x4 * x2
    s = x + x3 * _S1
    c = c1 + x4 * _C2
    return s + x5 * s1, c + x6 * c2
