"""tf.nn.raw_rnn and tf.nn.static_state_saving_rnn.

Found by TF 1.15's rnn_cell_test (RawRNNTest, *StateSaver* tests), which failed on
NotImplementedError before.
"""

import numpy as np

import flowloom as tf


def _raw_rnn_outputs(cell, inputs, lengths):
    max_time = inputs.shape[0].value
    inputs_ta = tf.TensorArray(dtype=tf.float32, size=max_time).unstack(inputs)

    def loop_fn(time, cell_output, cell_state, loop_state):
        emit = cell_output
        state = cell.zero_state(2, tf.float32) if cell_output is None else cell_state
        finished = time >= lengths
        next_input = tf.cond(tf.reduce_all(finished),
                             lambda: tf.zeros([2, 3], dtype=tf.float32),
                             lambda: inputs_ta.read(time))
        return finished, next_input, state, emit, None
    return tf.nn.raw_rnn(cell, loop_fn)


def test_raw_rnn_matches_dynamic_rnn():
    np.random.seed(0)
    x = np.random.randn(4, 2, 3).astype(np.float32)  # [time, batch, depth]
    lengths = tf.constant([4, 2])
    with tf.variable_scope("rnn") as scope:
        cell = tf.nn.rnn_cell.BasicRNNCell(5)
        emit_ta, state, loop_state = _raw_rnn_outputs(cell, tf.constant(x), lengths)
        scope.reuse_variables()
        outputs, dstate = tf.nn.dynamic_rnn(cell, tf.constant(x), sequence_length=lengths,
                                            time_major=True, dtype=tf.float32, scope=scope)
    assert loop_state is None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, gs, want, ws = sess.run([emit_ta.stack(), state, outputs, dstate])
    np.testing.assert_allclose(got, want, rtol=1e-5)  # finished entries emit zeros
    np.testing.assert_allclose(gs, ws, rtol=1e-5)


class _Saver:
    def __init__(self, batch, size):
        self.saved = {}
        self._init = tf.zeros([batch, size])

    def state(self, name):
        return self._init

    def save_state(self, name, value):
        self.saved[name] = value
        return tf.identity(value)


def test_static_state_saving_rnn_reads_and_saves_the_state():
    cell = tf.nn.rnn_cell.LSTMCell(3, state_is_tuple=True)
    saver = _Saver(2, 3)
    inputs = [tf.ones([2, 4]) for _ in range(3)]
    outputs, state = tf.nn.static_state_saving_rnn(cell, inputs, saver, ("c", "h"))
    assert sorted(saver.saved) == ["c", "h"]
    # The last output waits for the saves.
    assert outputs[-1].op.control_inputs
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        last, h = sess.run([outputs[-1], state.h])
    np.testing.assert_allclose(last, h)


def test_get_initial_state_checks_batch_size_and_dtype_against_inputs():
    import pytest

    cell = tf.nn.rnn_cell.BasicRNNCell(5)
    inputs = tf.placeholder(tf.float32, shape=(None, 4, 1))
    with pytest.raises(ValueError, match="batch_size and dtype cannot be None"):
        cell.get_initial_state(None, None, None)
    for batch in (50, tf.constant(50)):
        with pytest.raises(ValueError, match="batch size from input tensor is different"):
            cell.get_initial_state(inputs=inputs, batch_size=batch)
    with pytest.raises(ValueError, match="dtype from input tensor is different"):
        cell.get_initial_state(inputs=inputs, dtype=tf.int16)
    assert cell.get_initial_state(inputs=inputs).shape.as_list() == [None, 5]
