"""Gradient builders for the sorted, unsorted and sparse segment reductions."""

import numpy as np

import flowloom as tf
from tests.gradient_cases import distinct, ph


def _min_max(fn):
    def build(rng):
        x, _ = ph(rng, (5, 2))
        return [(x, distinct(rng, (5, 2)))], fn(x, tf.constant([0, 0, 2, 2, 3]))
    return build


def _unsorted(fn, values=None):
    def build(rng):
        x, xv = ph(rng, (5, 2))
        xv = distinct(rng, (5, 2)) if values is None else values(rng)
        ids = tf.constant(np.array([0, 2, -1, 2, 1], dtype=np.int32))
        return [(x, xv)], fn(x, ids, 4)
    return build


def _sparse(fn, with_num=False):
    def build(rng):
        x, xv = ph(rng, (4, 3))
        kwargs = {"num_segments": 4} if with_num else {}
        return [(x, xv)], fn(x, tf.constant([3, 0, 3, 1, 2]), tf.constant([0, 0, 1, 1, 2]),
                             **kwargs)
    return build


CASES = {
    "SegmentMin": _min_max(tf.segment_min),
    "SegmentMax": _min_max(tf.segment_max),
    "UnsortedSegmentMin": _unsorted(tf.unsorted_segment_min),
    "UnsortedSegmentMax": _unsorted(tf.unsorted_segment_max),
    # values away from zero (the gradient divides the product by each element)
    "UnsortedSegmentProd": _unsorted(tf.unsorted_segment_prod,
                                     lambda rng: rng.uniform(0.5, 1.5, size=(5, 2))),
    "SparseSegmentSum": _sparse(tf.sparse_segment_sum),
    "SparseSegmentMean": _sparse(tf.sparse_segment_mean),
    "SparseSegmentSqrtN": _sparse(tf.sparse_segment_sqrt_n),
    "SparseSegmentSumWithNumSegments": _sparse(tf.sparse_segment_sum, True),
    "SparseSegmentMeanWithNumSegments": _sparse(tf.sparse_segment_mean, True),
    "SparseSegmentSqrtNWithNumSegments": _sparse(tf.sparse_segment_sqrt_n, True),
}
