"""TensorFlow's CPU random numbers: Philox4x32-10 and the transforms its kernels apply.

Everything here is a pure function of (key, counter) and sizes, vectorised over the 128-bit
blocks. The layouts follow TF's CPU kernels so that the same (seed, seed2) gives the same
values:

- a generator is (key = seed as two uint32 words, counter = [0, 0, seed2 lo, seed2 hi]);
- fixed-sample distributions fill the output in groups, group g drawn from block counter + g
  (float/half/int32: 4 values a block; double/int64: 2 values a block);
- truncated normal draws group g (4 floats, 2 doubles) from a stream of uint32 that starts
  256 blocks (float) or 128 blocks (double) per group after the op's counter, by rejection;
- every run of a stateful op moves the op's counter on by `outputs * 256` blocks (TF's
  `GuardedPhiloxRandom::ReserveRandomOutputs`), so a second run gives new values.
"""

import math
import os
import struct
import threading

import numpy as np

from flowloom.ops.random import libm_float

_W32A = np.uint32(0x9E3779B9)
_W32B = np.uint32(0xBB67AE85)
_M4x32A = np.uint64(0xD2511F53)
_M4x32B = np.uint64(0xCD9E8D57)
_MASK32 = np.uint64(0xFFFFFFFF)
_U128 = (1 << 128) - 1


class PhiloxState:
    """The (key, 128-bit counter) of one op's generator; `reserve` hands out block ranges."""

    def __init__(self, seed, seed2):
        if seed == 0 and seed2 == 0:
            # TF: both seeds unset means fresh random seeds for each kernel instance.
            seed = int.from_bytes(os.urandom(8), "little")
            seed2 = int.from_bytes(os.urandom(8), "little")
        seed &= (1 << 64) - 1
        seed2 &= (1 << 64) - 1
        self.key = (seed & 0xFFFFFFFF, seed >> 32)
        self.counter = seed2 << 64
        # Runs of one op may overlap (two queue-runner threads run one enqueue): each
        # reservation is atomic, as under TF's GuardedPhiloxRandom mutex.
        self._lock = threading.Lock()
        self._ahead = None  # (first counter, stride, blocks per draw, [words per draw])
        self._next = None   # (counter, stride, blocks) the next draw takes if it repeats
        self._rows = None   # `_ahead` of reserve_runs: (first counter, stride, blocks, array)

    def reserve(self, blocks):
        """Returns the counter to draw from and skips `blocks` 128-bit blocks past it."""
        with self._lock:
            start = self.counter
            self.counter = (start + int(blocks)) & _U128
        return start

    def reserve_outputs(self, count, multiplier=256):
        return self.reserve(int(count) * multiplier)

    def reserve_words(self, count, nblocks, multiplier=256):
        """`reserve_outputs(count)` and the words of the `nblocks` blocks at the counter it
        returns, as a list of 4 * nblocks Python integers: (counter, words).

        A small draw that repeats run after run (a scalar uniform per example) would cost a
        Philox pass on Python integers each time (~7 us a block). When a draw takes the
        counter that the previous one predicted (same count, same blocks), the words of the
        next AHEAD_DRAWS draws are computed in one NumPy pass and handed out one draw at a
        time: the same words, as each is a function of (key, counter) alone.
        """
        stride = int(count) * multiplier
        with self._lock:
            start = self.counter
            after = (start + stride) & _U128
            self.counter = after
            ahead = self._ahead
            if ahead is not None and ahead[1] == stride and ahead[2] == nblocks:
                k, r = divmod((start - ahead[0]) & _U128, stride)
                if not r and k < len(ahead[3]):
                    return start, ahead[3][k]
                repeats = not r and k == len(ahead[3])
            else:
                repeats = self._next == (start, stride, nblocks)
            self._next = (after, stride, nblocks)
            if repeats and stride and nblocks:
                rows = words_ahead(self.key, start, stride, nblocks, AHEAD_DRAWS)
                self._ahead = (start, stride, nblocks, rows)
                return start, rows[0]
        return start, _words_small(self.key, start, nblocks)

    def reserve_runs(self, count, nblocks, runs, multiplier=256):
        """`runs` reservations of `reserve_outputs(count)` in a row, and the words of the
        first `nblocks` blocks of each: a uint32 array [runs, 4 * nblocks] (row j: the draw
        at the j-th counter). The rows of the next AHEAD_DRAWS runs are computed in one
        NumPy pass and handed out as the runs come (train/chunked_enqueue.py)."""
        stride = int(count) * multiplier
        with self._lock:
            start = self.counter
            self.counter = (start + runs * stride) & _U128
            rows = self._rows
            if rows is not None and rows[1] == stride and rows[2] == nblocks:
                k, r = divmod((start - rows[0]) & _U128, stride)
                if not r and k + runs <= len(rows[3]):
                    return rows[3][k:k + runs]
            draws = max(int(runs), AHEAD_DRAWS)
            offsets = (np.arange(draws, dtype=np.uint64) * np.uint64(stride))[:, None] + \
                np.arange(nblocks, dtype=np.uint64)[None, :]
            words = blocks_at(self.key, start, offsets).reshape(draws, 4 * nblocks)
            self._rows = (start, stride, nblocks, words)
            return words[:runs]


# How many repeating small draws `PhiloxState.reserve_words` computes at once.
AHEAD_DRAWS = 256


def words_ahead(key, counter, stride, nblocks, draws):
    """The words of `draws` draws of `nblocks` blocks each, draw j at counter + j * stride:
    a list per draw of 4 * nblocks Python integers (what `_words_small` gives for each)."""
    offsets = (np.arange(draws, dtype=np.uint64) * np.uint64(stride))[:, None] + \
        np.arange(nblocks, dtype=np.uint64)[None, :]
    return blocks_at(key, counter, offsets).reshape(draws, 4 * nblocks).tolist()


def blocks(key, counter, n, skip=0):
    """`n` Philox4x32-10 outputs for counters counter+skip .. +n-1, as an (n, 4) uint32 array."""
    return blocks_at(key, counter, np.arange(int(n), dtype=np.uint64) + np.uint64(int(skip)))


# Draws of at most this many blocks run on Python integers (`_blocks_small`): a NumPy pass
# costs tens of array operations whatever the size, which dominates tiny draws (one value
# for a flip, three for a crop offset).
SMALL_BLOCKS = 8
_M32, _M64 = 0xFFFFFFFF, (1 << 64) - 1


def blocks_at(key, counter, offsets):
    """Philox outputs for counters `counter + offsets` (offsets: uint64 array, any shape)."""
    offsets = np.asarray(offsets, np.uint64)
    if offsets.size <= SMALL_BLOCKS:
        return _blocks_small(key, counter, offsets)
    lo64 = np.uint64(counter & 0xFFFFFFFFFFFFFFFF) + offsets
    carry = (lo64 < offsets).astype(np.uint64)  # wrapped past 2**64
    hi64 = np.uint64((counter >> 64) & 0xFFFFFFFFFFFFFFFF) + carry
    return philox_rounds(key, lo64, hi64)


def _block_words(k0, k1, lo, hi, out):
    """Appends the 4 words of the block at counter (hi << 64 | lo) to `out`."""
    c0, c1, c2, c3 = lo & _M32, lo >> 32, hi & _M32, hi >> 32
    a, b = k0, k1
    for _ in range(10):
        p0 = 0xD2511F53 * c0
        p1 = 0xCD9E8D57 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ a, p1 & _M32, (p0 >> 32) ^ c3 ^ b, p0 & _M32
        a = (a + 0x9E3779B9) & _M32
        b = (b + 0xBB67AE85) & _M32
    out += (c0, c1, c2, c3)


def _blocks_small(key, counter, offsets):
    """`blocks_at` on Python integers: the same words, block by block."""
    k0, k1 = int(key[0]) & _M32, int(key[1]) & _M32
    lo0, hi0 = counter & _M64, (counter >> 64) & _M64
    out = []
    for off in offsets.ravel().tolist():
        lo = lo0 + off
        _block_words(k0, k1, lo & _M64, (hi0 + (lo >> 64)) & _M64, out)
    return np.array(out, np.uint32).reshape(offsets.shape + (4,))


def _words_small(key, counter, n):
    """The words of blocks counter .. counter + n - 1 as a list of Python integers."""
    k0, k1 = int(key[0]) & _M32, int(key[1]) & _M32
    out = []
    for off in range(n):
        c = (counter + off) & _U128
        _block_words(k0, k1, c & _M64, c >> 64, out)
    return out


_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


def philox_rounds(key, lo64, hi64):
    c0 = (lo64 & _MASK32).astype(np.uint32)
    c1 = (lo64 >> np.uint64(32)).astype(np.uint32)
    c2 = (hi64 & _MASK32).astype(np.uint32)
    c3 = (hi64 >> np.uint64(32)).astype(np.uint32)
    k0, k1 = np.uint32(key[0]), np.uint32(key[1])
    with np.errstate(over="ignore"):
        for r in range(10):
            if r:
                k0 = np.uint32(k0 + _W32A)
                k1 = np.uint32(k1 + _W32B)
            p0 = _M4x32A * c0.astype(np.uint64)
            p1 = _M4x32B * c2.astype(np.uint64)
            hi0 = (p0 >> np.uint64(32)).astype(np.uint32)
            lo0 = (p0 & _MASK32).astype(np.uint32)
            hi1 = (p1 >> np.uint64(32)).astype(np.uint32)
            lo1 = (p1 & _MASK32).astype(np.uint32)
            c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return np.stack([c0, c1, c2, c3], axis=-1)


# uint32 -> uniform floats, by filling the mantissa of a number in [1, 2) and subtracting 1.

def uint32_to_float(x):
    bits = (x & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)
    return bits.view(np.float32) - np.float32(1.0)


def uint16_to_half(x):
    bits = ((x & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)
    return bits.view(np.float16) - np.float16(1.0)


def uint64_to_double(x0, x1):
    man = ((x0 & np.uint32(0xFFFFF)).astype(np.uint64) << np.uint64(32)) | x1.astype(np.uint64)
    bits = man | np.uint64(1023 << 52)
    return bits.view(np.float64) - 1.0


def box_muller_float(x0, x1):
    """TF's BoxMullerFloat: two float32 normals from two uint32 words (float32 arithmetic).

    TF calls the C library's `logf` and `sincosf`; libm_float reproduces glibc's results.
    """
    u1 = uint32_to_float(x0)
    u1 = np.maximum(u1, np.float32(1.0e-7))
    # 2.0f * M_PI is a double product; the result is stored in a float.
    v1 = (2.0 * math.pi * uint32_to_float(x1).astype(np.float64)).astype(np.float32)
    u2 = np.sqrt(np.float32(-2.0) * libm_float.logf(u1))
    sin_v1, cos_v1 = libm_float.sincosf(v1)
    return sin_v1 * u2, cos_v1 * u2


def box_muller_double(x0, x1, x2, x3):
    """TF's BoxMullerDouble: two float64 normals from four uint32 words."""
    u1 = np.maximum(uint64_to_double(x0, x1), 1.0e-7)
    v1 = 2 * math.pi * uint64_to_double(x2, x3)
    u2 = np.sqrt(-2.0 * _log_as_libm(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


def _log_as_libm(x):
    """float64 `log` as the C library computes it (TF calls std::log). NumPy's own SIMD log,
    which it takes on AVX-512 machines, is faithful but not glibc's: it differs in the last bit
    for about 0.4% of inputs. Python's math.log is the C library's, element by element."""
    flat = x.ravel()
    return np.fromiter(map(math.log, flat.tolist()), np.float64, count=flat.size).reshape(x.shape)


# The distributions, each producing `size` values in TF's order from (key, counter).

def small_draw(dtype, size):
    """How many blocks a draw of `size` values of `dtype` takes on Python integers (the
    `words` argument of `uniform` / `uniform_int`), or 0 when it takes the NumPy path."""
    if 0 < size <= 4 * SMALL_BLOCKS and np.dtype(dtype) in (np.float32, np.int32):
        return -(-size // 4)
    return 0


def uniform(key, counter, size, dtype, words=None):
    """`size` uniform values in [0, 1); `words`: the draw's words when the caller has them
    (`PhiloxState.reserve_words`, for a draw `small_draw` accepts)."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        b = blocks(key, counter, -(-size // 2)).reshape(-1, 2)
        return uint64_to_double(b[:, 0], b[:, 1])[:size]
    if dtype == np.float32 and size <= 4 * SMALL_BLOCKS:
        # uint32_to_float on Python numbers: v in [1, 2) is a float32, and v - 1 is exact
        if words is None:
            words = _words_small(key, counter, -(-size // 4))
        return np.array([_F32.unpack(_U32.pack((w & 0x7FFFFF) | 0x3F800000))[0] - 1.0
                         for w in words[:size]], np.float32)
    b = blocks(key, counter, -(-size // 4)).ravel()[:size]
    if dtype == np.float16:
        return uint16_to_half(b)
    if dtype == np.float32:
        return uint32_to_float(b)
    if dtype.name == "bfloat16":  # ml_dtypes' type: [1, 2) - 1 is exact in bfloat16
        return uniform_bfloat16_bits(key, counter, size).astype(dtype)
    raise NotImplementedError(f"random uniform values of dtype {dtype}")


def uniform_bfloat16_bits(key, counter, size):
    """bfloat16 uniforms (TF's Uint16ToGfloat16) as float32 values."""
    b = blocks(key, counter, -(-size // 4)).ravel()[:size]
    bits = ((b & np.uint32(0x7F)) | np.uint32(127 << 7)) << np.uint32(16)
    return bits.view(np.float32) - np.float32(1.0)


def uniform_int(key, counter, size, lo, hi, dtype, words=None):
    """TF's UniformDistribution for int32/int64: lo + bits % (hi - lo) (`words`: as for
    `uniform`)."""
    dtype = np.dtype(dtype)
    if dtype == np.int64:
        b = blocks(key, counter, -(-size // 2)).reshape(-1, 2)
        bits = b[:, 0].astype(np.uint64) | (b[:, 1].astype(np.uint64) << np.uint64(32))
        rng = np.uint64((int(hi) - int(lo)) & 0xFFFFFFFFFFFFFFFF)
        return (np.int64(lo) + (bits % rng)[:size].astype(np.int64)).astype(np.int64)
    span = (int(hi) - int(lo)) & 0xFFFFFFFF
    if size <= 4 * SMALL_BLOCKS and span:
        if words is None:
            words = _words_small(key, counter, -(-size // 4))
        return np.array([int(lo) + w % span for w in words[:size]], np.int64).astype(dtype)
    b = blocks(key, counter, -(-size // 4)).ravel()[:size]
    rng = np.uint32(span)
    return (int(lo) + (b % rng).astype(np.int64)).astype(dtype)


def normal(key, counter, size, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        b = blocks(key, counter, -(-size // 2))
        d0, d1 = box_muller_double(b[:, 0], b[:, 1], b[:, 2], b[:, 3])
        return np.stack([d0, d1], axis=-1).ravel()[:size]
    b = blocks(key, counter, -(-size // 4)).reshape(-1, 2)
    f0, f1 = box_muller_float(b[:, 0], b[:, 1])
    out = np.stack([f0, f1], axis=-1).ravel()[:size]
    return out.astype(dtype) if dtype != np.float32 else out


def truncated_normal(key, counter, size, dtype):
    """TF's TruncatedNormalDistribution: per group, the first values with |x| < 2 of a normal
    stream that starts at the group's own counter offset."""
    dtype = np.dtype(dtype)
    per_group = 2 if dtype == np.float64 else 4
    skip = 128 if dtype == np.float64 else 256
    groups = -(-size // per_group)
    if groups == 0:
        return np.zeros(0, dtype)
    out = np.empty((groups, per_group), np.float64 if dtype == np.float64 else np.float32)
    # Groups are drawn a slice at a time: each group's values depend on its own stream only,
    # and Philox's temporaries take ~150 bytes per value (a slice: ~2.5 MiB of them).
    for lo in range(0, groups, TRUNCATED_GROUPS_PER_SLICE):
        _truncated_groups(out, key, counter,
                          np.arange(lo, min(groups, lo + TRUNCATED_GROUPS_PER_SLICE)),
                          per_group, skip, dtype)
    flat = out.ravel()[:size]
    return flat.astype(dtype) if flat.dtype != dtype else flat


TRUNCATED_GROUPS_PER_SLICE = 4096


def _truncated_groups(out, key, counter, todo, per_group, skip, dtype):
    depth = 2  # blocks of the stream drawn per group per pass; doubled on each retry
    while todo.size:
        cand = _normal_stream(key, counter, todo * skip, depth, dtype)
        ok = np.abs(cand) < 2.0
        enough = ok.sum(axis=1) >= per_group
        rows = np.nonzero(enough)[0]
        if rows.size:
            picked = cand[rows][ok[rows]].reshape(-1)
            # each row's first `per_group` accepted values, in stream order
            counts = ok[rows].sum(axis=1)
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
            take = starts[:, None] + np.arange(per_group)[None, :]
            out[todo[rows]] = picked[take]
        todo = todo[~enough]
        depth *= 2


def _normal_stream(key, counter, offsets, depth, dtype):
    """The first `depth` blocks' worth of normals for streams starting at counter+offset."""
    at = offsets.astype(np.uint64)[:, None] + np.arange(depth, dtype=np.uint64)[None, :]
    b = blocks_at(key, counter, at)  # (streams, depth, 4)
    n = len(offsets)
    if dtype == np.float64:
        d0, d1 = box_muller_double(b[..., 0], b[..., 1], b[..., 2], b[..., 3])
        return np.stack([d0, d1], axis=-1).reshape(n, depth * 2)
    q = b.reshape(n, depth * 2, 2)
    f0, f1 = box_muller_float(q[..., 0], q[..., 1])
    return np.stack([f0, f1], axis=-1).reshape(n, depth * 4)


def uint32_stream(key, counter, count):
    """`count` uint32 words in the order TF's SingleSampleAdapter hands them out."""
    return blocks(key, counter, -(-int(count) // 4)).ravel()[:int(count)]
