"""Lookup tables (tf.contrib.lookup / tf.lookup), Bucketize, SparseCross and the sparse
helpers feature columns build on. Expected ids were printed by TF 1.15 for the same calls."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import errors
from flowloom.ops.math.bucketize_ops import bucketize
from flowloom.ops.strings.farmhash import fingerprint64


def test_index_table_from_tensor_with_oov_buckets_matches_tf():
    table = tf.contrib.lookup.index_table_from_tensor(["a", "b", "c"], num_oov_buckets=3)
    ints = tf.contrib.lookup.index_table_from_tensor([10, 20], num_oov_buckets=2,
                                                     dtype=tf.int64)
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        got = sess.run([table.lookup(tf.constant(["a", "c", "zz", "qq"])),
                        ints.lookup(tf.constant([20, 5, 7], tf.int64)), table.size()])
    np.testing.assert_array_equal(got[0], [0, 2, 4, 3])
    np.testing.assert_array_equal(got[1], [1, 3, 2])
    assert got[2] == 6


def test_table_from_file_sparse_keys_and_reverse_table(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\nc\n")
    table = tf.contrib.lookup.index_table_from_file(str(vocab), vocab_size=2)
    reverse = tf.contrib.lookup.index_to_string_table_from_tensor(["x", "y"])
    keys = tf.SparseTensor([[0, 0], [1, 1]], ["b", "c"], [2, 2])
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        ids = sess.run(table.lookup(keys))
        names = sess.run(reverse.lookup(tf.constant([1, 7], tf.int64)))
    np.testing.assert_array_equal(ids.values, [1, -1])
    np.testing.assert_array_equal(ids.indices, [[0, 0], [1, 1]])
    assert list(names) == [b"y", b"UNK"]
    assert tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS)


def test_uninitialized_table_and_bad_file():
    table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1]), -1)
    missing = tf.contrib.lookup.index_table_from_file("/nonexistent/vocab.txt")
    with tf.Session() as sess:
        with pytest.raises(errors.FailedPreconditionError, match="not initialized"):
            sess.run(table.lookup(tf.constant(["a"])))
        with pytest.raises(errors.NotFoundError):
            sess.run(missing.initializer)


def test_table_key_dtype_mismatch_is_a_type_error():
    table = tf.contrib.lookup.index_table_from_tensor(["a"])
    with pytest.raises(TypeError, match="Keys must be dtype"):
        table.lookup(tf.constant([1], tf.int64))


def test_fingerprint64_known_values():
    # TF 1.15: tf.string_to_hash_bucket_fast(s, 2**62) for these strings.
    cases = {"": 1936946117179621455, "a": 3694432073954588131,
             "hello world": 1769834696496558107, "x" * 17: 2082709914559524773,
             "w" * 65: 3272011567211491968, "long" * 50: 2029281140744956403}
    for s, want in cases.items():
        assert fingerprint64(s) % 2**62 == want


def test_bucketize_boundaries():
    with tf.Session() as sess:
        got = sess.run(bucketize(tf.constant([-1., 0., 0.5, 1., 3.]), [0., 1., 2.]))
    np.testing.assert_array_equal(got, [0, 1, 1, 2, 3])
    with pytest.raises(ValueError, match="sorted"):
        bucketize(tf.constant([1.]), [2., 1.])


def test_sparse_cross_hashed_matches_tf():
    cross = tf.sparse.cross_hashed([tf.constant([["a", "b"], ["c", "d"]]),
                                    tf.constant([[1, 2], [3, 4]], dtype=tf.int64)],
                                   num_buckets=1000)
    with tf.Session() as sess:
        got = sess.run(cross)
    np.testing.assert_array_equal(got.values, [485, 987, 983, 357, 694, 322, 607, 441])
    np.testing.assert_array_equal(got.dense_shape, [2, 4])


def test_sparse_fill_empty_rows_reshape_retain():
    st = tf.SparseTensor([[0, 0], [2, 1], [2, 0]], [3, -1, 5], [4, 2])
    filled, empty = tf.sparse_fill_empty_rows(st, 7)
    flat = tf.sparse_reshape(st, [-1])
    kept = tf.sparse_retain(st, st.values >= 0)
    with tf.Session() as sess:
        f, e, r, k = sess.run([filled, empty, flat, kept])
    np.testing.assert_array_equal(f.indices, [[0, 0], [1, 0], [2, 1], [2, 0], [3, 0]])
    np.testing.assert_array_equal(f.values, [3, 7, -1, 5, 7])
    np.testing.assert_array_equal(e, [False, True, False, True])
    np.testing.assert_array_equal(r.indices, [[0], [5], [4]])
    np.testing.assert_array_equal(k.values, [3, 5])
    with pytest.raises(errors.InvalidArgumentError):
        with tf.Session() as sess:
            sess.run(tf.sparse_reshape(st, [3, -1]).indices)


def test_embedding_gradients_flow_through_feature_columns():
    fc = tf.feature_column
    col = fc.embedding_column(fc.categorical_column_with_vocabulary_list("w", ["a", "b"]), 2,
                              initializer=tf.ones_initializer())
    out = fc.input_layer({"w": tf.constant([["a", "b"], ["b", ""]])}, [col])
    (var,) = tf.trainable_variables()
    grad = tf.gradients(tf.reduce_sum(out), var)[0]
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        g = sess.run(tf.convert_to_tensor(grad))
    np.testing.assert_allclose(g, [[0.5, 0.5], [1.5, 1.5]])


def test_tile_keeps_the_dims_its_multiples_know():
    # As TF: canned-estimator class lists tiled over a dynamic batch keep their width.
    y = tf.placeholder(tf.float32, [None, 3])
    tiled = tf.tile(tf.constant([[1, 2]]), tf.stack([tf.shape(y)[0], 1]))
    assert tiled.shape.as_list() == [None, 2]
