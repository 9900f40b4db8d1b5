"""What tf.data.experimental's dataset ops compute at run time (see dataset_values.py):
scan, group_by_window, directed interleave (sample/choose_from_datasets), take_while,
unique and the random dataset; and `cardinality`, the number of elements a dataset value
yields where it is known without iterating."""

import numpy as np

from flowloom.framework import errors
from flowloom.ops.data import dataset_values as dv

INFINITE = -1
UNKNOWN = -2


class ScanValue(dv.DatasetValue):
    """`scan`: `fn(state..., element...)` gives the new state's components, then the output
    element's; the state carries from element to element."""

    def __init__(self, input_value, initial_state, fn, op):
        self.input, self.initial, self.fn, self.op = input_value, initial_state, fn, op

    def iterate(self):
        state = tuple(self.initial)
        n = len(state)
        for elem in self.input.iterate():
            out = self.fn(state + tuple(elem))
            new = out[:n]
            for k, (old, value) in enumerate(zip(state, new)):
                if old.dtype != value.dtype:
                    raise errors.InvalidArgumentError(
                        None, self.op, f"State tensor {k} has type {value.dtype.name}, expected "
                        f"{old.dtype.name}.")
            state = tuple(new)
            yield tuple(out[n:])


class GroupByWindowValue(dv.DatasetValue):
    """`group_by_window`: elements gathered per key (`key_fn`) until a group holds
    `size_fn(key)` of them (asked when the group starts), then `reduce_fn(key, window)`'s
    elements; at the end of the input the groups left are reduced in ascending key order."""

    def __init__(self, input_value, key_fn, reduce_fn, size_fn, op):
        self.input, self.key_fn, self.reduce_fn, self.size_fn = input_value, key_fn, \
            reduce_fn, size_fn
        self.op = op

    def _key(self, elem):
        key = np.asarray(self.key_fn(elem)[0])
        if key.shape != () or key.dtype != np.int64:
            raise errors.InvalidArgumentError(
                None, self.op, "`key_func` must return a scalar int64.")
        return int(key)

    def _reduce(self, key, window):
        out = self.reduce_fn((np.array(key, np.int64), dv.ListValue(window)))[0]
        return dv._as_dataset(out, self.op).iterate()

    def iterate(self):
        groups, sizes = {}, {}
        for elem in self.input.iterate():
            key = self._key(elem)
            group = groups.get(key)
            if group is None:
                size = int(np.asarray(self.size_fn((np.array(key, np.int64),))[0]))
                if size <= 0:
                    raise errors.InvalidArgumentError(
                        None, self.op, f"Window size must be greater than zero, but got {size}.")
                sizes[key] = size
                group = groups[key] = []
            group.append(elem)
            if len(group) == sizes[key]:
                del groups[key]
                yield from self._reduce(key, group)
        for key in sorted(groups):
            yield from self._reduce(key, groups.pop(key))


class DirectedInterleaveValue(dv.DatasetValue):
    """The elements of `inputs[i]` for each `i` the selector yields; a selected input that is
    exhausted is skipped, and the dataset ends with the selector or with the last input."""

    def __init__(self, selector, inputs, op):
        self.selector, self.inputs, self.op = selector, inputs, op

    def iterate(self):
        active = [d.iterate() for d in self.inputs]
        left = len(active)
        for (index,) in self.selector.iterate():
            i = int(index)
            if i < 0 or i >= len(active):
                raise errors.InvalidArgumentError(
                    None, self.op, f"Selector index out of range: {i} >= {len(active)}")
            source = active[i]
            if source is None:
                continue
            elem = next(source, None)
            if elem is not None:
                yield elem
                continue
            active[i] = None
            left -= 1
            if not left:
                return


class TakeWhileValue(dv.DatasetValue):
    def __init__(self, input_value, predicate, op):
        self.input, self.predicate, self.op = input_value, predicate, op

    def iterate(self):
        for elem in self.input.iterate():
            keep = np.asarray(self.predicate(elem)[0])
            if keep.shape != () or keep.dtype != np.bool_:
                raise errors.InvalidArgumentError(
                    None, self.op, "`predicate` must returns a scalar boolean tensor.")
            if not keep:
                return
            yield elem


class UniqueValue(dv.DatasetValue):
    """Each element the first time it comes (compared by dtype, shape and value)."""

    def __init__(self, input_value):
        self.input = input_value

    def iterate(self):
        seen = set()
        for elem in self.input.iterate():
            (value,) = elem
            if value.dtype == object:
                key = (value.shape, tuple(v if isinstance(v, bytes) else str(v).encode()
                                          for v in value.reshape(-1)))
            else:
                key = (value.dtype.str, value.shape, value.tobytes())
            if key not in seen:
                if len(seen) >= dv.MAX_BUFFERED_ELEMENTS:
                    raise errors.ResourceExhaustedError(
                        None, None, f"unique() has seen over {dv.MAX_BUFFERED_ELEMENTS} "
                        "distinct elements (flowloom's limit)")
                seen.add(key)
                yield elem


class RandomValue(dv.DatasetValue):
    """TF's RandomDataset: the uint32 words of Philox(seed, seed2) one at a time, as int64
    scalars, forever. Seeds (0, 0) are replaced by fresh random ones when the dataset is made
    (as TF makes it), so every pass over this value yields the same words."""

    _CHUNK = 256

    def __init__(self, seed, seed2):
        if seed == 0 and seed2 == 0:
            fresh = np.random.SeedSequence().generate_state(2, np.uint64)
            seed, seed2 = int(fresh[0]), int(fresh[1])
        self.seeds = (seed, seed2)

    def random_state(self):
        return list(self.seeds)

    def set_random_state(self, state):
        self.seeds = tuple(state)

    def iterate(self):
        from flowloom.ops.data.shuffle_random import SingleSamplePhilox

        rng = SingleSamplePhilox(*self.seeds)
        while True:
            for word in rng.take(self._CHUNK):
                yield (np.array(word, np.int64),)


def _finite_product(n, k):
    return n * k if n >= 0 else n


def cardinality(value):
    """The number of elements `value` yields: a count, INFINITE or UNKNOWN."""
    from flowloom.ops.data.map_value import MapValue

    if isinstance(value, dv.TensorsValue):
        return 1
    if isinstance(value, dv.SlicesValue):
        return value.size
    if isinstance(value, dv.RangeValue):
        return len(range(*value.args))
    if isinstance(value, RandomValue):
        return INFINITE
    if isinstance(value, (MapValue, dv.PrefetchValue, dv.CacheValue, ScanValue)):
        return cardinality(value.input)
    if isinstance(value, dv.ZipValue):
        counts = [cardinality(d) for d in value.inputs]
        finite = [c for c in counts if c >= 0]
        if finite:
            return min(finite)
        return UNKNOWN if UNKNOWN in counts else INFINITE
    if isinstance(value, dv.ConcatenateValue):
        a, b = cardinality(value.first), cardinality(value.second)
        if INFINITE in (a, b):
            return INFINITE
        return UNKNOWN if UNKNOWN in (a, b) else a + b
    if isinstance(value, dv.BatchValue):
        n = cardinality(value.input)
        if n < 0:
            return n
        return n // value.size if value.drop else -(-n // value.size)
    if isinstance(value, dv.ShuffleValue):
        return _repeated(cardinality(value.input), value.count)
    if isinstance(value, dv.RepeatValue):
        return _repeated(cardinality(value.input), value.count)
    if isinstance(value, dv.TakeValue):
        n = cardinality(value.input)  # as TF 1.15 counts it: take(-1) is min(n, -1)
        if n == UNKNOWN:
            return UNKNOWN
        return value.count if n == INFINITE else min(n, value.count)
    if isinstance(value, dv.SkipValue):
        n = cardinality(value.input)
        if n < 0:
            return n
        return 0 if value.count < 0 else max(0, n - value.count)
    return UNKNOWN


def _repeated(n, count):
    if count == 1:
        return n
    if n == 0:
        return 0
    if count < 0:
        return INFINITE if n != UNKNOWN else UNKNOWN
    return _finite_product(n, count)


class GroupByReducerValue(dv.DatasetValue):
    """`group_by_reducer`: per key (`key_fn`), a state from `init_fn(key)` folded over the
    key's elements with `reduce_fn(state..., element...)`; at the end of the input,
    `finalize_fn(state...)` of each key, in ascending key order (as TF 1.15)."""

    def __init__(self, input_value, key_fn, init_fn, reduce_fn, finalize_fn, op):
        self.input, self.key_fn, self.init_fn = input_value, key_fn, init_fn
        self.reduce_fn, self.finalize_fn, self.op = reduce_fn, finalize_fn, op

    def iterate(self):
        states = {}
        for elem in self.input.iterate():
            key = np.asarray(self.key_fn(elem)[0])
            if key.shape != () or key.dtype != np.int64:
                raise errors.InvalidArgumentError(
                    None, self.op, "`key_func` must return a scalar int64.")
            key = int(key)
            state = states.get(key)
            if state is None:
                state = tuple(self.init_fn((np.array(key, np.int64),)))
            states[key] = tuple(self.reduce_fn(state + tuple(elem)))
        for key in sorted(states):
            yield tuple(self.finalize_fn(states.pop(key)))
