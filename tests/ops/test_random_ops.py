"""Dropout, RandomShuffle and Multinomial: statistics and TF's seed rules (their values are
compared with TF's in test_random_vs_tf.py; names and shapes in test_ops_vs_tf.py)."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.random import philox


def test_dropout_keeps_scaled_fraction():
    x = tf.ones([400, 100])
    with tf.Session() as sess:
        a, b, c = sess.run([tf.nn.dropout(x, rate=0.25, seed=1),
                            tf.nn.dropout(x, keep_prob=0.5, seed=2),
                            tf.nn.dropout(x, rate=0.5, noise_shape=[400, 1], seed=3)])
    assert set(np.unique(a)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((a > 0).mean() - 0.75) < 0.02
    assert abs((b > 0).mean() - 0.5) < 0.02
    # noise_shape [400, 1]: whole rows are kept or dropped.
    assert np.all((c == c[:, :1]))


def test_dropout_rate_zero_is_identity_and_bad_rates_raise():
    x = tf.constant([1.0, 2.0])
    assert tf.nn.dropout(x, rate=0.0) is x
    with pytest.raises(ValueError):
        tf.nn.dropout(x, rate=1.0)
    with pytest.raises(ValueError):
        tf.nn.dropout(x, keep_prob=0.0)
    with pytest.raises(ValueError):
        tf.nn.dropout(tf.constant([1, 2]), rate=0.5)


def test_dropout_tensor_rate():
    rate = tf.placeholder(tf.float32, [])
    y = tf.nn.dropout(tf.ones([1000]), rate=rate, seed=5)
    with tf.Session() as sess:
        v = sess.run(y, {rate: 0.5})
    assert set(np.unique(v)) <= {0.0, 2.0}


def _run_twice(build):
    out = []
    for _ in range(2):
        tf.reset_default_graph()
        tf.set_random_seed(11)
        t = build()
        with tf.Session() as sess:
            out.append(sess.run(t))
    return out


def test_random_shuffle_is_a_seeded_permutation():
    a, b = _run_twice(lambda: tf.random_shuffle(tf.constant(np.arange(50).reshape(25, 2))))
    np.testing.assert_array_equal(a, b)
    assert sorted(a[:, 0].tolist()) == list(range(0, 50, 2))
    np.testing.assert_array_equal(a[:, 1], a[:, 0] + 1)  # rows move whole


def test_multinomial_frequencies_and_seed():
    logits = np.log(np.array([[0.1, 0.6, 0.3], [0.5, 0.0 + 1e-9, 0.5]]))
    a, b = _run_twice(lambda: tf.multinomial(tf.constant(logits, tf.float32), 4000))
    np.testing.assert_array_equal(a, b)
    assert a.dtype == np.int64 and a.shape == (2, 4000)
    np.testing.assert_allclose(np.bincount(a[0], minlength=3) / 4000, [0.1, 0.6, 0.3],
                               atol=0.03)
    assert (a[1] == 1).sum() == 0


def test_multinomial_shape_function():
    n = tf.placeholder(tf.int32, [])
    assert tf.multinomial(tf.zeros([3, 4]), n).shape.as_list() == [3, None]
    with pytest.raises(ValueError):
        tf.multinomial(tf.zeros([4]), 2)


def test_truncated_normal_drawn_in_slices_gives_the_same_values(monkeypatch):

    key, counter = (123, 456), 789 << 64
    for dtype in (np.float32, np.float64):
        whole = philox.truncated_normal(key, counter, 1001, dtype)
        monkeypatch.setattr(philox, "TRUNCATED_GROUPS_PER_SLICE", 7)
        sliced = philox.truncated_normal(key, counter, 1001, dtype)
        monkeypatch.undo()
        np.testing.assert_array_equal(whole, sliced)
        assert whole.dtype == dtype and np.all(np.abs(whole) < 2.0)


def test_small_philox_draws_equal_the_vectorised_rounds():
    """Draws of a few blocks run on Python integers; they give the NumPy rounds' words,
    across the 64- and 128-bit counter wraps."""

    rng = np.random.RandomState(1)
    for t in range(200):
        key = tuple(int(x) for x in rng.randint(0, 2**32, 2, dtype=np.uint64))
        counter = [(int(rng.randint(0, 2**62)) << 66) | int(rng.randint(0, 2**62)),
                   (1 << 128) - 1 - t % 4, (1 << 64) - 1 - t % 3][t % 3]
        offsets = np.arange(rng.randint(0, philox.SMALL_BLOCKS + 1), dtype=np.uint64) \
            + np.uint64(rng.randint(0, 1000))
        small = philox._blocks_small(key, counter, offsets)
        lo64 = np.uint64(counter & 0xFFFFFFFFFFFFFFFF) + offsets
        hi64 = np.uint64(counter >> 64) + (lo64 < offsets).astype(np.uint64)
        with np.errstate(over="ignore"):
            big = philox.philox_rounds(key, lo64, hi64)
        assert small.shape == big.shape and (small == big).all(), t


def test_small_uniform_draws_on_python_numbers_equal_the_numpy_ones(monkeypatch):
    # uniform float32 and uniform_int int32 of up to 4 * SMALL_BLOCKS values take words
    # from Python integers; the same values as the array path, across counter wraps
    rng = np.random.RandomState(11)
    cases = []
    for t in range(60):
        key = tuple(int(x) for x in rng.randint(0, 2**32, 2, dtype=np.uint64))
        counter = [(int(rng.randint(0, 2**62)) << 66) | int(rng.randint(0, 2**62)),
                   (1 << 128) - 1 - t % 4, (1 << 64) - 1 - t % 3][t % 3]
        size = int(rng.randint(1, 4 * philox.SMALL_BLOCKS + 1))
        lo, hi = sorted(int(v) for v in rng.randint(-2**31, 2**31, 2))
        cases.append((key, counter, size, lo, hi + 1))
    got = [(philox.uniform(k, c, n, np.float32), philox.uniform_int(k, c, n, lo, hi, np.int32))
           for k, c, n, lo, hi in cases]
    monkeypatch.setattr(philox, "SMALL_BLOCKS", 0)
    for (k, c, n, lo, hi), (u, i) in zip(cases, got):
        want_u = philox.uniform(k, c, n, np.float32)
        want_i = philox.uniform_int(k, c, n, lo, hi, np.int32)
        assert u.dtype == want_u.dtype and u.view(np.int32).tolist() == \
            want_u.view(np.int32).tolist()
        assert i.dtype == want_i.dtype and i.tolist() == want_i.tolist()
