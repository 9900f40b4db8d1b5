"""LSTMCell's num_unit_shards / num_proj_shards: partitioned kernels (names, shapes and
outputs recorded from TF 1.15 with tf.constant_initializer(0.1))."""

import numpy as np

import flowloom as tf
from flowloom.partitioned_variables import PartitionedVariable


def _run_cell(**shards):
    with tf.Graph().as_default():
        x = tf.constant(np.arange(8, dtype=np.float32).reshape(2, 4) / 10)
        cell = tf.nn.rnn_cell.LSTMCell(3, num_proj=2, initializer=tf.constant_initializer(0.1),
                                       **shards)
        out, _ = cell(x, cell.zero_state(2, tf.float32))
        shapes = sorted((v.name, tuple(v.shape.as_list())) for v in tf.global_variables())
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            return shapes, s.run(out), cell


def test_sharded_kernels_are_partitioned_variables_as_tf_names_them():
    shapes, out, cell = _run_cell(num_unit_shards=2, num_proj_shards=2)
    assert shapes == [("lstm_cell/bias:0", (12,)), ("lstm_cell/kernel/part_0:0", (3, 12)),
                      ("lstm_cell/kernel/part_1:0", (3, 12)),
                      ("lstm_cell/projection/kernel/part_0:0", (2, 2)),
                      ("lstm_cell/projection/kernel/part_1:0", (1, 2))]
    np.testing.assert_allclose(out, [[0.004767, 0.004767], [0.019896, 0.019896]], atol=1e-6)
    assert isinstance(cell._kernel, PartitionedVariable)


def test_sharded_and_unsharded_cells_compute_the_same():
    _, sharded, _ = _run_cell(num_unit_shards=3, num_proj_shards=2)
    _, plain, _ = _run_cell()
    np.testing.assert_allclose(sharded, plain, rtol=1e-6)
