"""`tf.data.experimental`: the transformations TF1 code reaches for most."""

from flowloom.data.dataset import AUTOTUNE, Dataset  # noqa: F401


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """`dataset.apply(map_and_batch(f, n))`: `map(f)` then `batch(n)`."""
    calls = num_parallel_calls if num_parallel_calls is not None else \
        (batch_size * num_parallel_batches if num_parallel_batches else None)

    def apply(dataset):
        return dataset.map(map_func, num_parallel_calls=calls).batch(batch_size,
                                                                     drop_remainder)
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
    """`dataset.apply(parallel_interleave(f, n))`: `interleave(f, n, block_length)`."""
    def apply(dataset):
        return dataset.interleave(map_func, cycle_length, block_length)
    return apply


def unbatch():
    """`dataset.apply(unbatch())`."""
    return lambda dataset: dataset.unbatch()


def ignore_errors():
    raise NotImplementedError("tf.data.experimental.ignore_errors is not in flowloom yet")
