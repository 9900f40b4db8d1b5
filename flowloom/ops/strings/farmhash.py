"""FarmHash Fingerprint64 and TF's FingerprintCat64, in plain Python integers.

TF hashes strings into buckets with `Fingerprint64(s) % num_buckets` (the
`StringToHashBucketFast` op, categorical_column_with_hash_bucket) and crosses features with
`FingerprintCat64` (the `SparseCross` op, crossed_column). Fingerprint64 is FarmHash's
`farmhashna::Hash64` with its fixed seeds: the same bytes give the same 64-bit value on every
machine, so flowloom's buckets are TF's buckets. All arithmetic is modulo 2**64.
"""

import functools
import struct

import numpy as np

_M = 0xFFFFFFFFFFFFFFFF
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F
_CAT_MUL = 0xC6A4A7935BD1E995


def _f64(s, i):
    return struct.unpack_from("<Q", s, i)[0]


def _f32(s, i):
    return struct.unpack_from("<I", s, i)[0]


def _rot(v, shift):
    return v if shift == 0 else ((v >> shift) | (v << (64 - shift))) & _M


def _shift_mix(v):
    return v ^ (v >> 47)


def _hash_len16(u, v, mul):
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _len0to16(s):
    n = len(s)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_f64(s, 0) + _K2) & _M
        b = _f64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        a = _f32(s, 0)
        return _hash_len16((n + (a << 3)) & _M, _f32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _M) * _K2) & _M
    return _K2


def _len17to32(s):
    n = len(s)
    mul = _K2 + n * 2
    a = (_f64(s, 0) * _K1) & _M
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & _M
    d = (_f64(s, n - 16) * _K2) & _M
    return _hash_len16((_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M,
                       (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)


def _len33to64(s):
    n = len(s)
    mul = _K2 + n * 2
    a = (_f64(s, 0) * _K2) & _M
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & _M
    d = (_f64(s, n - 16) * _K2) & _M
    y = (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M
    z = _hash_len16(y, (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)
    e = (_f64(s, 16) * mul) & _M
    f = _f64(s, 24)
    g = ((y + _f64(s, n - 32)) * mul) & _M
    h = ((z + _f64(s, n - 24)) * mul) & _M
    return _hash_len16((_rot((e + f) & _M, 43) + _rot(g, 30) + h) & _M,
                       (e + _rot((f + a) & _M, 18) + g) & _M, mul)


def _weak32(s, i, a, b):
    w, x, y, z = _f64(s, i), _f64(s, i + 8), _f64(s, i + 16), _f64(s, i + 24)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def fingerprint64(data):
    """FarmHash's Fingerprint64 of `data` (bytes; str is UTF-8 encoded) as an unsigned int."""
    return _fingerprint64(data.encode("utf-8") if isinstance(data, str) else bytes(data))


# Feature values repeat across batches (vocabulary words, ids): hashing each distinct value
# once keeps the pure-Python hash off the per-step path.
@functools.lru_cache(maxsize=1 << 17)
def _fingerprint64(s):
    n = len(s)
    if n <= 16:
        return _len0to16(s)
    if n <= 32:
        return _len17to32(s)
    if n <= 64:
        return _len33to64(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M
    z = (_shift_mix((y * _K2 + 113) & _M) * _K2) & _M
    v0 = v1 = w0 = w1 = 0
    x = (x * _K2 + _f64(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    pos = 0
    while True:
        x = (_rot((x + y + v0 + _f64(s, pos + 8)) & _M, 37) * _K1) & _M
        y = (_rot((y + v1 + _f64(s, pos + 48)) & _M, 42) * _K1) & _M
        x ^= w1
        y = (y + v0 + _f64(s, pos + 40)) & _M
        z = (_rot((z + w0) & _M, 33) * _K1) & _M
        v0, v1 = _weak32(s, pos, (v1 * _K1) & _M, (x + w0) & _M)
        w0, w1 = _weak32(s, pos + 32, (z + w1) & _M, (y + _f64(s, pos + 16)) & _M)
        z, x = x, z
        pos += 64
        if pos == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    pos = last64
    w0 = (w0 + ((n - 1) & 63)) & _M
    v0 = (v0 + w0) & _M
    w0 = (w0 + v0) & _M
    x = (_rot((x + y + v0 + _f64(s, pos + 8)) & _M, 37) * mul) & _M
    y = (_rot((y + v1 + _f64(s, pos + 48)) & _M, 42) * mul) & _M
    x ^= (w1 * 9) & _M
    y = (y + v0 * 9 + _f64(s, pos + 40)) & _M
    z = (_rot((z + w0) & _M, 33) * mul) & _M
    v0, v1 = _weak32(s, pos, (v1 * mul) & _M, (x + w0) & _M)
    w0, w1 = _weak32(s, pos + 32, (z + w1) & _M, (y + _f64(s, pos + 16)) & _M)
    z, x = x, z
    return _hash_len16((_hash_len16(v0, w0, mul) + _shift_mix(y) * _K0 + z) & _M,
                       (_hash_len16(v1, w1, mul) + x) & _M, mul)


def fingerprint_cat64(fp1, fp2):
    """TF's FingerprintCat64: combines two 64-bit fingerprints (order matters)."""
    result = fp1 ^ _CAT_MUL
    result ^= (_shift_mix((fp2 * _CAT_MUL) & _M) * _CAT_MUL) & _M
    result = (result * _CAT_MUL) & _M
    result = (_shift_mix(result) * _CAT_MUL) & _M
    return _shift_mix(result)


def fingerprint_cat64_array(fp1, fp2):
    """`fingerprint_cat64` elementwise over uint64 arrays (NumPy wraps modulo 2**64)."""
    mul = np.uint64(_CAT_MUL)
    shift = np.uint64(47)
    with np.errstate(over="ignore"):
        result = fp1 ^ mul
        t = fp2 * mul
        result ^= (t ^ (t >> shift)) * mul
        result = result * mul
        result = (result ^ (result >> shift)) * mul
        return result ^ (result >> shift)


def _rot_columns(v, shift):
    return (v >> np.uint64(shift)) | (v << np.uint64(64 - shift))


def _hash_len16_columns(u, v, mul):
    shift = np.uint64(47)
    a = (u ^ v) * mul
    a ^= a >> shift
    b = (v ^ a) * mul
    b ^= b >> shift
    return b * mul


def _load_columns(rows, offsets, width):
    """The `width`-byte little-endian words at `offsets` of each row of the byte matrix
    `rows`, as uint64."""
    picked = rows[np.arange(len(rows))[:, None], offsets[:, None] + np.arange(width)]
    words = np.ascontiguousarray(picked).view("<u8" if width == 8 else "<u4")[:, 0]
    return words.astype(np.uint64)


def _short_columns(rows, n):
    """Fingerprint64 of rows of at most 64 bytes, all in one of FarmHash's length classes
    (n: their lengths, uint64)."""
    k0, k1, k2 = np.uint64(_K0), np.uint64(_K1), np.uint64(_K2)
    mul = k2 + n * np.uint64(2)
    length = int(n.max()) if len(n) else 0
    if length > 32:
        a = _load_columns(rows, np.zeros(len(n), np.int64), 8) * k2
        b = _load_columns(rows, np.full(len(n), 8), 8)
        c = _load_columns(rows, n.astype(np.int64) - 8, 8) * mul
        d = _load_columns(rows, n.astype(np.int64) - 16, 8) * k2
        y = _rot_columns(a + b, 43) + _rot_columns(c, 30) + d
        z = _hash_len16_columns(y, a + _rot_columns(b + k2, 18) + c, mul)
        e = _load_columns(rows, np.full(len(n), 16), 8) * mul
        f = _load_columns(rows, np.full(len(n), 24), 8)
        g = (y + _load_columns(rows, n.astype(np.int64) - 32, 8)) * mul
        h = (z + _load_columns(rows, n.astype(np.int64) - 24, 8)) * mul
        return _hash_len16_columns(_rot_columns(e + f, 43) + _rot_columns(g, 30) + h,
                                   e + _rot_columns(f + a, 18) + g, mul)
    if length > 16:
        a = _load_columns(rows, np.zeros(len(n), np.int64), 8) * k1
        b = _load_columns(rows, np.full(len(n), 8), 8)
        c = _load_columns(rows, n.astype(np.int64) - 8, 8) * mul
        d = _load_columns(rows, n.astype(np.int64) - 16, 8) * k2
        return _hash_len16_columns(_rot_columns(a + b, 43) + _rot_columns(c, 30) + d,
                                   a + _rot_columns(b + k2, 18) + c, mul)
    out = np.full(len(n), k2, dtype=np.uint64)
    ends = n.astype(np.int64)
    big = ends >= 8
    if big.any():
        r, m = rows[big], mul[big]
        a = _load_columns(r, np.zeros(int(big.sum()), np.int64), 8) + k2
        b = _load_columns(r, ends[big] - 8, 8)
        c = _rot_columns(b, 37) * m + a
        d = (_rot_columns(a, 25) + b) * m
        out[big] = _hash_len16_columns(c, d, m)
    mid = (ends >= 4) & ~big
    if mid.any():
        r, m = rows[mid], mul[mid]
        a = _load_columns(r, np.zeros(int(mid.sum()), np.int64), 4)
        out[mid] = _hash_len16_columns(n[mid] + (a << np.uint64(3)),
                                       _load_columns(r, ends[mid] - 4, 4), m)
    small = (ends > 0) & (ends < 4)
    if small.any():
        r, e = rows[small].astype(np.uint64), ends[small]
        at = np.arange(len(e))
        y = r[:, 0] + (r[at, e >> 1] << np.uint64(8))
        z = n[small] + (r[at, e - 1] << np.uint64(2))
        v = (y * k2) ^ (z * k0)
        out[small] = (v ^ (v >> np.uint64(47))) * k2
    return out


def fingerprint64_batch(texts):
    """`fingerprint64` of each byte string of `texts` as a uint64 array: strings of up to 64
    bytes as NumPy columns per FarmHash length class, longer ones one by one."""
    out = np.empty(len(texts), dtype=np.uint64)
    classes = {}
    for i, t in enumerate(texts):
        n = len(t)
        classes.setdefault(0 if n <= 16 else 1 if n <= 32 else 2 if n <= 64 else 3,
                           []).append(i)
    for kind, index in classes.items():
        if kind == 3:
            out[index] = [_fingerprint64(texts[i]) for i in index]
            continue
        width = (16, 32, 64)[kind]
        rows = np.frombuffer(b"".join(texts[i].ljust(width, b"\0") for i in index),
                             dtype=np.uint8).reshape(len(index), width)
        lengths = np.fromiter((len(texts[i]) for i in index), dtype=np.uint64,
                              count=len(index))
        out[index] = _short_columns(rows, lengths)
    return out


_SEEN = {}  # bytes -> Fingerprint64: values repeat across steps (vocabulary words, ids)
_SEEN_LIMIT = 1 << 17


def fingerprint64_many(texts):
    """`fingerprint64` of each byte string of `texts` as a uint64 array: values hashed
    before are looked up, the rest hashed together by `fingerprint64_batch`."""
    got = [_SEEN.get(t) for t in texts]
    missing = [i for i, g in enumerate(got) if g is None]
    if missing:
        fresh = fingerprint64_batch([texts[i] for i in missing]).tolist()
        if len(_SEEN) + len(missing) > _SEEN_LIMIT:
            _SEEN.clear()
        for i, value in zip(missing, fresh):
            got[i] = _SEEN[texts[i]] = value
    return np.array(got, dtype=np.uint64)
