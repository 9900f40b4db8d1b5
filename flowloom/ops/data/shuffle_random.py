"""The random stream a RandomShuffleQueue draws its dequeue indices from.

TF's queue holds a Philox4x32-10 generator built from (seed, seed2) and takes its 32-bit
outputs one at a time (`SingleSampleAdapter`); a dequeue picks element `next() % size`. The
words come from TF's Philox (ops/random/philox.py), computed a few blocks at a time.
"""

import numpy as np

from flowloom.ops.random import philox

_BLOCKS = 2048  # 128-bit blocks computed per refill (8,192 words)


class SingleSamplePhilox:
    """TF's `PhiloxRandom(seed, seed2)` read one uint32 at a time.

    Both seeds 0 means "unseeded": fresh random seeds, as TF draws them.
    """

    def __init__(self, seed, seed2):
        self._state = philox.PhiloxState(seed, seed2)
        self._words = _EMPTY  # uint32 words computed ahead
        self._list = None  # the same as Python integers, made for `__call__`
        self._used = 0

    def _refill(self):
        counter = self._state.reserve(_BLOCKS)
        self._words = philox.blocks(self._state.key, counter, _BLOCKS).ravel()
        self._list = None
        self._used = 0

    def __call__(self):
        if self._used == len(self._words):
            self._refill()
        if self._list is None:
            self._list = self._words.tolist()
        v = self._list[self._used]
        self._used += 1
        return v

    def take(self, k):
        """The next k words (as k calls), as a uint32 array."""
        parts = []
        while k:
            if self._used == len(self._words):
                self._refill()
            m = min(k, len(self._words) - self._used)
            parts.append(self._words[self._used:self._used + m])
            self._used += m
            k -= m
        if len(parts) == 1:
            return parts[0]
        return np.concatenate(parts) if parts else _EMPTY


_EMPTY = np.zeros(0, np.uint32)
