"""tf.losses.cosine_distance / hinge_loss / mean_pairwise_squared_error and
convert_to_tensor(None) -> ValueError (found by TF 1.15's losses_test)."""

import numpy as np
import pytest

import flowloom as tf


def test_cosine_distance_and_hinge():
    labels = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    preds = np.array([[0.6, 0.8], [0.0, 1.0]], np.float32)
    with tf.Graph().as_default():
        cos = tf.losses.cosine_distance(labels, preds, axis=1)
        hinge = tf.losses.hinge_loss(tf.constant([[0.0, 1.0]]), tf.constant([[-0.5, 0.3]]))
        with pytest.raises(ValueError, match="You must specify 'axis'"):
            tf.losses.cosine_distance(labels, preds)
        with tf.Session() as sess:
            assert sess.run(cos) == pytest.approx((0.4 + 0.0) / 2)
            assert sess.run(hinge) == pytest.approx((0.5 + 0.7) / 2)
        assert cos in tf.losses.get_losses()


def test_mean_pairwise_squared_error_matches_definition():
    rng = np.random.RandomState(0)
    labels = rng.randn(3, 4).astype(np.float32)
    preds = rng.randn(3, 4).astype(np.float32)
    weights = np.array([1.0, 0.0, 2.0], np.float32)
    want = 0.0
    for b in range(3):
        d = preds[b] - labels[b]
        pairs = [(d[i] - d[j]) ** 2 for i in range(4) for j in range(4) if i != j]
        want += weights[b] * np.sum(pairs) / (4 * 3)
    with tf.Graph().as_default():
        loss = tf.losses.mean_pairwise_squared_error(labels, preds,
                                                     weights=weights.reshape(3, 1))
        zero = tf.losses.mean_pairwise_squared_error(labels, preds, weights=0.0)
        with tf.Session() as sess:
            assert sess.run(loss) == pytest.approx(want, rel=1e-5)
            assert sess.run(zero) == 0.0


def test_none_weights_raise_value_error():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="None values not supported"):
            tf.convert_to_tensor(None)
        with pytest.raises(ValueError):
            tf.losses.mean_squared_error([1.0], [1.0], weights=None)
