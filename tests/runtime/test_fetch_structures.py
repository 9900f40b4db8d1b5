"""Plain lists and tuples of fetches are structures before any registered fetch type (as
TF's fetch mapper): the same results, of the same types, with composites inside them."""

import collections

import numpy as np

import flowloom as tf


def test_nested_lists_tuples_namedtuples_and_sparse_tensors():
    a = tf.constant(1.0)
    b = tf.constant([2, 3])
    sp = tf.SparseTensor([[0, 1]], [5.0], [2, 2])
    pair = collections.namedtuple("Pair", "x y")
    with tf.Session() as sess:
        for _ in range(3):  # interpreted, then compiled
            got = sess.run([a, (b, [a]), pair(a, b), [sp], {"k": (a,)}, ()])
            assert type(got) is list and type(got[1]) is tuple and type(got[1][1]) is list
            assert got[0] == 1.0 and got[1][1] == [1.0]
            np.testing.assert_array_equal(got[1][0], [2, 3])
            assert type(got[2]).__name__ == "Pair" and got[2].x == 1.0
            assert isinstance(got[3][0], tf.SparseTensorValue)
            np.testing.assert_array_equal(got[3][0].values, [5.0])
            assert got[4] == {"k": (1.0,)} and got[5] == ()
