"""tf.data.experimental's errors: TF's classes at build time and at run time."""

import numpy as np
import pytest

import flowloom as tf

X = tf.data.experimental
R = tf.data.Dataset.range


def _first(ds):
    with tf.Session() as sess:
        return sess.run(ds.make_one_shot_iterator().get_next())


def test_group_by_window_needs_one_window_size():
    with pytest.raises(ValueError, match="window_size"):
        X.group_by_window(lambda x: x, lambda k, w: w)
    with pytest.raises(ValueError, match="window_size"):
        X.group_by_window(lambda x: x, lambda k, w: w, 2, lambda k: k)


def test_group_by_window_function_results_are_checked():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="single tf.int64"):
            R(4).apply(X.group_by_window(lambda x: tf.fill([2], x), lambda k, w: w, 2))
        with pytest.raises(TypeError, match="must return a `Dataset`"):
            R(4).apply(X.group_by_window(lambda x: x, lambda k, w: k, 2))


def test_window_size_zero_fails_at_run_time():
    with tf.Graph().as_default():
        ds = R(4).apply(X.group_by_window(lambda x: x % 2, lambda k, w: w, window_size=0))
        with pytest.raises(tf.errors.InvalidArgumentError, match="greater than zero"):
            _first(ds)


def test_scan_checks_the_pair_and_the_state_dtype():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="pair"):
            R(3).apply(X.scan(np.int64(0), lambda s, x: s + x))
        with pytest.raises(TypeError, match="types for the new state"):
            R(3).apply(X.scan(np.int64(0), lambda s, x: (tf.cast(s, tf.float32), x)))


def test_take_while_unique_choose_check_their_inputs():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="scalar boolean"):
            R(3).apply(X.take_while(lambda x: x))
        with pytest.raises(TypeError, match="single `tf.int32`"):
            R(3).map(lambda x: tf.cast(x, tf.float32)).apply(X.unique())
        with pytest.raises(TypeError, match="scalar `tf.int64`"):
            X.choose_from_datasets([R(2)], R(2).map(lambda x: tf.cast(x, tf.int32)))
        with pytest.raises(TypeError, match="same type"):
            X.choose_from_datasets([R(2), R(2).map(lambda x: tf.cast(x, tf.int32))], R(2))


def test_choose_index_out_of_range():
    with tf.Graph().as_default():
        ds = X.choose_from_datasets([R(2), R(2)], tf.data.Dataset.from_tensors(np.int64(2)))
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of range: 2 >= 2"):
            _first(ds)


def test_sample_weights_are_checked():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="tf.float32"):
            X.sample_from_datasets([R(2), R(3)], [1, 2])
        with pytest.raises(TypeError, match="length"):
            X.sample_from_datasets([R(2), R(3)], [0.5, 0.25, 0.25])


def test_get_single_element_needs_exactly_one():
    with tf.Graph().as_default():
        empty = X.get_single_element(R(0))
        two = X.get_single_element(R(2))
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="was empty"):
                sess.run(empty)
            with pytest.raises(tf.errors.InvalidArgumentError, match="more than one"):
                sess.run(two)


def test_bucket_sizes_must_match_boundaries():
    with pytest.raises(ValueError, match="len\\(bucket_batch_sizes\\)"):
        X.bucket_by_sequence_length(lambda x: x, [2, 4], [1, 2])


def test_unseeded_random_dataset_repeats_its_words_per_pass():
    # the seeds are drawn once per dataset value (as TF draws them when it makes the dataset)
    with tf.Graph().as_default():
        ds = X.RandomDataset().take(3).repeat(2)
        it = ds.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            words = [int(sess.run(it)) for _ in range(6)]
    assert words[:3] == words[3:] and all(0 <= w < 2 ** 32 for w in words)


def test_options_types_and_merge_conflicts():
    o = tf.data.Options()
    with pytest.raises(TypeError, match="must be of type"):
        o.experimental_deterministic = 3
    with pytest.raises(AttributeError, match="Cannot set the property foo"):
        o.foo = 1
    a, b = tf.data.Options(), tf.data.Options()
    a.experimental_deterministic, b.experimental_deterministic = True, False
    with pytest.raises(ValueError, match="incompatible values"):
        a.merge(b)
    assert tf.data.Options() == tf.data.Options()
    o.experimental_optimization.map_fusion = True
    assert o.experimental_optimization._static_optimizations() == [
        "map_and_batch_fusion", "map_fusion", "noop_elimination", "shuffle_and_repeat_fusion"]


def test_names_flowloom_lacks_say_so():
    with pytest.raises(NotImplementedError, match="StatsAggregator"):
        X.StatsAggregator
    with pytest.raises(AttributeError):
        X.no_such_name


def test_sql_dataset_errors(tmp_path):
    import sqlite3

    path = str(tmp_path / "db.sqlite")
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE t (a TEXT)")
    connection.execute("INSERT INTO t VALUES ('x')")
    connection.commit()
    connection.close()
    cases = [("mysql", "SELECT a FROM t", (tf.string,), tf.errors.InvalidArgumentError,
              "not supported by SqlDataset"),
             ("sqlite", "SELECT a FROM t", (tf.string, tf.int64),
              tf.errors.InvalidArgumentError, "number of columns in query \\(1\\)"),
             ("sqlite", "SELECT a FROM t", (tf.float32,), tf.errors.InvalidArgumentError,
              "must be one of"),
             ("sqlite", "SELECT nosuch FROM t", (tf.string,), tf.errors.UnknownError,
              "no such column"),
             # the database is opened read-only
             ("sqlite", "INSERT INTO t VALUES ('y')", (tf.string,), tf.errors.UnknownError,
              "readonly")]
    for driver, query, types, error, message in cases:
        with tf.Graph().as_default():
            ds = X.SqlDataset(driver, path, query, types)
            with pytest.raises(error, match=message):
                _first(ds)


def test_tfrecord_writer_needs_scalar_strings():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="scalar `DT_STRING`"):
            X.TFRecordWriter("/tmp/x").write(R(3))
        with pytest.raises(TypeError, match="`tf.data.Dataset`"):
            X.TFRecordWriter("/tmp/x").write([b"a"])


def test_optional_without_a_value_fails_at_get_value():
    with tf.Graph().as_default():
        none = X.Optional.none_from_structure(X.Optional.from_value(np.int64(1)).value_structure)
        with tf.Session() as sess:
            assert not sess.run(none.has_value())
            with pytest.raises(tf.errors.InvalidArgumentError, match="does not have a value"):
                sess.run(none.get_value())


# dir(tf.data.experimental) of TF 1.15.5, public names
TF1_NAMES = """AUTOTUNE CheckpointInputPipelineHook Counter CsvDataset DatasetStructure
DistributeOptions INFINITE_CARDINALITY MapVectorizationOptions OptimizationOptions Optional
OptionalStructure RaggedTensorStructure RandomDataset Reducer SparseTensorStructure SqlDataset
StatsAggregator StatsOptions Structure TFRecordWriter TensorArrayStructure TensorStructure
ThreadingOptions UNKNOWN_CARDINALITY bucket_by_sequence_length bytes_produced_stats cardinality
choose_from_datasets copy_to_device dense_to_sparse_batch enumerate_dataset from_variant
get_next_as_optional get_single_element get_structure group_by_reducer group_by_window
ignore_errors latency_stats make_batched_features_dataset make_csv_dataset
make_saveable_from_iterator map_and_batch map_and_batch_with_legacy_function
parallel_interleave parse_example_dataset prefetch_to_device rejection_resample sample_from_datasets
scan shuffle_and_repeat take_while to_variant unbatch unique""".split()


def test_every_tf1_name_is_there_or_says_it_is_missing():
    missing = []
    for name in TF1_NAMES:
        try:
            getattr(X, name)
        except NotImplementedError as e:
            assert name in str(e)
            missing.append(name)
    assert sorted(missing) == sorted("""DatasetStructure OptionalStructure RaggedTensorStructure
        SparseTensorStructure StatsAggregator Structure TensorArrayStructure TensorStructure
        bytes_produced_stats copy_to_device dense_to_sparse_batch latency_stats
        make_batched_features_dataset make_csv_dataset parse_example_dataset prefetch_to_device
        rejection_resample""".split())


def test_structure_and_variant_round_trip():
    with tf.Graph().as_default():
        ds = R(3).map(lambda x: {"a": x, "b": (x, [x])})
        back = X.from_variant(X.to_variant(ds), X.get_structure(ds))
        it = back.make_one_shot_iterator()
        assert X.get_structure(it)["b"][1].shape.as_list() == [1]
        with tf.Session() as sess:
            value = sess.run(it.get_next())
        assert value["a"] == 0 and value["b"][1].tolist() == [0]
        with pytest.raises(TypeError, match="Dataset or Iterator"):
            X.get_structure(3)
