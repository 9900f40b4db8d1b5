"""SipHash-2-4 (Aumasson and Bernstein), the keyed hash of TF's `StringToHashBucketStrong`:
`SipHash(key, s) % num_buckets` with the two 64-bit key words `key[0]`, `key[1]`. Plain Python
integers modulo 2**64.
"""

import struct

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
