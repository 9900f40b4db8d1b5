"""`tf.data.experimental`: TF 1.15's names. Those flowloom does not have yet raise
NotImplementedError naming them (never a silent stand-in)."""

from flowloom.data.csv_dataset import CsvDataset  # noqa: F401
from flowloom.data.dataset import AUTOTUNE, Dataset  # noqa: F401

# Loaded on first use (importing tf.data stays cheap): name -> the module defining it.
_LAZY = {name: "flowloom.data." + module for module, names in {
    "optional": "Optional get_next_as_optional",
    "options": "DistributeOptions MapVectorizationOptions OptimizationOptions StatsOptions "
               "ThreadingOptions",
    "io_datasets": "SqlDataset TFRecordWriter",
    "iterator_saveable": "CheckpointInputPipelineHook make_saveable_from_iterator",
    "sampling": "RandomDataset choose_from_datasets sample_from_datasets",
    "transformations": "INFINITE_CARDINALITY UNKNOWN_CARDINALITY Counter Reducer "
                       "group_by_reducer get_structure to_variant from_variant "
                       "bucket_by_sequence_length cardinality enumerate_dataset "
                       "get_single_element group_by_window scan take_while unique",
}.items() for name in names.split()}

# TF 1.15's other tf.data.experimental names.
NOT_IMPLEMENTED = frozenset("""
DatasetStructure OptionalStructure RaggedTensorStructure
SparseTensorStructure StatsAggregator Structure
TensorArrayStructure TensorStructure bytes_produced_stats copy_to_device dense_to_sparse_batch
latency_stats
make_batched_features_dataset make_csv_dataset
parse_example_dataset prefetch_to_device
rejection_resample
""".split())


def __getattr__(name):
    module = _LAZY.get(name)
    if module is not None:
        import importlib

        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    if name in NOT_IMPLEMENTED:
        raise NotImplementedError(f"tf.data.experimental.{name} is not in flowloom yet")
    raise AttributeError(f"module 'tf.data.experimental' has no attribute '{name}'")


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """`dataset.apply(map_and_batch(f, n))`: `map(f)` then `batch(n)` as one
    MapAndBatchDataset op (TF 1.15's), `num_parallel_calls` (default: `batch_size` times
    `num_parallel_batches` or 1) maps at once."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("The `num_parallel_batches` and `num_parallel_calls` arguments are "
                         "mutually exclusive.")
    if num_parallel_calls is None:
        num_parallel_calls = batch_size if num_parallel_batches is None else \
            batch_size * num_parallel_batches

    def apply(dataset):
        from flowloom.data.dataset import _batched, _i64, _types
        from flowloom.framework import dtypes
        from flowloom.framework.ops import convert_to_tensor
        from flowloom.framework.tensor_util import constant_value

        fn = dataset._trace(map_func, "map_and_batch")
        size = _i64(batch_size, "batch_size")
        calls = _i64(num_parallel_calls, "num_parallel_calls")
        drop = convert_to_tensor(drop_remainder, dtype=dtypes.bool_, name="drop_remainder")
        static_drop = constant_value(drop)
        lead = constant_value(size) if static_drop is not None and bool(static_drop) else None
        spec = _batched(fn.output_spec, None if lead is None else int(lead))
        return dataset._apply("MapAndBatchDataset", (dataset._variant, fn.captured, size, calls,
                                                     drop), spec, f=fn.attr(),
                              Targuments=_types(fn), preserve_cardinality=True)
    return apply


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """`dataset.apply(shuffle_and_repeat(n, count, seed))`: following TF 1.15
    (FLOWLOOM_SEED_RULES=1), op ShuffleAndRepeatDataset, one shuffle buffer across `count`
    passes (None or -1: forever); following TF 2.x (the default), `shuffle` then `repeat`,
    as TF 2.x builds it. Either way TF's order for a seed."""
    def apply(dataset):
        from flowloom.data.dataset import _i64
        from flowloom.ops.random.random_ops import get_seed, seed_rules

        if seed_rules() != "1":
            return dataset.shuffle(buffer_size, seed=seed).repeat(count)

        size = _i64(buffer_size, "buffer_size")
        seed1, seed2 = get_seed(seed)
        if seed1 is None:
            seed1, seed2 = 0, 0
        return dataset._apply("ShuffleAndRepeatDataset", (
            dataset._variant, size, _i64(seed1, "seed"), _i64(seed2, "seed2"),
            _i64(-1 if count is None else count, "count")), dataset.element_spec)
    return apply


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """`dataset.apply(parallel_interleave(f, n))`: `interleave(f, n, block_length)` as one
    ParallelInterleaveDataset op (TF 1.15's); flowloom reads in the deterministic order
    (which `sloppy=True` allows as well)."""
    def apply(dataset):
        from flowloom.data.dataset import _i64, _inner, _types
        from flowloom.framework import dtypes
        from flowloom.framework.ops import convert_to_tensor

        fn = dataset._trace(map_func, "parallel_interleave")
        spec = _inner(fn, "parallel_interleave")
        buffer_output = 2 * block_length if buffer_output_elements is None else \
            buffer_output_elements
        prefetch_input = 2 * cycle_length if prefetch_input_elements is None else \
            prefetch_input_elements
        return dataset._apply("ParallelInterleaveDataset", (
            dataset._variant, fn.captured, _i64(cycle_length, "cycle_length"),
            _i64(block_length, "block_length"),
            convert_to_tensor(sloppy, dtype=dtypes.bool_, name="sloppy"),
            _i64(buffer_output, "buffer_output_elements"),
            _i64(prefetch_input, "prefetch_input_elements")), spec, f=fn.attr(),
            Targuments=_types(fn))
    return apply


def map_and_batch_with_legacy_function(map_func, batch_size, num_parallel_batches=None,
                                       drop_remainder=False, num_parallel_calls=None):
    """`map_and_batch` (TF 1.15 traces `map_func` the legacy way; flowloom traces every
    dataset function one way, with the same values)."""
    return map_and_batch(map_func, batch_size, num_parallel_batches, drop_remainder,
                         num_parallel_calls)


def unbatch():
    """`dataset.apply(unbatch())`."""
    return lambda dataset: dataset.unbatch()


def ignore_errors():
    raise NotImplementedError("tf.data.experimental.ignore_errors is not in flowloom yet")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
