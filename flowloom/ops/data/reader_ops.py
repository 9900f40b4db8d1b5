"""Reader ops with TF's op types: TFRecordReaderV2, TextLineReaderV2, FixedLengthRecordReaderV2,
WholeFileReaderV2, IdentityReaderV2 and the Reader*V2 ops that use them.

A reader is a session resource that takes work units (file names) from a queue of strings
and produces (key, value) records from each in turn, as TF's ReaderBase does: a read dequeues
a new work unit only when the current one is exhausted (blocking on the queue, so it ends with
OutOfRangeError once the queue is closed and drained); it counts records produced and work
units completed. Keys are TF's: `file:offset` (TFRecord), `file:line` (text, 1-based,
header lines counted), `file:record` (fixed length, 0-based), the file name (whole file).
"""

import functools
import itertools
import os
import threading
import zlib

import numpy as np

from flowloom.framework import errors
from flowloom.framework import tensor_shape
from flowloom.framework.op_def import defop
from flowloom.io import file_system
from flowloom.io import tfrecord
from flowloom.ops.data import reader_state
from flowloom.runtime import blocking

_CHUNK = 1 << 16


def _open(path):
    # Owned by the reader until its work ends; errors are TF's ("PATH; No such file...").
    return file_system.open_file(path, "rb")


class _Work:
    """The records of one work unit: `next()` gives (key, value) or None at its end;
    `next_many(n, keys, values)` appends up to n records' keys and values (fewer only at its
    end) and returns how many, and the error that stopped it early, or None."""

    def next_many(self, n, keys, values):
        got = 0
        try:
            while got < n:
                record = self.next()
                if record is None:
                    break
                if keys is not None:
                    keys.append(record[0])
                values.append(record[1])
                got += 1
        except Exception as e:  # noqa: BLE001 - raised by the caller after counting them
            return got, e
        return got, None

    def close(self):
        pass

    # True: the unit is one record, finished as it is read (TF's readers that read a work
    # unit whole set at_end with their record)
    whole = False


class _TFRecordWork(_Work):
    def __init__(self, name, path, compression_type):
        self._prefix = (name + ":").encode("utf-8", "surrogateescape")
        # The keys of a read come from one formatting, split at the NULs that end each
        # (a name holding a NUL makes its keys one at a time).
        self._key_format = (None if b"\0" in self._prefix else
                            self._prefix.replace(b"%", b"%%") + b"%d\0")
        self._path, self._plain, self._records = path, None, None
        if compression_type:
            self._records = tfrecord.read_records(path, compression_type)

    def next(self):
        keys, values = [], []
        _, error = self.next_many(1, keys, values)
        if error is not None:
            raise error
        return (keys[0], values[0]) if keys else None

    def next_many(self, n, keys, values):
        prefix, offsets = self._prefix, []
        try:
            if self._records is None:
                if self._plain is None:  # opened at the first read, as the stream is
                    self._plain = tfrecord.open_plain(self._path)
                self._plain.take(n, offsets, values)
            else:
                for offset, data in itertools.islice(self._records, n):
                    offsets.append(offset)
                    values.append(data)
        except Exception as e:  # noqa: BLE001 - raised by the caller after counting them
            error = e
        else:
            error = None
        if keys is None:  # nobody reads them
            pass
        elif self._key_format is None or len(offsets) < 2:
            keys.extend([b"%s%d" % (prefix, o) for o in offsets])
        else:
            made = (self._key_format * len(offsets) % tuple(offsets)).split(b"\0")
            made.pop()  # after the last NUL
            keys.extend(made)
        return len(offsets), error

    def close(self):
        for source in (self._plain, self._records):
            if source is not None:
                source.close()


class _Stream:
    """A file's bytes, decompressed when `encoding` is ZLIB or GZIP, read in chunks."""

    def __init__(self, path, encoding=""):
        self._file = _open(path)
        self._inflater = None
        if encoding:
            wbits = {"ZLIB": zlib.MAX_WBITS, "GZIP": 16 + zlib.MAX_WBITS}.get(encoding)
            if wbits is None:
                raise errors.InvalidArgumentError(None, None,
                                                  f"Unsupported encoding: {encoding}")
            self._inflater = zlib.decompressobj(wbits)
        self._buffer = bytearray()
        self._eof = False

    def _fill(self):
        data = self._file.read(_CHUNK)
        if not data:
            self._eof = True
            return False
        if self._inflater is not None:
            data = self._inflater.decompress(data)
        self._buffer += data
        return True

    def read(self, n):
        """Up to `n` bytes (fewer only at the end)."""
        while len(self._buffer) < n and not self._eof:
            self._fill()
        out = bytes(self._buffer[:n])
        del self._buffer[:n]
        return out

    def readline(self):
        """One line without its '\\n' (and a '\\r' before it), or None at the end."""
        while True:
            i = self._buffer.find(b"\n")
            if i >= 0:
                line = bytes(self._buffer[:i])
                del self._buffer[:i + 1]
                return line[:-1] if line.endswith(b"\r") else line
            if self._eof or not self._fill():
                if not self._buffer:
                    return None
                line = bytes(self._buffer)
                self._buffer.clear()
                return line[:-1] if line.endswith(b"\r") else line

    def close(self):
        self._file.close()


class _TextLineWork(_Work):
    def __init__(self, name, path, skip_header_lines):
        self._name = name
        self._stream = _Stream(path)
        self._line = 0
        while self._line < skip_header_lines and self._stream.readline() is not None:
            self._line += 1

    def next(self):
        line = self._stream.readline()
        if line is None:
            return None
        self._line += 1
        return f"{self._name}:{self._line}".encode(), line

    def close(self):
        self._stream.close()


class _FixedLengthWork(_Work):
    """Records of `record_bytes`, starting every `hop_bytes` (0: back to back), between a
    header and a footer; a last partial record is dropped, as in TF."""

    def __init__(self, name, path, header_bytes, record_bytes, footer_bytes, hop_bytes,
                 encoding):
        self._name = name
        self._record_bytes = record_bytes
        self._footer_bytes = footer_bytes
        self._hop = hop_bytes if hop_bytes > 0 else record_bytes
        self._stream = _Stream(path, encoding)
        self._stream.read(header_bytes)
        self._window = bytearray()
        self._record = 0

    def next(self):
        # Keep `record_bytes + footer_bytes` bytes ahead, so the footer is never a record.
        need = max(self._record_bytes, self._hop) + self._footer_bytes
        if len(self._window) < need:
            self._window += self._stream.read(need - len(self._window))
        if len(self._window) < self._record_bytes + self._footer_bytes:
            return None
        value = bytes(self._window[:self._record_bytes])
        skip = self._hop
        if skip > len(self._window):
            self._stream.read(skip - len(self._window))
            self._window.clear()
        else:
            del self._window[:skip]
        key = f"{self._name}:{self._record}".encode()
        self._record += 1
        return key, value

    def close(self):
        self._stream.close()


class _WholeFileWork(_Work):
    whole = True

    def __init__(self, name, path):
        self._name = name
        self._path = path
        self._done = False

    def next(self):
        if self._done:
            return None
        with _open(self._path) as f:  # a failure stays this unit's: the next read retries
            data = f.read()
        self._done = True
        return self._name.encode(), data


class _IdentityWork(_Work):
    whole = True

    def __init__(self, name):
        self._name = name
        self._done = False

    def next(self):
        if self._done:
            return None
        self._done = True
        return self._name.encode(), self._name.encode()


class Reader:
    """A reader resource: its work units, counters and the current work (TF's ReaderBase)."""

    def __init__(self, name, make_work, describe=None):
        self.name = name
        self._make_work = make_work
        # "IdentityReader 'node'" for the readers whose state serializes (TF's name())
        self.describe = describe
        self._lock = threading.Lock()
        self._work = None
        self._work_name = b""
        self.work_started = 0
        self.work_finished = 0
        self.num_records_produced = 0

    def _next_work(self, queue):
        (unit,) = queue.dequeue(None)
        if np.ndim(unit) != 0:
            raise errors.InvalidArgumentError(
                None, None, "Expected to dequeue a one-element string tensor, but got shape "
                f"{list(np.shape(unit))}")
        unit = unit.item() if isinstance(unit, np.ndarray) else unit
        name = unit.decode("utf-8", "surrogateescape") if isinstance(unit, bytes) else str(unit)
        self._work = self._make_work(name, os.fsdecode(os.fsencode(name)))
        self._work_name = unit
        self.work_started += 1

    def _finish_work(self):
        self._work.close()
        self._work = None
        self.work_finished = self.work_started

    def read_up_to(self, queue, n, with_keys=True):
        """Up to `n` records of one work unit, as TF's ReaderReadUpTo: fewer when the unit
        ends after some were read (a unit that ends with none gives way to the next one;
        a closed, drained queue then raises OutOfRangeError). Keys are None unless
        `with_keys`. An error raises, and the records read before it are dropped."""
        keys, values, error = self.read_some(queue, n, with_keys)
        if error is not None:
            raise error
        return keys, values

    def read_some(self, queue, n, with_keys=True):
        """`read_up_to` that keeps the records read before an error: (keys, values, error),
        the records `n` single reads would give and what the next single read would raise
        (or None)."""
        keys, values = [] if with_keys else None, []
        with self._lock:
            try:
                while len(values) < n:
                    if self._work is None:
                        self._next_work(queue)
                    want = n - len(values)
                    got, error = self._work.next_many(want, keys, values)
                    self.num_records_produced += got
                    if error is not None:
                        return keys, values, error
                    if got < want or self._work.whole:
                        self._finish_work()
                        if values:
                            break
            except Exception as e:  # noqa: BLE001 - the next single read's error
                return keys, values, e
        return keys, values, None

    def reset(self):
        with self._lock:
            self._reset()

    def _reset(self):
        if self._work is not None:
            self._work.close()
        self._work = None
        self._work_name = b""
        self.work_started = self.work_finished = self.num_records_produced = 0

    def serialize_state(self):
        """The ReaderBaseState bytes (readers whose work is read whole, as TF's)."""
        if self.describe is None:
            raise errors.UnimplementedError(None, None, "Reader SerializeState")
        with self._lock:
            return reader_state.encode(self.work_started, self.work_finished,
                                       self.num_records_produced, self._work_name)

    def restore_state(self, data):
        """Restores serialize_state's counters; TF's errors (and a reset) for bad state."""
        if self.describe is None:
            raise errors.UnimplementedError(None, None, "Reader RestoreState")
        with self._lock:
            try:
                state = reader_state.decode(data)
            except reader_state.ParseError:
                self._reset()
                raise errors.InvalidArgumentError(
                    None, None, f"Could not parse state for {self.describe}: "
                    f"{reader_state.c_escape(data)}") from None
            started, finished = state["work_started"], state["work_finished"]
            problem = None
            if min(started, finished, state["num_records_produced"]) < 0:
                problem = "Unexpected negative value when restoring in"
            elif started > finished:
                problem = "Inconsistent work started vs. finished when restoring in"
            if problem is not None:
                self._reset()
                raise errors.InvalidArgumentError(
                    None, None, f"{problem} {self.describe}: {reader_state.debug_string(state)}")
            if self._work is not None:
                self._work.close()
            self._work = None
            self.work_started, self.work_finished = started, finished
            self.num_records_produced = state["num_records_produced"]
            self._work_name = state["current_work"]


def _reader_op(type_name, attrs):
    od = defop(type_name, outputs=["reader_handle: resource"],
               attrs=dict(attrs, container="", shared_name=""), stateful=True)
    od.shape(lambda op: [tensor_shape.TensorShape([])])
    od.no_gradient()
    return od


def _find_or_create(ctx, container, shared_name, make_work, kind=None):
    reader = ctx.state.get("reader")
    key = ("reader", container, shared_name or ctx.op._name)
    if reader is not None and ctx.resources.get(key) is reader:
        return reader
    reader = ctx.resources.get(key)
    if reader is None:
        describe = None if kind is None else f"{kind} '{ctx.op._name}'"
        reader = ctx.resources.setdefault(
            key, Reader(shared_name or ctx.op._name, make_work, describe))
    ctx.state["reader"] = reader
    return reader


TFRecordReaderV2 = _reader_op("TFRecordReaderV2", {"compression_type": ""})


@TFRecordReaderV2.kernel
def _(xp, *, compression_type, container, shared_name, ctx):
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise errors.InvalidArgumentError(None, None,
                                          f"Unsupported compression_type: {compression_type}")
    return _find_or_create(ctx, container, shared_name,
                           lambda name, path: _TFRecordWork(name, path, compression_type))


TextLineReaderV2 = _reader_op("TextLineReaderV2", {"skip_header_lines": 0})


@TextLineReaderV2.kernel
def _(xp, *, skip_header_lines, container, shared_name, ctx):
    return _find_or_create(ctx, container, shared_name,
                           lambda name, path: _TextLineWork(name, path, skip_header_lines))


FixedLengthRecordReaderV2 = _reader_op(
    "FixedLengthRecordReaderV2",
    {"header_bytes": 0, "record_bytes": None, "footer_bytes": 0, "hop_bytes": 0, "encoding": ""})


@FixedLengthRecordReaderV2.kernel
def _(xp, *, header_bytes, record_bytes, footer_bytes, hop_bytes, encoding, container,
      shared_name, ctx):
    for what, v in (("header_bytes", header_bytes), ("record_bytes", record_bytes),
                    ("footer_bytes", footer_bytes), ("hop_bytes", hop_bytes)):
        if v < 0:
            raise errors.InvalidArgumentError(None, None, f"{what} must be >= 0 not {v}")
    if record_bytes <= 0:
        raise errors.InvalidArgumentError(None, None,
                                          f"record_bytes must be > 0 not {record_bytes}")
    return _find_or_create(ctx, container, shared_name, lambda name, path: _FixedLengthWork(
        name, path, header_bytes, record_bytes, footer_bytes, hop_bytes, encoding))


WholeFileReaderV2 = _reader_op("WholeFileReaderV2", {})


@WholeFileReaderV2.kernel
def _(xp, *, container, shared_name, ctx):
    return _find_or_create(ctx, container, shared_name, _WholeFileWork, "WholeFileReader")


IdentityReaderV2 = _reader_op("IdentityReaderV2", {})


@IdentityReaderV2.kernel
def _(xp, *, container, shared_name, ctx):
    return _find_or_create(ctx, container, shared_name, lambda name, path: _IdentityWork(name),
                           "IdentityReader")


def _simple(type_name, inputs, outputs, shapes):
    od = defop(type_name, inputs=inputs, outputs=outputs, stateful=True)
    od.shape(lambda op: [tensor_shape.TensorShape(s) for s in shapes])
    od.no_gradient()
    return od


def _strings(items):
    return np.fromiter(items, object, len(items))


ReaderReadV2 = _simple("ReaderReadV2", ["reader_handle: resource", "queue_handle: resource"],
                       ["key: string", "value: string"], [[], []])


@ReaderReadV2.kernel
def _read(xp, reader, queue):
    keys, values = reader.read_up_to(queue, 1)
    return np.array(keys[0], dtype=object), np.array(values[0], dtype=object)


def _read_value(reader, queue):
    return None, np.array(reader.read_up_to(queue, 1, False)[1][0], dtype=object)


def _values_only(kernel, variant):
    # A read whose keys nobody reads (runtime/compiled_plan.py) does not make them.
    def without_outputs(fn, unread):
        if unread == {0} and type(fn) is functools.partial and fn.func is kernel and \
                len(fn.args) == 1 and not fn.keywords:
            return variant
        return None

    kernel.without_outputs = without_outputs


_values_only(_read, _read_value)


ReaderReadUpToV2 = _simple("ReaderReadUpToV2", ["reader_handle: resource",
                                                "queue_handle: resource", "num_records: int64"],
                           ["keys: string", "values: string"], [[None], [None]])


@ReaderReadUpToV2.kernel
def _read_up_to(xp, reader, queue, num_records, with_keys=True):
    n = int(num_records)
    if n <= 0:
        raise errors.InvalidArgumentError(None, None,
                                          f"num_records must be > 0 but got {n}")
    keys, values = reader.read_up_to(queue, n, with_keys)
    return (_strings(keys) if with_keys else None), _strings(values)


_values_only(_read_up_to, lambda reader, queue, num_records: _read_up_to(
    None, reader, queue, num_records, False))


ReaderNumRecordsProducedV2 = _simple("ReaderNumRecordsProducedV2", ["reader_handle: resource"],
                                     ["records_produced: int64"], [[]])
ReaderNumRecordsProducedV2.kernel(lambda xp, reader: np.int64(reader.num_records_produced))

ReaderNumWorkUnitsCompletedV2 = _simple("ReaderNumWorkUnitsCompletedV2",
                                        ["reader_handle: resource"], ["units_completed: int64"],
                                        [[]])
ReaderNumWorkUnitsCompletedV2.kernel(lambda xp, reader: np.int64(reader.work_finished))

ReaderResetV2 = _simple("ReaderResetV2", ["reader_handle: resource"], [], [])
ReaderResetV2.kernel(lambda xp, reader: reader.reset())

ReaderSerializeStateV2 = _simple("ReaderSerializeStateV2", ["reader_handle: resource"],
                                 ["state: string"], [[]])
ReaderSerializeStateV2.kernel(
    lambda xp, reader: np.array(reader.serialize_state(), dtype=object))

ReaderRestoreStateV2 = _simple("ReaderRestoreStateV2", ["reader_handle: resource",
                                                        "state: string"], [], [])


@ReaderRestoreStateV2.kernel
def _(xp, reader, state):
    if np.ndim(state) != 0:
        raise errors.InvalidArgumentError(
            None, None, f"Expected state to be a scalar, got shape: {list(np.shape(state))}")
    value = state.item() if isinstance(state, np.ndarray) else state
    reader.restore_state(value if isinstance(value, bytes) else str(value).encode())


# A read waits on its queue of work units: it runs after the rest of its run.
blocking.BLOCKING_TYPES.update(("ReaderReadV2", "ReaderReadUpToV2"))
