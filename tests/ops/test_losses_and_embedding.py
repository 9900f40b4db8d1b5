"""tf.losses collections and reductions; embedding_lookup's sparse gradient; training a
small conv net end to end."""

import numpy as np
import pytest

import flowloom as tf


def test_losses_go_to_collections():
    a = tf.losses.mean_squared_error([1.0, 2.0], [1.5, 2.0])
    b = tf.losses.absolute_difference([1.0], [3.0], loss_collection=None)
    tf.losses.add_loss(tf.constant(4.0))
    reg = tf.constant(0.5)
    tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, reg)
    assert tf.losses.get_losses()[0] is a and b not in tf.losses.get_losses()
    assert tf.losses.get_regularization_losses() == [reg]
    total = tf.losses.get_total_loss()
    no_reg = tf.losses.get_total_loss(add_regularization_losses=False, name="plain")
    with tf.Session() as sess:
        assert sess.run(total) == pytest.approx(0.125 + 4.0 + 0.5)
        assert sess.run(no_reg) == pytest.approx(4.125)
        assert sess.run(tf.losses.get_regularization_loss()) == pytest.approx(0.5)
    assert total.name == "total_loss:0"


def test_regularization_loss_without_losses_is_zero():
    with tf.Session() as sess:
        assert sess.run(tf.losses.get_regularization_loss()) == 0.0


def test_reduction_validate():
    assert tf.losses.Reduction.SUM_OVER_NONZERO_WEIGHTS == \
        tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS
    with pytest.raises(ValueError):
        tf.losses.mean_squared_error([1.0], [2.0], reduction="mean")
    with pytest.raises(ValueError):
        tf.losses.mean_squared_error(None, [2.0])
    with pytest.raises(ValueError):
        tf.losses.mean_squared_error([[1.0, 2.0]], [[1.0], [2.0]], weights=[[1.0, 2.0, 3.0]])


def test_embedding_gradient_is_indexed_slices():
    table = tf.Variable(np.arange(12, dtype=np.float32).reshape(6, 2))
    rows = tf.nn.embedding_lookup(table, [[1, 4], [1, 0]])
    (grad,) = tf.gradients(tf.reduce_sum(rows * 2.0), [table])
    assert isinstance(grad, tf.IndexedSlices)
    step = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(rows))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        g = sess.run(grad)
        np.testing.assert_array_equal(np.sort(g.indices), [0, 1, 1, 4])
        sess.run(step)
        t = sess.run(table)
    np.testing.assert_allclose(t[1], [1.0, 2.0])  # id 1 looked up twice: -2 * 0.5
    np.testing.assert_allclose(t[4], [7.5, 8.5])
    np.testing.assert_allclose(t[2], [4.0, 5.0])


def test_small_conv_net_learns():
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((32, 8, 8, 1)).astype(np.float32)
    ys = (xs[:, :4].sum(axis=(1, 2, 3)) > xs[:, 4:].sum(axis=(1, 2, 3))).astype(np.int32)
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    y = tf.placeholder(tf.int32, [None])
    w = tf.Variable(tf.truncated_normal([3, 3, 1, 4], stddev=0.3, seed=1))
    h = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")), [1, 2, 2, 1],
                       [1, 2, 2, 1], "SAME")
    h = tf.nn.lrn(h, 2, alpha=0.001, beta=0.75)
    logits = tf.matmul(tf.reshape(h, [-1, 64]),
                       tf.Variable(tf.truncated_normal([64, 2], stddev=0.1, seed=2)))
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {x: xs, y: ys})
        for _ in range(40):
            sess.run(train, {x: xs, y: ys})
        last = sess.run(loss, {x: xs, y: ys})
    assert last < first * 0.7
