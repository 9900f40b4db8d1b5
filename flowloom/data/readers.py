"""`tf.TFRecordReader`, `tf.TextLineReader`, `tf.FixedLengthRecordReader`, `tf.WholeFileReader`,
`tf.IdentityReader`: readers that take file names from a queue and output records."""

from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.ops import Tensor
import flowloom.ops.data.reader_ops  # noqa: F401 - registers the reader op types


def _queue_ref(queue):
    return queue if isinstance(queue, Tensor) else queue.queue_ref


class ReaderBase:
    """Base class of the readers (`tf.ReaderBase`).

    Each `read` returns the next (key, value) record, taking the next work unit (file name)
    from `queue` when the current one is done; once the queue is closed and drained, a read
    raises OutOfRangeError.

    Example:
      reader = tf.TextLineReader(skip_header_lines=1)
      key, line = reader.read(filename_queue)
    """

    def __init__(self, reader_ref, supports_serialize=False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self):
        return self._reader_ref

    @property
    def supports_serialize(self):
        return self._supports_serialize

    def read(self, queue, name=None):
        """Returns (key, value) string tensors: the next record."""
        op = apply_op("ReaderReadV2", (self._reader_ref, _queue_ref(queue)), name=name)
        return op.outputs[0], op.outputs[1]

    def read_up_to(self, queue, num_records, name=None):
        """Returns (keys, values) vectors of up to `num_records` records."""
        op = apply_op("ReaderReadUpToV2", (self._reader_ref, _queue_ref(queue),
                                           _int64(num_records)), name=name)
        return op.outputs[0], op.outputs[1]

    def num_records_produced(self, name=None):
        """An int64 tensor: the records this reader has produced."""
        return apply_op("ReaderNumRecordsProducedV2", (self._reader_ref,), name=name).outputs[0]

    def num_work_units_completed(self, name=None):
        """An int64 tensor: the work units (files) this reader has finished."""
        return apply_op("ReaderNumWorkUnitsCompletedV2", (self._reader_ref,),
                        name=name).outputs[0]

    def serialize_state(self, name=None):
        """A string tensor: the reader's state (a ReaderBaseState). Only readers whose
        `supports_serialize` is True have one; the others' op fails (UnimplementedError).
        """
        return apply_op("ReaderSerializeStateV2", (self._reader_ref,), name=name).outputs[0]

    def restore_state(self, state, name=None):
        """An op that restores a state `serialize_state` gave (InvalidArgumentError for a
        state that does not parse, or has work in progress; the reader is then reset)."""
        from flowloom.framework.ops import convert_to_tensor

        return apply_op("ReaderRestoreStateV2",
                        (self._reader_ref, convert_to_tensor(state, dtype=dtypes.string)),
                        name=name)

    def reset(self, name=None):
        """An op that returns the reader to its initial state (counters and work)."""
        return apply_op("ReaderResetV2", (self._reader_ref,), name=name)


def _int64(n):
    from flowloom.framework.ops import convert_to_tensor

    if isinstance(n, Tensor):
        return n
    return convert_to_tensor(n, dtype=dtypes.int64)


def _reader(op_type, name, **attrs):
    return apply_op(op_type, (), name=name, **attrs).outputs[0]


class TFRecordReader(ReaderBase):
    """Outputs the records of TFRecord files (keys `file:offset`).

    Args:
      name: a name for the op.
      options: a `tf.python_io.TFRecordOptions` (compression: ZLIB or GZIP).
    """

    def __init__(self, name=None, options=None):
        from flowloom.io.tfrecord import TFRecordOptions

        compression = TFRecordOptions.get_compression_type_string(options)
        super().__init__(_reader("TFRecordReaderV2", name, compression_type=compression))


class TextLineReader(ReaderBase):
    """Outputs the lines of files, without their newline (keys `file:line`, 1-based).

    Args:
      skip_header_lines: lines to skip at the start of every file.
      name: a name for the op.
    """

    def __init__(self, skip_header_lines=None, name=None):
        super().__init__(_reader("TextLineReaderV2", name,
                                 skip_header_lines=int(skip_header_lines or 0)))


class FixedLengthRecordReader(ReaderBase):
    """Outputs fixed-length records of files (keys `file:n`, 0-based).

    Args:
      record_bytes: the length of a record.
      header_bytes: bytes to skip at the start of each file.
      footer_bytes: bytes to ignore at the end of each file.
      hop_bytes: bytes between the starts of consecutive records (0: `record_bytes`).
      name: a name for the op.
      encoding: '' (none), 'ZLIB' or 'GZIP': how the files are compressed.
    """

    def __init__(self, record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None,
                 name=None, encoding=None):
        super().__init__(_reader(
            "FixedLengthRecordReaderV2", name, record_bytes=int(record_bytes),
            header_bytes=int(header_bytes or 0), footer_bytes=int(footer_bytes or 0),
            hop_bytes=int(hop_bytes or 0), encoding=encoding or ""))


class WholeFileReader(ReaderBase):
    """Outputs each file's whole contents as one record (key: the file name)."""

    def __init__(self, name=None):
        super().__init__(_reader("WholeFileReaderV2", name), supports_serialize=True)


class IdentityReader(ReaderBase):
    """Outputs each work unit as both key and value."""

    def __init__(self, name=None):
        super().__init__(_reader("IdentityReaderV2", name), supports_serialize=True)


class LMDBReader(ReaderBase):
    def __init__(self, name=None, options=None):
        raise NotImplementedError("tf.LMDBReader is not implemented in flowloom")
