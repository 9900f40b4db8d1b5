"""The random stream a RandomShuffleQueue draws its dequeue indices from.

TF's queue holds a Philox4x32-10 generator built from (seed, seed2) and takes its 32-bit
outputs one at a time (`SingleSampleAdapter`); a dequeue picks element `next() % size`. The
words come from TF's Philox (ops/random/philox.py), computed a few blocks at a time.
"""

from flowloom.ops.random import philox

_BLOCKS = 512  # 128-bit blocks computed per refill (2,048 words)


class SingleSamplePhilox:
    """TF's `PhiloxRandom(seed, seed2)` read one uint32 at a time.

    Both seeds 0 means "unseeded": fresh random seeds, as TF draws them.
    """

    def __init__(self, seed, seed2):
        self._state = philox.PhiloxState(seed, seed2)
        self._words = []
        self._used = 0

    def __call__(self):
        if self._used == len(self._words):
            counter = self._state.reserve(_BLOCKS)
            self._words = philox.blocks(self._state.key, counter, _BLOCKS).ravel().tolist()
            self._used = 0
        v = self._words[self._used]
        self._used += 1
        return v

    def take(self, k):
        """The next k words (as k calls)."""
        out = []
        while len(out) < k:
            if self._used == len(self._words):
                counter = self._state.reserve(_BLOCKS)
                self._words = philox.blocks(self._state.key, counter, _BLOCKS).ravel().tolist()
                self._used = 0
            m = min(k - len(out), len(self._words) - self._used)
            out.extend(self._words[self._used:self._used + m])
            self._used += m
        return out
