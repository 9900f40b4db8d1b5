"""TF's Hash64 (core/lib/hash): MurmurHash64A with TF's default seed 0xDECAFCAFFE, in plain
Python integers modulo 2**64. `StringToHashBucket` (`tf.string_to_hash_bucket`, the hash
before FarmHash) gives `Hash64(s) % num_buckets`.
"""

import struct

_M = 0xFFFFFFFFFFFFFFFF
_MUL = 0xC6A4A7935BD1E995
_SEED = 0xDECAFCAFFE


def hash64(data, seed=_SEED):
    """Hash64 of the bytes `data` (a str is hashed as its UTF-8 bytes)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    n = len(data)
    h = seed ^ ((n * _MUL) & _M)
    whole = n - n % 8
    for (k,) in struct.iter_unpack("<Q", data[:whole]):
        k = (k * _MUL) & _M
        k ^= k >> 47
        h ^= (k * _MUL) & _M
        h = (h * _MUL) & _M
    if n % 8:
        h ^= int.from_bytes(data[whole:], "little")
        h = (h * _MUL) & _M
    h ^= h >> 47
    h = (h * _MUL) & _M
    return h ^ (h >> 47)
