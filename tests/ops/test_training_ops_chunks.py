"""ApplyGradientDescent's update in chunks (no temporary of the variable's size): the values
of one whole-array update."""

import numpy as np


def test_gradient_descent_in_chunks_matches_one_update():
    from flowloom.ops.state import training_ops

    rng = np.random.RandomState(2)
    var = rng.randn(300, 700).astype(np.float32)
    delta = rng.randn(300, 700).astype(np.float32)
    alpha = np.float32(0.37)
    want = var - alpha * delta
    training_ops._gradient_descent(var, alpha, delta)
    np.testing.assert_array_equal(var, want)
