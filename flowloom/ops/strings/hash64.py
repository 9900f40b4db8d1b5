"""TF's Hash64 (core/lib/hash): MurmurHash64A with TF's default seed 0xDECAFCAFFE, modulo
2**64: `hash64` for one string in Python integers, `hash64_batch` for many as NumPy columns.
`StringToHashBucket` (`tf.string_to_hash_bucket`, the hash before FarmHash) gives
`Hash64(s) % num_buckets`.
"""

import struct

import numpy as np

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


def blocks_by_count(texts):
    """The byte strings `texts` grouped by their number of whole 8-byte blocks, so that each
    group hashes as NumPy columns: yields (the group's indices into `texts`, its blocks as a
    [rows, count] uint64 array, each row's last partial block as a little-endian uint64, each
    row's length)."""
    groups = {}
    for i, t in enumerate(texts):
        groups.setdefault(len(t) >> 3, []).append(i)
    for count, rows in groups.items():
        whole = b"".join(texts[i][:count * 8] for i in rows)
        blocks = np.frombuffer(whole, dtype="<u8").reshape(len(rows), count)
        tails = np.frombuffer(b"".join(texts[i][count * 8:].ljust(8, b"\0") for i in rows),
                              dtype="<u8")
        lengths = np.fromiter((len(texts[i]) for i in rows), dtype=np.uint64, count=len(rows))
        yield np.array(rows, dtype=np.int64), blocks, tails, lengths


def hash64_batch(texts, seed=_SEED):
    """`hash64` of each byte string of `texts`, as a uint64 array (NumPy arithmetic wraps
    modulo 2**64 as the C code does)."""
    out = np.empty(len(texts), dtype=np.uint64)
    mul, shift = np.uint64(_MUL), np.uint64(47)
    for rows, blocks, tails, lengths in blocks_by_count(texts):
        h = np.uint64(seed) ^ (lengths * mul)
        for j in range(blocks.shape[1]):
            k = blocks[:, j] * mul
            k ^= k >> shift
            h = (h ^ (k * mul)) * mul
        h = np.where(lengths % np.uint64(8) != 0, (h ^ tails) * mul, h)
        h ^= h >> shift
        h *= mul
        out[rows] = h ^ (h >> shift)
    return out
