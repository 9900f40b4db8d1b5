"""Gradient-check builders for the RNN ops (ops/array/sequence_ops.py)."""

import numpy as np

import flowloom as tf
from tests.gradient_cases import ph


def _reverse_sequence(rng):
    x, xv = ph(rng, (3, 4, 2))
    lengths = rng.integers(0, 5, size=3).astype(np.int64)
    return [(x, xv)], tf.reverse_sequence(x, lengths, seq_axis=1, batch_axis=0) * \
        tf.constant(np.arange(24.0).reshape(3, 4, 2))


def _reverse_sequence_time_major(rng):
    x, xv = ph(rng, (4, 3, 2))
    lengths = rng.integers(0, 5, size=3).astype(np.int32)
    return [(x, xv)], tf.reverse_sequence(x, lengths, seq_axis=0, batch_axis=1) * \
        tf.constant(np.arange(24.0).reshape(4, 3, 2))


CASES = {"ReverseSequence": [_reverse_sequence, _reverse_sequence_time_major]}
