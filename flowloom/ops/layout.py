"""Memory layout of kernel results.

`c_order(xp, a)` is `a` C-contiguous with its rank kept: `xp.ascontiguousarray` returns at
least a 1-d array, which turned 0-d results (a broadcast to shape [], a scalar's log) into
shape [1]. Kernels use this instead."""


def c_order(xp, a, dtype=None):
    """`a` as a C-contiguous array of `xp` (copied only when needed), of the same shape."""
    return xp.asarray(a, dtype=dtype, order="C")
