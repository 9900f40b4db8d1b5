"""What a dataset op computes at run time: a `DatasetValue`, a recipe for iterating elements.

Each dataset op's kernel returns one of these (the value of its `variant` output); an
iterator op calls `iterate()` on it and pulls elements, each a tuple of NumPy arrays (one
per flattened component). Functions (`map`, `filter`, `flat_map`, ...) arrive as
`TracedFunction`s, graphs traced once and run per element.
"""

import collections
import os
import queue
import threading

import numpy as np

from flowloom.framework import errors

# Memory bounds for what a dataset buffers (elements, not bytes: a shuffle buffer larger than
# this is refused before it fills).
MAX_BUFFERED_ELEMENTS = 1 << 24


class DatasetValue:
    """A dataset at run time. Subclasses implement `iterate()`, a generator of elements."""

    def iterate(self):
        raise NotImplementedError

    def blocks(self):
        """The elements as runs of consecutive ones (tuples of arrays whose 0th dimension
        counts elements, possibly views of the dataset's own arrays), or None where this
        dataset has only `iterate()`. A batch of blocks is one slice and copy per component
        instead of one array per element and component."""
        return None


class TensorsValue(DatasetValue):
    def __init__(self, components):
        self.components = components

    def iterate(self):
        yield tuple(self.components)


class SlicesValue(DatasetValue):
    def __init__(self, components, op):
        sizes = {c.shape[0] if c.ndim else None for c in components}
        if None in sizes or len(sizes) != 1:
            raise errors.InvalidArgumentError(
                None, op, "All components must have the same size in the 0th dimension: "
                + ", ".join(str(c.shape) for c in components))
        self.components = components
        self.size = sizes.pop()

    def iterate(self):
        comps = self.components
        for i in range(self.size):
            # `c[i, ...]` is an array even for strings (a 1-D object array's c[i] is bytes).
            yield tuple(c[i, ...] for c in comps)

    def blocks(self):
        return iter([tuple(self.components)] if self.size else [])


class RangeValue(DatasetValue):
    def __init__(self, start, stop, step, dtype, op):
        if step == 0:
            raise errors.InvalidArgumentError(None, op, "step must be a non-zero integer.")
        self.args = (start, stop, step)
        self.dtype = dtype

    def iterate(self):
        dtype = self.dtype
        for v in range(*self.args):
            yield (np.array(v, dtype),)


class ZipValue(DatasetValue):
    def __init__(self, inputs):
        self.inputs = inputs

    def iterate(self):
        for parts in zip(*(d.iterate() for d in self.inputs)):
            yield tuple(c for p in parts for c in p)


class ConcatenateValue(DatasetValue):
    def __init__(self, first, second):
        self.first, self.second = first, second

    def iterate(self):
        yield from self.first.iterate()
        yield from self.second.iterate()


class FilterValue(DatasetValue):
    def __init__(self, input_value, predicate, op):
        self.input, self.predicate, self.op = input_value, predicate, op

    def iterate(self):
        for elem in self.input.iterate():
            keep = self.predicate(elem)[0]
            if np.ndim(keep) != 0 or np.asarray(keep).dtype != np.bool_:
                raise errors.InvalidArgumentError(
                    None, self.op, "Filter predicate `f` must return a scalar bool.")
            if keep:
                yield elem


class FlatMapValue(DatasetValue):
    def __init__(self, input_value, fn, op):
        self.input, self.fn, self.op = input_value, fn, op

    def iterate(self):
        for elem in self.input.iterate():
            yield from _as_dataset(self.fn(elem)[0], self.op).iterate()


def _as_dataset(value, op):
    if not isinstance(value, DatasetValue):
        raise errors.InvalidArgumentError(None, op, "The function must return a dataset.")
    return value


class InterleaveValue(DatasetValue):
    def __init__(self, input_value, fn, cycle_length, block_length, op):
        if cycle_length <= 0 and cycle_length != -1:
            raise errors.InvalidArgumentError(None, op, "cycle_length must be greater than 0.")
        if block_length <= 0:
            raise errors.InvalidArgumentError(None, op, "block_length must be greater than 0.")
        self.input, self.fn, self.op = input_value, fn, op
        self.cycle = cycle_length if cycle_length > 0 else max(2, os.cpu_count() or 2)
        self.block = block_length

    def iterate(self):
        source = self.input.iterate()
        slots = []
        exhausted = False
        k = 0
        while True:
            while not exhausted and len(slots) < self.cycle:
                try:
                    elem = next(source)
                except StopIteration:
                    exhausted = True
                    break
                slots.append(_as_dataset(self.fn(elem)[0], self.op).iterate())
            if not slots:
                return
            k %= len(slots)
            it = slots[k]
            for _ in range(self.block):
                try:
                    yield next(it)
                except StopIteration:
                    slots.pop(k)
                    break
            else:
                k += 1


class BatchValue(DatasetValue):
    def __init__(self, input_value, batch_size, drop_remainder, op, padded_shapes=None,
                 padding_values=None):
        if batch_size <= 0:
            raise errors.InvalidArgumentError(None, op, "Batch size must be greater than zero.")
        self.input, self.size, self.drop, self.op = input_value, batch_size, drop_remainder, op
        self.padded_shapes = padded_shapes
        self.padding_values = padding_values

    def iterate(self):
        blocks = self.input.blocks() if self.padded_shapes is None else None
        if blocks is not None:
            yield from self._batches_of(blocks)
            return
        batch = []
        for elem in self.input.iterate():
            batch.append(elem)
            if len(batch) == self.size:
                yield self._stack(batch)
                batch = []
        if batch and not self.drop:
            yield self._stack(batch)

    def _batches_of(self, blocks):
        # The batches of stacking the elements one by one (same order, values and dtypes; a
        # slices dataset's elements all have one shape), cut from runs of them.
        parts, have = [], 0
        for block in blocks:
            n, start = block[0].shape[0], 0
            while start < n:
                take = min(self.size - have, n - start)
                parts.append(tuple(c[start:start + take] for c in block))
                start += take
                have += take
                if have == self.size:
                    yield _joined(parts)
                    parts, have = [], 0
        if parts and not self.drop:
            yield _joined(parts)

    def _stack(self, batch):
        out = []
        for i, parts in enumerate(zip(*batch)):
            if self.padded_shapes is None:
                shapes = {p.shape for p in parts}
                if len(shapes) != 1:
                    raise errors.InvalidArgumentError(
                        None, self.op, "Cannot batch tensors with different shapes in component "
                        f"{i}. First element had shape {list(parts[0].shape)} and element "
                        f"{[p.shape for p in parts].index(next(s for s in shapes if s != parts[0].shape))} "  # noqa: E501
                        f"had shape {list(next(s for s in shapes if s != parts[0].shape))}.")
                out.append(np.stack(parts))
            else:
                out.append(self._pad(i, parts))
        return tuple(out)

    def _pad(self, i, parts):
        want = self.padded_shapes[i]
        rank = parts[0].ndim
        if len(want) != rank or any(p.ndim != rank for p in parts):
            raise errors.InvalidArgumentError(
                None, self.op, f"Number of dimensions of padded shape ({len(want)}) must match "
                f"the rank of component {i} ({rank}).")
        dims = []
        for d in range(rank):
            biggest = max(p.shape[d] for p in parts)
            if want[d] >= 0:
                if biggest > want[d]:
                    raise errors.InvalidArgumentError(
                        None, self.op, f"Attempted to pad to a smaller size than the input "
                        f"element: dimension {d} is {biggest}, padded shape {want[d]}.")
                dims.append(want[d])
            else:
                dims.append(biggest)
        fill = self.padding_values[i]
        out = np.full([len(parts)] + dims, fill, dtype=parts[0].dtype)
        for k, p in enumerate(parts):
            out[(k,) + tuple(slice(0, s) for s in p.shape)] = p
        return out


def _joined(parts):
    if len(parts) == 1:
        return tuple(np.array(c, copy=True, order="C") for c in parts[0])
    return tuple(np.ascontiguousarray(np.concatenate(cs)) for cs in zip(*parts))


class UnbatchValue(DatasetValue):
    def __init__(self, input_value, op):
        self.input, self.op = input_value, op

    def iterate(self):
        for elem in self.input.iterate():
            sizes = {c.shape[0] if c.ndim else None for c in elem}
            if None in sizes or len(sizes) != 1:
                raise errors.InvalidArgumentError(
                    None, self.op, "Input element must have a non-scalar value in each "
                    "component, all with the same 0th dimension.")
            for i in range(sizes.pop()):
                yield tuple(c[i] for c in elem)


class ShuffleValue(DatasetValue):
    """TF's shuffle: a buffer of `buffer_size` elements, each output drawn from it with TF's
    Philox stream, so a seeded pipeline yields TF's order.

    As in TF, the buffer is a ring holding one slice of elements per pass over the input
    (`count` passes for shuffle_and_repeat, 1 otherwise); an output is drawn only from the
    oldest slice (`next() % its size`), swapped with the slice's first element, and the
    slice's start moves on. With `reshuffle` each pass over this dataset (a repeat after it)
    draws its stream's seeds from a generator seeded (seed, seed2); without, every pass uses
    (seed, seed2) itself (the same order). Seeds (0, 0) mean fresh random seeds, drawn when
    the dataset is made (as TF draws them), so that an iterator's saved state
    (ops/data/iterator_state.py) can name them.
    """

    _MAX_PASSES_IN_BUFFER = 3  # TF's kMaxEpochsInBuffer

    def __init__(self, input_value, buffer_size, seed, seed2, reshuffle, op, count=1):
        if buffer_size <= 0:
            raise errors.InvalidArgumentError(None, op, "buffer_size must be greater than zero.")
        if buffer_size > MAX_BUFFERED_ELEMENTS:
            raise errors.ResourceExhaustedError(
                None, op, f"shuffle buffer_size {buffer_size} is over flowloom's limit of "
                f"{MAX_BUFFERED_ELEMENTS} elements")
        self.input, self.size, self.count = input_value, buffer_size, count
        if seed == 0 and seed2 == 0:
            fresh = np.random.SeedSequence().generate_state(2, np.uint64)
            seed, seed2 = int(fresh[0]), int(fresh[1])
        self.seeds = (seed, seed2)
        self.reshuffle = reshuffle
        self._seed_generator = None
        self.seed_draws = 0  # words the reshuffle seed generator has handed out
        self._lock = threading.Lock()

    def _generator(self):
        from flowloom.ops.data.shuffle_random import SingleSamplePhilox

        if not self.reshuffle:
            return SingleSamplePhilox(*self.seeds)
        with self._lock:  # each pass: seeds drawn from one generator seeded (seed, seed2)
            if self._seed_generator is None:
                self._seed_generator = SingleSamplePhilox(*self.seeds)
                self._seed_generator.take(self.seed_draws)
            self.seed_draws += 2
            return SingleSamplePhilox(self._seed_generator(), self._seed_generator())

    def random_state(self):
        """(seed, seed2, seed draws): what a saved iterator records of this shuffle."""
        with self._lock:
            return [self.seeds[0], self.seeds[1], self.seed_draws]

    def set_random_state(self, state):
        seed, seed2, draws = state
        with self._lock:
            self.seeds, self.seed_draws, self._seed_generator = (seed, seed2), draws, None

    def fused_with_repeat(self, count):
        """What TF 1.15's default tf.data optimization makes of this shuffle directly followed
        by `repeat(count)` (shuffle_and_repeat_fusion, for reshuffled shuffles; TF 2.x does
        not fuse them): one buffer and one stream seeded (seed, seed2) across the passes.
        None when it does not apply."""
        if not self.reshuffle or self.count != 1:
            return None
        fused = ShuffleValue.__new__(ShuffleValue)
        fused.__dict__.update(self.__dict__, count=count, reshuffle=False,
                              _seed_generator=None, seed_draws=0, _lock=threading.Lock())
        return fused

    def iterate(self):
        rng = self._generator()
        size, count = self.size, self.count
        buf = [None] * size
        slices = collections.deque([[0, 0]])  # [start, end) of each pass's elements
        held = 0
        passes = 0
        source = self.input.iterate()
        first_call = True
        while True:
            while source is not None and held < size:
                elem = None
                while count == -1 or passes < count:
                    elem = next(source, None)
                    if elem is not None:
                        first_call = False
                        break
                    if first_call and count == -1:
                        return  # an empty input repeated forever is empty
                    passes += 1
                    end = slices[-1][1]
                    slices.append([end, end])
                    source = self.input.iterate()
                if elem is None:
                    source = None
                    break
                last = slices[-1]
                buf[last[1] % size] = elem
                last[1] += 1
                held += 1
                if len(slices) > self._MAX_PASSES_IN_BUFFER:
                    break
            if not held:
                return
            while slices[0][0] == slices[0][1]:
                slices.popleft()
            first = slices[0]
            index = (first[0] + rng() % (first[1] - first[0])) % size
            out = buf[index]
            start = first[0] % size
            buf[index], buf[start] = buf[start], None
            first[0] += 1
            held -= 1
            yield out


class RepeatValue(DatasetValue):
    def __init__(self, input_value, count):
        self.input, self.count = input_value, count

    def iterate(self):
        k = 0
        while self.count < 0 or k < self.count:
            produced = False
            for elem in self.input.iterate():
                produced = True
                yield elem
            k += 1
            if not produced:
                return  # an empty dataset repeated forever is empty

    def blocks(self):
        if self.input.blocks() is None:
            return None
        return self._repeated_blocks()

    def _repeated_blocks(self):
        k = 0
        while self.count < 0 or k < self.count:
            produced = False
            for block in self.input.blocks():
                produced = produced or block[0].shape[0] > 0
                yield block
            k += 1
            if not produced:
                return


class TakeValue(DatasetValue):
    def __init__(self, input_value, count):
        self.input, self.count = input_value, count

    def iterate(self):
        if self.count < 0:
            yield from self.input.iterate()
            return
        for k, elem in enumerate(self.input.iterate()):
            if k >= self.count:
                return
            yield elem


class SkipValue(DatasetValue):
    def __init__(self, input_value, count):
        self.input, self.count = input_value, count

    def iterate(self):
        for k, elem in enumerate(self.input.iterate()):
            if self.count < 0 or k >= self.count:
                if self.count >= 0:
                    yield elem


class CacheValue(DatasetValue):
    """An in-memory cache: the first full pass is recorded and later passes replay it."""

    def __init__(self, input_value):
        self.input = input_value
        self.cached = None
        self.lock = threading.Lock()

    def iterate(self):
        if self.cached is not None:
            yield from self.cached
            return
        seen = []
        for elem in self.input.iterate():
            seen.append(elem)
            yield elem
        with self.lock:
            self.cached = seen


class PrefetchValue(DatasetValue):
    """Elements computed ahead on a background thread, up to `buffer_size` of them."""

    def __init__(self, input_value, buffer_size):
        self.input = input_value
        self.size = max(1, int(buffer_size)) if buffer_size != -1 else 2

    def iterate(self):
        q = queue.Queue(self.size)
        stop = threading.Event()
        done = object()

        def produce():
            try:
                for elem in self.input.iterate():
                    while not stop.is_set():
                        try:
                            q.put((elem, None), timeout=0.1)
                            break
                        except queue.Full:
                            continue
                    if stop.is_set():
                        return
                q.put((done, None))
            except BaseException as e:  # handed to the consumer, raised there
                q.put((done, e))

        from flowloom.runtime.handoff import quick_handoff

        quick_handoff()
        worker = threading.Thread(target=produce, daemon=True, name="flowloom-prefetch")
        worker.start()
        try:
            while True:
                elem, error = q.get()
                if elem is done:
                    if error is not None:
                        raise error
                    return
                yield elem
        finally:
            stop.set()


class WindowValue(DatasetValue):
    def __init__(self, input_value, size, shift, stride, drop_remainder, num_components, op):
        for name, v in (("size", size), ("shift", shift), ("stride", stride)):
            if v <= 0:
                raise errors.InvalidArgumentError(None, op, f"Window {name} must be positive.")
        self.input, self.size, self.shift, self.stride = input_value, size, shift, stride
        self.drop, self.n = drop_remainder, num_components

    def iterate(self):
        span = (self.size - 1) * self.stride + 1
        buf = []
        for elem in self.input.iterate():
            buf.append(elem)
            if len(buf) == span:
                yield self._window(buf)
                buf = buf[self.shift:]
        while buf and not self.drop:
            yield self._window(buf)
            buf = buf[self.shift:]

    def _window(self, buf):
        picked = buf[::self.stride][:self.size]
        return tuple(ListValue([(e[i],) for e in picked]) for i in range(self.n))


class ListValue(DatasetValue):
    def __init__(self, elements):
        self.elements = elements

    def iterate(self):
        yield from self.elements


class GeneratorValue(DatasetValue):
    def __init__(self, make_generator, convert):
        self.make_generator = make_generator
        self.convert = convert

    def iterate(self):
        for value in self.make_generator():
            yield self.convert(value)


def _filenames(filenames, op):
    names = np.asarray(filenames).reshape(-1)
    return [n.decode("utf-8") if isinstance(n, bytes) else str(n) for n in names]


class TFRecordValue(DatasetValue):
    def __init__(self, filenames, compression, op):
        self.files = _filenames(filenames, op)
        self.compression = compression

    def iterate(self):
        from flowloom.io.tfrecord import read_records

        for path in self.files:
            for _, data in read_records(path, self.compression or None):
                yield (np.array(data, dtype=object),)


class TextLineValue(DatasetValue):
    def __init__(self, filenames, compression, op):
        self.files = _filenames(filenames, op)
        self.compression = compression
        self.op = op

    def iterate(self):
        for path in self.files:
            with _open(path, self.compression, self.op) as f:
                for line in f:
                    # TF's InputBuffer::ReadLine keeps no '\r' of a line, wherever it is
                    line = line[:-1] if line.endswith(b"\n") else line
                    yield (np.array(line.replace(b"\r", b""), dtype=object),)


class FixedLengthValue(DatasetValue):
    def __init__(self, filenames, header, record, footer, compression, op):
        if record <= 0:
            raise errors.InvalidArgumentError(None, op, "record_bytes must be greater than 0.")
        self.files = _filenames(filenames, op)
        self.header, self.record, self.footer = header, record, footer
        self.compression = compression
        self.op = op

    def iterate(self):
        for path in self.files:
            with _open(path, self.compression, self.op) as f:
                data = f.read()  # bounded by the file's own size
            body = data[self.header:len(data) - self.footer if self.footer else len(data)]
            # As TF 1.15: a body that is not whole records refuses an uncompressed file
            # before its records, a compressed one after them (its size is known at the end).
            ragged = len(data) >= self.header + self.footer and len(body) % self.record
            if ragged and not self.compression:
                raise errors.InvalidArgumentError(None, self.op, self._ragged(path, len(body)))
            for k in range(len(body) // self.record):
                yield (np.array(body[k * self.record:(k + 1) * self.record], dtype=object),)
            if ragged:
                raise errors.DataLossError(None, self.op, self._ragged(path, len(body)))

    def _ragged(self, path, body):
        return (f"Excluding the header ({self.header} bytes) and footer ({self.footer} bytes), "
                f"input file \"{path}\" has body length {body} bytes, which is not an exact "
                f"multiple of the record length ({self.record} bytes).")


def _open(path, compression, op):
    import gzip
    import io
    import zlib

    from flowloom.io import file_system

    raw = file_system.open_file(path, "rb")  # through the registry: TF's error classes
    if compression == "GZIP":
        stream = gzip.GzipFile(fileobj=raw)
        stream.myfileobj = raw  # closed with the stream, as gzip.open's own file
        return stream
    if compression == "ZLIB":
        with raw:
            data = raw.read()
        d = zlib.decompressobj()
        out = d.decompress(data, 1 << 31)
        if d.unconsumed_tail:
            raise errors.ResourceExhaustedError(None, op, f"{path} inflates past 2 GiB")
        return io.BytesIO(out)
    return raw
