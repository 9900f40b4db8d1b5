"""The input builders of the generic gradient test (tests/test_gradient_registry.py).

Every op type with a registered gradient needs an entry here, or that test fails. Each module
in this folder defines `CASES = {"OpType": builder}` (or a list of builders per op type); new
op families add their own module (e.g. `nn_cases.py`) rather than editing others.

A builder takes a `numpy.random.Generator` and builds, in the default graph:
    return [(x0, x0_value), (x1, x1_value), ...], y
    # optionally a third item, the tolerance (None: 1e-4), and a fourth, a feed dict for
    # other placeholders the graph needs (held fixed)
where each `x` is a float64 tensor to differentiate with respect to (usually a placeholder from
`ph`), its value the point to check at (choose values away from kinks: |x| > 0.1 for Abs, no
ties for Max, ...), and `y` is a float64 tensor that depends on them through the op under test.
The test checks that the op type appears between xs and y, then compares `tf.gradients` with
central differences (`tf.test.compute_gradient_error`, tolerance 1e-4 unless given).
"""

import numpy as np

import flowloom as tf


def dims(rng, rank, low=1, high=4):
    """A random shape of `rank` dims in [low, high)."""
    return tuple(int(d) for d in rng.integers(low, high, size=rank))


def ph(rng, shape, low=-1.0, high=1.0, name=None, static=True):
    """A float64 placeholder and a random value for it, uniform in [low, high)."""
    value = rng.uniform(low, high, size=shape)
    return tf.placeholder(tf.float64, shape if static else None, name=name), value


def away_from_zero(rng, shape, low=0.2, high=1.0):
    """Values with |v| in [low, high) and random signs."""
    return rng.uniform(low, high, size=shape) * rng.choice([-1.0, 1.0], size=shape)


def distinct(rng, shape, spread=1.0):
    """Values with no ties (for Max, Min, Maximum): a shuffled, spaced range."""
    n = int(np.prod(shape))
    return (rng.permutation(n).astype(np.float64) / max(n, 1) * spread).reshape(shape) - 0.5
