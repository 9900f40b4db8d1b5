"""Transpose and Tile: TF 1.15's shape-function and kernel checks."""

import numpy as np
import pytest

import flowloom as tf


def test_transpose_checks():
    x = np.arange(30.).reshape([2, 3, 5])
    with pytest.raises(ValueError, match="rank 1 but is rank 2"):
        tf.transpose(x, [[0, 1], [2, 3]])
    with pytest.raises(ValueError, match="perm dim 3 is out of range of input rank 3"):
        tf.transpose(x, [0, 1, 3])
    p = tf.placeholder(tf.float32)
    assert tf.transpose(p, [1, 0, 2]).shape.as_list() == [None, None, None]
    assert tf.transpose(p, tf.placeholder(tf.int32, [4])).shape.ndims == 4
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"2 is missing from \{0,1,1\}"):
            sess.run(tf.transpose(x, tf.placeholder_with_default([0, 1, 1], [3])))


def test_tile_checks():
    a = tf.zeros([4, 1])
    with pytest.raises(ValueError):
        tf.tile(a, [1, 4, 2])
    with pytest.raises(ValueError, match="rank 1 but is rank 2"):
        tf.tile(a, [[2, 3], [3, 4]])
    m = tf.placeholder(tf.int32)
    with tf.Session() as sess:
        # TF 1.15's TileOp checks the rank of multiples first
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expected multiples to be 1-D"):
            sess.run(tf.tile(a, m), {m: [[2, 3], [3, 4]]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="vector of length 2"):
            sess.run(tf.tile(a, m), {m: [2, 3, 4]})
