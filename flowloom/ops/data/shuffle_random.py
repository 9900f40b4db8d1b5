"""The random stream a RandomShuffleQueue draws its dequeue indices from.

TF's queue holds a Philox4x32-10 generator built from (seed, seed2) and takes its 32-bit
outputs one at a time (`SingleSampleAdapter`); a dequeue picks element `next() % size`. The
same stream here gives the same dequeue order as TF for the same seeds.
"""

import os

_M0, _M1 = 0xD2511F53, 0xCD9E8D57
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_MASK32 = 0xFFFFFFFF


def philox4x32_10(counter, key):
    """One Philox4x32 block (10 rounds): four 32-bit words from a 128-bit counter and key."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for r in range(10):
        p0 = _M0 * c0
        p1 = _M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0, p1 & _MASK32,
                          (p0 >> 32) ^ c3 ^ k1, p0 & _MASK32)
        if r < 9:
            k0 = (k0 + _W0) & _MASK32
            k1 = (k1 + _W1) & _MASK32
    return c0, c1, c2, c3


class SingleSamplePhilox:
    """TF's `PhiloxRandom(seed, seed2)` read one uint32 at a time.

    Both seeds 0 means "unseeded": fresh random seeds, as TF draws them.
    """

    def __init__(self, seed, seed2):
        seed &= 0xFFFFFFFFFFFFFFFF
        seed2 &= 0xFFFFFFFFFFFFFFFF
        if seed == 0 and seed2 == 0:
            seed = int.from_bytes(os.urandom(8), "little")
            seed2 = int.from_bytes(os.urandom(8), "little")
        self._key = (seed & _MASK32, seed >> 32)
        self._counter = [0, 0, seed2 & _MASK32, seed2 >> 32]
        self._block = ()
        self._used = 4

    def _skip_one(self):
        c = self._counter
        for i in range(4):
            c[i] = (c[i] + 1) & _MASK32
            if c[i]:
                break

    def __call__(self):
        if self._used == 4:
            self._block = philox4x32_10(self._counter, self._key)
            self._skip_one()
            self._used = 0
        v = self._block[self._used]
        self._used += 1
        return v
