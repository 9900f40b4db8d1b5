"""`tf.contrib.data`: TF 1.15's contrib names for the tf.data.experimental transformations
flowloom has (the same objects as in `tf.data.experimental`) and the contrib-only
`sloppy_interleave`, `batch_and_drop_remainder` and `padded_batch_and_drop_remainder`.
TF 1.15's other tf.contrib.data names raise NotImplementedError naming them."""

from flowloom.data.experimental import (AUTOTUNE, CheckpointInputPipelineHook,  # noqa: F401
                                        Counter, CsvDataset,
                                        Optional, RandomDataset, Reducer, SqlDataset,
                                        TFRecordWriter, get_next_as_optional,
                                        bucket_by_sequence_length,
                                        choose_from_datasets, enumerate_dataset,
                                        get_single_element, group_by_reducer,
                                        group_by_window, ignore_errors,
                                        make_saveable_from_iterator,
                                        map_and_batch, parallel_interleave,
                                        sample_from_datasets, scan, shuffle_and_repeat,
                                        unbatch, unique)

_NOT_IMPLEMENTED = frozenset("""
LMDBDataset
assert_element_shape copy_to_device dense_to_sparse_batch
make_batched_features_dataset make_csv_dataset
parse_example_dataset prefetch_to_device read_batch_features reduce_dataset rejection_resample
sliding_window_batch
""".split())


def sloppy_interleave(map_func, cycle_length, block_length=1):
    """`parallel_interleave(map_func, cycle_length, block_length, sloppy=True)`, as TF 1.15."""
    return parallel_interleave(map_func, cycle_length, block_length, sloppy=True)


def batch_and_drop_remainder(batch_size):
    """`dataset.apply(batch_and_drop_remainder(n))`: `batch(n, drop_remainder=True)`."""
    return lambda dataset: dataset.batch(batch_size, drop_remainder=True)


def padded_batch_and_drop_remainder(batch_size, padded_shapes, padding_values=None):
    """`padded_batch(n, padded_shapes, padding_values, drop_remainder=True)`."""
    return lambda dataset: dataset.padded_batch(batch_size, padded_shapes, padding_values,
                                                drop_remainder=True)


def __getattr__(name):
    if name in _NOT_IMPLEMENTED:
        raise NotImplementedError(f"tf.contrib.data.{name} is not implemented in flowloom")
    raise AttributeError(f"module 'tf.contrib.data' has no attribute '{name}'")
