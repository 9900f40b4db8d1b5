"""SipHash-2-4 (Aumasson and Bernstein), the keyed hash of TF's `StringToHashBucketStrong`:
`SipHash(key, s) % num_buckets` with the two 64-bit key words `key[0]`, `key[1]`, modulo
2**64: `siphash24` for one string in Python integers, `siphash24_batch` for many as NumPy
columns.
"""

import struct

import numpy as np

_M = 0xFFFFFFFFFFFFFFFF


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & _M


def _rounds(v0, v1, v2, v3, count):
    for _ in range(count):
        v0 = (v0 + v1) & _M
        v1 = _rotl(v1, 13) ^ v0
        v0 = _rotl(v0, 32)
        v2 = (v2 + v3) & _M
        v3 = _rotl(v3, 16) ^ v2
        v0 = (v0 + v3) & _M
        v3 = _rotl(v3, 21) ^ v0
        v2 = (v2 + v1) & _M
        v1 = _rotl(v1, 17) ^ v2
        v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


def siphash24(k0, k1, data):
    """SipHash-2-4 of the bytes `data` under the key words `k0`, `k1` (each mod 2**64)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    k0, k1 = k0 & _M, k1 & _M
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573
    n = len(data)
    whole = n - n % 8
    last = ((n & 0xFF) << 56) | int.from_bytes(data[whole:], "little")
    for (m,) in list(struct.iter_unpack("<Q", data[:whole])) + [(last,)]:
        v3 ^= m
        v0, v1, v2, v3 = _rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    v2 ^= 0xFF
    v0, v1, v2, v3 = _rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


def _rotl_columns(x, b):
    return (x << np.uint64(b)) | (x >> np.uint64(64 - b))


def _rounds_columns(v, count):
    v0, v1, v2, v3 = v
    for _ in range(count):
        v0 = v0 + v1
        v1 = _rotl_columns(v1, 13) ^ v0
        v0 = _rotl_columns(v0, 32)
        v2 = v2 + v3
        v3 = _rotl_columns(v3, 16) ^ v2
        v0 = v0 + v3
        v3 = _rotl_columns(v3, 21) ^ v0
        v2 = v2 + v1
        v1 = _rotl_columns(v1, 17) ^ v2
        v2 = _rotl_columns(v2, 32)
    return [v0, v1, v2, v3]


def siphash24_batch(k0, k1, texts):
    """`siphash24` of each byte string of `texts`, as a uint64 array (NumPy arithmetic wraps
    modulo 2**64)."""
    from flowloom.ops.strings.hash64 import blocks_by_count

    k0, k1 = np.uint64(k0 & _M), np.uint64(k1 & _M)
    out = np.empty(len(texts), dtype=np.uint64)
    for rows, blocks, tails, lengths in blocks_by_count(texts):
        ones = np.ones(len(rows), dtype=np.uint64)
        v = [ones * (k0 ^ np.uint64(0x736F6D6570736575)),
             ones * (k1 ^ np.uint64(0x646F72616E646F6D)),
             ones * (k0 ^ np.uint64(0x6C7967656E657261)),
             ones * (k1 ^ np.uint64(0x7465646279746573))]
        last = ((lengths & np.uint64(0xFF)) << np.uint64(56)) | tails
        for m in [blocks[:, j] for j in range(blocks.shape[1])] + [last]:
            v[3] = v[3] ^ m
            v = _rounds_columns(v, 2)
            v[0] = v[0] ^ m
        v[2] = v[2] ^ np.uint64(0xFF)
        v = _rounds_columns(v, 4)
        out[rows] = v[0] ^ v[1] ^ v[2] ^ v[3]
    return out
