"""SparseTensors through tf.train.batch / batch_join / shuffle_batch (the SparseTensorsMap
ops), tf.dynamic_partition and shape/size/rank of sparse inputs: the programs of
tests/data/sparse_batch_programs.py build TF 1.15's graph (op names, types, inputs) and
observe its values and error classes (tests/data/sparse_batch_tf.json, made by
tests/data/record_sparse_batch.py)."""

import json
import os
import sys
import types

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.array import sparse_map_ops

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
sys.path.insert(0, DATA)
import sparse_batch_programs  # noqa: E402

with open(os.path.join(DATA, "sparse_batch_tf.json")) as f:
    EXPECTED = json.load(f)

SPARSE_MAP = types.SimpleNamespace(
    add_sparse_to_tensors_map=sparse_map_ops.add_sparse_to_tensors_map,
    add_many_sparse_to_tensors_map=sparse_map_ops.add_many_sparse_to_tensors_map,
    take_many_sparse_from_tensors_map=sparse_map_ops.take_many_sparse_from_tensors_map)


@pytest.mark.parametrize("prog", sparse_batch_programs.PROGRAMS, ids=lambda p: p.__name__)
def test_program_matches_tf(prog):
    got = json.loads(json.dumps(prog(tf, SPARSE_MAP)))
    assert got == EXPECTED[prog.__name__]


def test_batch_of_sparse_threads_keep_rows_together():
    # Two enqueuing threads: each dequeued batch holds whole examples (no mixed rows).
    with tf.Graph().as_default(), tf.Session() as sess:
        counter = tf.Variable(tf.constant(0, tf.int64)).count_up_to(40)
        sp = tf.SparseTensor(indices=[[0], [1]], values=tf.stack([counter, -counter]),
                             dense_shape=[2])
        dense, batched = tf.train.batch([counter, sp], batch_size=4, num_threads=2)
        sess.run(tf.global_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        for _ in range(10):
            d, s = sess.run([dense, batched])
            np.testing.assert_array_equal(s.values.reshape(4, 2), np.stack([d, -d], axis=1))
        coord.request_stop()
        coord.join(threads)


def test_take_many_rank_mismatch_is_invalid_argument():
    with tf.Graph().as_default(), tf.Session() as sess:
        a = sparse_map_ops.add_sparse_to_tensors_map(
            tf.SparseTensor([[0]], [1.0], [2]), shared_name="m")
        b = sparse_map_ops.add_sparse_to_tensors_map(
            tf.SparseTensor([[0, 0]], [1.0], [2, 2]), shared_name="m")
        take = sparse_map_ops.take_many_sparse_from_tensors_map(a.op, tf.stack([a, b]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Inconsistent rank"):
            sess.run(take)


def test_training_input_module_maps_to_batching_helpers():
    from flowloom.compat import module_map
    from flowloom.data import input as inp

    kind, (sources, _) = module_map.lookup("tensorflow.python.training.input")
    assert kind == "view" and sources[0] == "flowloom.data.input"
    assert inp._as_tensor_list([1, 2]) == [1, 2]  # a list passes through (TF's helper)
    assert inp._as_tensor_list({"b": 2, "a": 1, 3: 0}) == [0, 1, 2]
