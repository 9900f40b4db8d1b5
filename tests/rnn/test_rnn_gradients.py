"""dynamic_rnn and bidirectional_dynamic_rnn gradients against central differences (float64:
weights take the inputs' dtype, as TF's layers do)."""

import numpy as np

import flowloom as tf


def _max_error(build):
    tf.reset_default_graph()
    rng = np.random.default_rng(0)
    xv = rng.uniform(-1, 1, size=(3, 4, 2))
    x = tf.placeholder(tf.float64, [3, 4, 2])
    y = build(x)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        errors = [tf.test.compute_gradient_error(x, [3, 4, 2], y, y.shape.as_list(),
                                                 x_init_value=xv)]
        for v in tf.trainable_variables():
            errors.append(tf.test.compute_gradient_error(
                v, v.shape.as_list(), y, y.shape.as_list(), extra_feed_dict={x: xv}))
    return max(errors)


def test_multi_layer_lstm_gru_with_lengths():
    def build(x):
        cell = tf.nn.rnn_cell.MultiRNNCell([
            tf.nn.rnn_cell.LSTMCell(3, use_peepholes=True, num_proj=2),
            tf.nn.rnn_cell.GRUCell(2)])
        out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=[4, 1, 3], dtype=tf.float64)
        assert out.dtype == tf.float64
        return tf.concat([tf.reshape(out, [3, 8]), state[0].c, state[1]], 1)

    assert _max_error(build) < 2e-5


def test_bidirectional_with_lengths():
    def build(x):
        (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(
            tf.nn.rnn_cell.BasicLSTMCell(2), tf.nn.rnn_cell.BasicRNNCell(2), x,
            sequence_length=[2, 4, 3], dtype=tf.float64)
        return tf.concat([fw, bw], 2)

    assert _max_error(build) < 2e-5
