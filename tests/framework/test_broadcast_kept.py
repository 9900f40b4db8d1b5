"""Broadcast shapes are kept per pair of dims (a model broadcasts few distinct pairs):
the same answers as computing them, and the same errors every time."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import common_shapes
from flowloom.framework.tensor_shape import TensorShape


@pytest.mark.parametrize("a, b", [([None, 4], [4]), ([3, 1], [1, 5]), ([], [2, 2]),
                                  ([None], [None]), ([1, None], [3, 1]), ([2, 3], [2, 3]),
                                  ([None, 1], [None, 7]), ([0, 1], [1, 4])])
def test_broadcast_shapes_kept_per_pair_are_the_computed_ones(a, b):
    want = np.broadcast_shapes(*[tuple(1 if d is None else d for d in s) for s in (a, b)])
    for _ in range(3):  # computed, then kept
        got = common_shapes.broadcast(TensorShape(a), TensorShape(b))
        assert got._dims == common_shapes._broadcast_dims(tuple(a), tuple(b))._dims
        assert len(got._dims) == len(want)
        assert all(g is None or g == w for g, w in zip(got._dims, want))


def test_broadcast_errors_are_raised_every_time():
    for _ in range(3):
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
            common_shapes.broadcast(TensorShape([2, 3]), TensorShape([4]))
    assert ((2, 3), (4,)) not in common_shapes._broadcasts
    with tf.Graph().as_default():
        for _ in range(2):
            with pytest.raises(ValueError, match="Dimensions must be equal"):
                tf.placeholder(tf.float32, [2, 3]) + tf.placeholder(tf.float32, [4])
