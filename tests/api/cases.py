"""The case format shared by the tests/api case modules (run under TF to record, under
flowloom to compare).

A case is a function of the `tf` module returning a dict: `out` (tensors to fetch),
optionally `xs` (gradients of out[0] with respect to them, with grad_ys from
`grad_weights`), `init` (run the global and local variable initializers first), `before`
(a list of (fetches, feed_dict) run in order before `out` — streaming metrics' updates),
`feed` (the feed_dict for fetching `out`), `after` (tensors fetched in one more run once
`out` has run: a streaming metric's value after its last update). Inputs come from `rng(name)` so both sides see the
same numbers. `ERROR_CASES` build programs that must fail: the error class is compared.
"""

import zlib

import numpy as np


class Registry:
    def __init__(self):
        self.cases, self.errors, self.names_differ = {}, {}, {}

    def case(self, fn):
        self.cases[fn.__name__] = fn
        return fn

    def error_case(self, fn):
        self.errors[fn.__name__] = fn
        return fn

    def names_differ_from_tf(self, reason):
        def mark(fn):
            self.names_differ[fn.__name__] = reason
            return fn
        return mark


def rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def f32(name, *shape, lo=-2.0, hi=2.0):
    return rng(name).uniform(lo, hi, shape).astype(np.float32)


def f64(name, *shape, lo=-2.0, hi=2.0):
    return rng(name).uniform(lo, hi, shape)


def spd(name, n, batch=()):
    """Symmetric positive-definite float64 matrices."""
    a = f64(name, *batch, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def grad_weights(name, shape):
    return rng("w:" + name).uniform(-1, 1, shape)
