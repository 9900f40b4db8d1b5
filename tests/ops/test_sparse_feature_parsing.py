"""SparseFeature in tf.parse_example / parse_single_example (VarLen index and value keys
merged by tf.sparse_merge), SparseReorder / tf.sparse.reorder, tf.sparse_merge."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.proto import example_pb2, feature_pb2


def _example(ix, val):
    return example_pb2.Example(features=feature_pb2.Features(feature={
        "ix": feature_pb2.Feature(int64_list=feature_pb2.Int64List(value=ix)),
        "val": feature_pb2.Feature(float_list=feature_pb2.FloatList(value=val)),
    })).SerializeToString()


def test_parse_example_sparse_feature():
    serialized = [_example([3, 0], [0.5, 1.5]), _example([], []), _example([1], [2.5])]
    features = {"sp": tf.SparseFeature("ix", "val", tf.float32, 5)}
    with tf.Graph().as_default(), tf.Session() as sess:
        out = sess.run(tf.parse_example(serialized, features))
        assert sorted(out) == ["sp"]
        assert out["sp"].indices.tolist() == [[0, 0], [0, 3], [2, 1]]
        assert out["sp"].values.tolist() == [1.5, 0.5, 2.5]
        assert out["sp"].dense_shape.tolist() == [3, 5]
        single = sess.run(tf.parse_single_example(serialized[0], features))
        assert single["sp"].indices.tolist() == [[0], [3]]
        assert single["sp"].dense_shape.tolist() == [5]


def test_sparse_feature_type_conflict():
    features = {"a": tf.VarLenFeature(tf.float32), "sp": tf.SparseFeature("a", "v", tf.float32, 3)}
    with tf.Graph().as_default(), pytest.raises(ValueError, match="Conflicting type"):
        tf.parse_example([_example([1], [1.0])], features)


def test_sparse_reorder_and_merge():
    with tf.Graph().as_default(), tf.Session() as sess:
        st = tf.SparseTensor([[2, 1], [0, 1], [1, 0], [0, 0]], [1.0, 2.0, 3.0, 4.0], [3, 2])
        r = sess.run(tf.sparse.reorder(st))
        assert r.indices.tolist() == [[0, 0], [0, 1], [1, 0], [2, 1]]
        assert r.values.tolist() == [4.0, 2.0, 3.0, 1.0]
        ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([2, 0, 1], tf.int64), [2, 2])
        vals = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [0.5, 0.1, 0.3], [2, 2])
        m = sess.run(tf.sparse_merge(ids, vals, vocab_size=3))
        assert m.indices.tolist() == [[0, 0], [0, 2], [1, 1]]
        np.testing.assert_allclose(m.values, [0.1, 0.5, 0.3])
        assert m.dense_shape.tolist() == [2, 3]
        with pytest.raises(ValueError, match="equal lengths"):
            tf.sparse_merge([ids, ids], vals, vocab_size=[3])
