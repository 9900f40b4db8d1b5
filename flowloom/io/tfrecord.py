"""TFRecord files: length-delimited records with masked CRC32C checks.

Each record on disk is:

    uint64 length (little-endian)
    uint32 masked_crc32c(length bytes)
    byte   data[length]
    uint32 masked_crc32c(data)

With GZIP or ZLIB compression the whole framed stream is compressed as one
zlib stream, as TF's `ZlibOutputBuffer` does.
"""

import os
import struct
import zlib

import numpy as np

from flowloom.framework import errors
from flowloom.io import crc32c
from flowloom.io import file_system
from flowloom.io.atomic_file import AtomicFile

_HEADER = struct.Struct("<QI")
_FOOTER = struct.Struct("<I")
_CHUNK = 1 << 16
# The longest record read from a compressed file: there a record's length is only a number
# in the stream (the file's size bounds nothing), so it is bounded before its bytes are
# gathered: 128 MiB (Example records are kilobytes; a reader holds a record whole).
# Uncompressed records are bounded by the file's size.
MAX_COMPRESSED_RECORD_BYTES = 1 << 27
# Deflate expands at most ~1032:1, so a compressed file's remaining bytes bound what it can
# still produce: a header claiming more is corrupt, found before inflating anything.
_MAX_INFLATE_RATIO = 1032


class TFRecordCompressionType:
    """The compression types of `TFRecordOptions` (`tf.io.TFRecordCompressionType`)."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_TYPE_STRINGS = {
    TFRecordCompressionType.NONE: "",
    TFRecordCompressionType.ZLIB: "ZLIB",
    TFRecordCompressionType.GZIP: "GZIP",
}
# zlib `wbits`: 15 = zlib header, 31 = gzip header.
_WBITS = {"ZLIB": 15, "GZIP": 31}


class TFRecordOptions:
    """Options for writing and reading TFRecord files (`tf.io.TFRecordOptions`).

    Args:
      compression_type: "", "ZLIB", "GZIP", None, a `TFRecordCompressionType`, or another
        `TFRecordOptions` (its type is used).
      flush_mode: the zlib flush mode used whenever buffered input is compressed (default
        Z_NO_FLUSH).
      input_buffer_size: bytes of records gathered before they are compressed (256 KiB).
      output_buffer_size: accepted (output is written as it is produced).
      window_bits: zlib window size, 8-15 (default 15; GZIP adds the gzip header).
      compression_level: zlib level 0-9, or None for zlib's default.
      compression_method: zlib method (default Z_DEFLATED).
      mem_level: zlib memory level 1-9 (default 9, as TF).
      compression_strategy: zlib strategy (default Z_DEFAULT_STRATEGY).

    Raises:
      ValueError: for an unknown compression type.
    """

    compression_type_map = dict(_TYPE_STRINGS)

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        self.get_compression_type_string(compression_type)  # validated now, kept as given
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """Returns "", "ZLIB" or "GZIP" for `options`.

        Args:
          options: a `TFRecordOptions`, a compression type string or enum value, or None.

        Raises:
          ValueError: if the compression type is not one of the known ones.
        """
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if options is None:
            return ""
        if isinstance(options, int) and not isinstance(options, bool) and \
                options in _TYPE_STRINGS:
            return _TYPE_STRINGS[options]
        if isinstance(options, str) and options.upper() in ("", "ZLIB", "GZIP"):
            return options.upper()
        raise ValueError(f'Not a valid compression_type: "{options}"')


def _option(options, name, default):
    value = getattr(options, name, None) if isinstance(options, TFRecordOptions) else None
    return default if value is None else value


def _compressor(options, compression):
    wbits = _option(options, "window_bits", zlib.MAX_WBITS)
    if compression == "GZIP":
        wbits += 16
    return zlib.compressobj(_option(options, "compression_level", zlib.Z_DEFAULT_COMPRESSION),
                            _option(options, "compression_method", zlib.DEFLATED), wbits,
                            _option(options, "mem_level", 9),
                            _option(options, "compression_strategy", zlib.Z_DEFAULT_STRATEGY))


def encode_record(data):
    """Frames `data` as one TFRecord (header, data, footer).

    Args:
      data: bytes-like record payload.

    Returns:
      The framed record as bytes.
    """
    data = bytes(data)
    length = struct.pack("<Q", len(data))
    header = length + struct.pack("<I", crc32c.masked_crc32c(length))
    return header + data + _FOOTER.pack(crc32c.masked_crc32c(data))


class TFRecordWriter:
    """Writes records to a TFRecord file (`tf.io.TFRecordWriter`).

    Args:
      path: file to write (created or truncated).
      options: `TFRecordOptions`, a compression type string, or None.
      crash_safe: if True, write to a temporary file and only rename it over
        `path` on `close()`, after an fsync; a crash leaves no partial file.
        Readers that tail the file while it grows (TensorBoard) need False.

    Example:
      with TFRecordWriter("/tmp/data.tfrecord") as writer:
        writer.write(b"record")
    """

    def __init__(self, path, options=None, crash_safe=False):
        self._path = os.fspath(path)
        compression = TFRecordOptions.get_compression_type_string(options)
        self._compressor = None
        if compression:
            self._compressor = _compressor(options, compression)
            # As TF's ZlibOutputBuffer: records gather in an input buffer; a full buffer is
            # compressed with the flush mode.
            self._flush_mode = _option(options, "flush_mode", zlib.Z_NO_FLUSH)
            self._input_limit = _option(options, "input_buffer_size", 256 << 10)
            self._input = bytearray()
        if crash_safe:
            self._atomic = AtomicFile(self._path)
            self._file = self._atomic.file
        else:
            self._atomic = None
            self._file = file_system.open_file(self._path, "wb")

    def _check_open(self, what):
        if self._file is None:
            raise errors.FailedPreconditionError(
                None, None, f"{what} on a closed TFRecordWriter ({self._path})")

    def _deflate(self, data, mode):
        out = self._compressor.compress(bytes(data))
        if mode != zlib.Z_NO_FLUSH:
            out += self._compressor.flush(mode)
        self._file.write(out)

    def write(self, record):
        """Appends one record.

        Args:
          record: bytes-like payload.

        Raises:
          FailedPreconditionError: when the writer is closed.
        """
        self._check_open("write")
        framed = encode_record(record)
        if self._compressor is None:
            self._file.write(framed)
            return
        if len(self._input) + len(framed) <= self._input_limit:
            self._input += framed
            return
        self._deflate(self._input, self._flush_mode)
        self._input.clear()
        if len(framed) <= self._input_limit:
            self._input += framed
        else:
            self._deflate(framed, self._flush_mode)

    def flush(self):
        """Pushes buffered records to the operating system, readable by others.

        Raises:
          FailedPreconditionError: when the writer is closed.
        """
        self._check_open("flush")
        if self._compressor is not None:
            self._deflate(self._input, zlib.Z_SYNC_FLUSH)
            self._input.clear()
        self._file.flush()

    def close(self):
        """Finishes the stream and closes the file (renaming it if crash_safe); closing a
        closed writer does nothing."""
        if self._file is None:
            return
        if self._compressor is not None:
            self._deflate(self._input, zlib.Z_FINISH)
            self._input.clear()
        if self._atomic is not None:
            self._atomic.commit()
        else:
            self._file.close()
        self._file = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and self._atomic is not None:
            self._atomic.abort()
            self._file = None
        else:
            self.close()


class _PlainSource:
    """Reads an uncompressed file; knows how many bytes remain."""

    def __init__(self, file):
        self._file = file
        self._remaining = os.fstat(file.fileno()).st_size - file.tell()

    def remaining(self):
        return self._remaining

    def read(self, n):
        data = self._file.read(n)
        self._remaining -= len(data)
        return data


class _ZlibSource:
    """Reads a zlib/gzip-compressed file; the decompressed size is unknown."""

    def __init__(self, file, wbits, path):
        self._file = file
        self._size = os.fstat(file.fileno()).st_size
        self._wbits = wbits
        self._path = path
        self._inflater = zlib.decompressobj(wbits)
        self._buffer = bytearray()

    def remaining(self):
        """An upper bound on the decompressed bytes still to come."""
        compressed = (self._size - self._file.tell() + len(self._inflater.unconsumed_tail)
                      + len(self._inflater.unused_data))
        return len(self._buffer) + _MAX_INFLATE_RATIO * compressed + _CHUNK

    def _fill(self):
        """Decompresses more input; returns False at the end of the file."""
        while True:
            pending = self._inflater.unconsumed_tail
            if not pending:
                if self._inflater.eof and self._inflater.unused_data:
                    # Concatenated streams (e.g. appended gzip members).
                    pending = self._inflater.unused_data
                    self._inflater = zlib.decompressobj(self._wbits)
                else:
                    pending = self._file.read(_CHUNK)
                    if not pending:
                        if not self._inflater.eof:
                            raise errors.DataLossError(
                                None, None, f"{self._path}: truncated compressed stream"
                            )
                        return False
            try:
                out = self._inflater.decompress(pending, _CHUNK)
            except zlib.error as e:
                raise errors.DataLossError(
                    None, None, f"{self._path}: corrupted compressed stream: {e}"
                ) from None
            if out:
                self._buffer += out
                return True

    def read(self, n):
        while len(self._buffer) < n and self._fill():
            pass
        with memoryview(self._buffer) as view:
            data = bytes(view[:n])
        del self._buffer[:n]
        return data


def _open_source(file, path, options):
    compression = TFRecordOptions.get_compression_type_string(options)
    if compression:
        return _ZlibSource(file, _WBITS[compression], path)
    return _PlainSource(file)


def _read_exact(source, n, path, offset, what):
    if isinstance(source, _ZlibSource) and n > MAX_COMPRESSED_RECORD_BYTES:
        raise errors.DataLossError(
            None, None, f"corrupted record at {offset}: {what} of {n} bytes, over "
            f"the {MAX_COMPRESSED_RECORD_BYTES}-byte limit on a compressed record")
    remaining = source.remaining()
    if remaining is not None and n > remaining:
        raise errors.DataLossError(
            None,
            None,
            f"truncated record at {offset}",
        )
    data = source.read(n)
    if len(data) != n:
        raise errors.DataLossError(
            None,
            None,
            f"truncated record at {offset}",
        )
    return data


def read_records(path, options=None):
    """Yields `(offset, record)` for each record of a TFRecord file.

    Offsets are into the uncompressed stream.

    Args:
      path: the file to read.
      options: `TFRecordOptions`, a compression type string, or None.

    Yields:
      (offset, bytes) pairs.

    Raises:
      DataLossError: a checksum mismatch, a truncated record or a corrupted
        compressed stream; the message is TF's ("corrupted record at N", N the
        record's offset for its length checksum, its data's for the data checksum;
        "truncated record at N" for a record whose data or footer is cut short). A file
        that ends inside a record's header ends cleanly there, as TF's RecordReader.
      NotFoundError: if the file does not exist.
    """
    path = os.fspath(path)
    with open_file(path) as file:
        if not TFRecordOptions.get_compression_type_string(options):
            yield from _plain_records(file, path)
            return
        source = _open_source(file, path, options)
        offset = 0
        while True:
            header = source.read(_HEADER.size)
            if len(header) < _HEADER.size:
                return  # a partial header (or none) ends the file cleanly, as TF's reader
            length, length_crc = _HEADER.unpack(header)
            if crc32c.masked_crc32c(header[:8]) != length_crc:
                raise errors.DataLossError(
                    None,
                    None,
                    f"corrupted record at {offset}",
                )
            data = _read_exact(source, length, path, offset, "data")
            (data_crc,) = _FOOTER.unpack(_read_exact(source, _FOOTER.size, path, offset, "footer"))
            if crc32c.masked_crc32c(data) != data_crc:
                raise errors.DataLossError(
                    None,
                    None,
                    f"corrupted record at {offset + _HEADER.size}",
                )
            yield offset, data
            offset += _HEADER.size + length + _FOOTER.size


_BLOCK = 1 << 20


def _truncated(path, offset, what, n, remaining):
    return errors.DataLossError(None, None, f"truncated record at {offset}")


def _masked(c):
    return (((c >> 15) | (c << 17)) + crc32c._MASK_DELTA) & 0xFFFFFFFF


def _unmasked_array(m):
    """`crc32c.unmask` of a uint32 array (wrapping arithmetic)."""
    r = m - np.uint32(crc32c._MASK_DELTA)
    return (r >> np.uint32(17)) | (r << np.uint32(15))


# Runs of at least this many records are checked as one (fewer cost less one at a time)...
_COMBINED_RUN = 64
# ...once this many records of their length were read (its tables take ~2 ms to build).
_COMBINED_AFTER = 8192
_RUN_RECORDS = {}  # length -> records framed in runs of it, in any file


class PlainRecords:
    """The records of an uncompressed TFRecord file, framed from 1 MiB blocks.

    `take(n, offsets, datas)` appends up to n records' stream offsets and bytes (fewer only
    at the end of the file) and returns how many it appended; a bad record raises TF's
    DataLossError after the records before it were appended. The checks and messages are
    the stream reader's. A run of records of one length in the block is framed at once:
    their length fields and header checksums compared in one NumPy step, their data
    checksums computed in one pass; anything else record by record.
    """

    def __init__(self, file, path):
        self._file, self._path = file, path
        self._size = os.fstat(file.fileno()).st_size - file.tell()
        # One buffer, refilled in place (fresh 1 MiB objects cost their page faults each
        # time): the bytes [pos, end) are the file's from the stream offset `offset` on.
        self._buf, self._end, self._pos, self._offset = bytearray(), 0, 0, 0
        self._header_crc = {}  # length -> its masked checksum

    def close(self):
        self._file.close()

    def _header_ok(self, length, stored):
        want = self._header_crc.get(length)
        if want is None:
            want = _masked(crc32c.value(_HEADER.pack(length, 0)[:8]))
            if len(self._header_crc) < 64:
                self._header_crc[length] = want
        return want == stored

    def take(self, n, offsets, datas):
        got = 0
        while got < n:
            if self._end - self._pos < _HEADER.size:
                self._refill(_BLOCK)
                if self._end < _HEADER.size:
                    # The end of the file, also inside a header: TF's RecordReader reads a
                    # short header as OutOfRange (a clean end); short data is DataLoss.
                    return got
            k = self._take_run(n - got, offsets, datas)
            got += k
            if not k:
                self._take_one(offsets, datas)
                got += 1
        return got

    def _take_run(self, n, offsets, datas):
        """Frames the records of one length that follow in the block, up to n; returns how
        many (0 when fewer than two, or the first is not plainly good)."""
        buf, pos = self._buf, self._pos
        length, stored = _HEADER.unpack_from(buf, pos)
        stride = _HEADER.size + length + _FOOTER.size
        k = min(n, (self._end - pos) // stride)
        if k < 2 or not length or not self._header_ok(length, stored):
            return 0
        heads = np.ndarray((k, _HEADER.size), np.uint8, buf, pos, (stride, 1)).tobytes()
        if heads != heads[:_HEADER.size] * k:  # (one comparison of the k headers' bytes)
            lengths = np.ndarray((k,), "<u8", buf, pos, (stride,))
            headers = np.ndarray((k,), "<u4", buf, pos + 8, (stride,))
            odd = np.flatnonzero((lengths != length) | (headers != stored))
            k = int(odd[0])  # that record is framed on its own (and its error said there)
        if k < 2:
            return 0
        start = pos + _HEADER.size
        # Each record's bytes as the item of a void array (an item keeps its trailing NULs):
        # one NumPy step instead of a slice per record.
        chunk = np.ndarray((k,), f"V{length}", buf, start, (stride,)).tolist()
        stored = _unmasked_array(np.ndarray((k,), "<u4", buf, start + length, (stride,)))
        good = k
        if not self._all_sums_ok(chunk, stored, length):
            sums, stored = list(map(crc32c.value, chunk)), stored.tolist()
            good = next(i for i, (a, b) in enumerate(zip(sums, stored)) if a != b)
        offsets.extend(range(self._offset, self._offset + good * stride, stride))
        datas.extend(chunk[:good] if good < k else chunk)
        self._offset += good * stride
        self._pos += good * stride
        if good < k:
            raise errors.DataLossError(
                None, None, f"corrupted record at {self._offset + _HEADER.size}")
        return k

    def _refill(self, size):
        """Moves the unread bytes to the buffer's front and reads on from the file until it
        holds `size` bytes (fewer only at the end of the file)."""
        buf, left = self._buf, self._end - self._pos
        if len(buf) < size or len(buf) > 4 * size:  # (a huge record's buffer is let go)
            grown = bytearray(size)
            grown[:left] = buf[self._pos:self._end]
            buf = self._buf = grown
        elif left:
            buf[:left] = buf[self._pos:self._end]
        self._pos, self._end = 0, left
        with memoryview(buf) as view:
            while self._end < size:
                got = self._file.readinto(view[self._end:size])
                if not got:
                    break
                self._end += got

    def _all_sums_ok(self, chunk, stored, length):
        """Whether every record of `chunk` (all `length` bytes long) has its CRC32C in
        `stored` (unmasked). A long run of a length met often is checked as one: the CRC32C
        of the records joined against the one their stored sums combine to (which finds
        any single bad record, as the per-record check does; see crc32c.concatenated_value);
        otherwise (or on a mismatch, which the caller locates) record by record."""
        k = len(chunk)
        if k >= _COMBINED_RUN:
            seen = _RUN_RECORDS.get(length, 0) + k
            if seen >= _COMBINED_AFTER:
                top = crc32c.MAX_COMBINED
                return all(crc32c.value(b"".join(chunk[i:i + top])) ==
                           crc32c.concatenated_value(stored[i:i + top], length)
                           for i in range(0, k, top))
            if len(_RUN_RECORDS) >= 64:
                _RUN_RECORDS.clear()
            _RUN_RECORDS[length] = seen
        return list(map(crc32c.value, chunk)) == stored.tolist()

    def _take_one(self, offsets, datas):
        buf, pos, offset, path = self._buf, self._pos, self._offset, self._path
        length, length_crc = _HEADER.unpack_from(buf, pos)
        if not self._header_ok(length, length_crc):
            raise errors.DataLossError(
                None, None, f"corrupted record at {offset}")
        total = _HEADER.size + length + _FOOTER.size
        if pos + total > self._end:
            remaining = self._size - offset - _HEADER.size
            if length > remaining:
                raise _truncated(path, offset, "data", length, remaining)
            if length + _FOOTER.size > remaining:
                raise _truncated(path, offset, "footer", _FOOTER.size, remaining - length)
            self._refill(max(_BLOCK, total))  # bounded by the file's size (just checked)
            buf, pos = self._buf, 0
            if self._end < total:
                raise _truncated(path, offset, "data", length, self._end - _HEADER.size)
        start = pos + _HEADER.size
        with memoryview(buf) as view:
            data = bytes(view[start:start + length])
        if _masked(crc32c.value(data)) != _FOOTER.unpack_from(buf, start + length)[0]:
            raise errors.DataLossError(
                None, None, f"corrupted record at {offset + _HEADER.size}")
        offsets.append(offset)
        datas.append(data)
        self._offset += total
        self._pos = pos + total


def _plain_records(file, path):
    """`read_records` of an uncompressed file (PlainRecords, 256 records at a time)."""
    records = PlainRecords(file, path)
    while True:
        offsets, datas = [], []
        try:
            records.take(256, offsets, datas)
        except errors.DataLossError:
            yield from zip(offsets, datas)
            raise
        if not datas:
            return
        yield from zip(offsets, datas)


def open_plain(path):
    """A `PlainRecords` of the uncompressed TFRecord file `path` (NotFoundError if none)."""
    path = os.fspath(path)
    return PlainRecords(open_file(path), path)


def open_file(path):
    """`path` opened for reading through the file-system registry ('PATH: No such file or
    directory' when it is missing, as TF)."""
    try:
        return file_system.open_file(path, "rb")
    except errors.NotFoundError:
        raise errors.NotFoundError(None, None, f"{path}: No such file or directory") from None


def tf_record_iterator(path, options=None):
    """Yields the records of a TFRecord file (`tf.io.tf_record_iterator`).

    Args:
      path: the file to read.
      options: `TFRecordOptions`, a compression type string, or None.

    Yields:
      Each record as bytes.

    Raises:
      DataLossError: on a checksum mismatch or truncation (TF's messages, as read_records).
    """
    for _, record in read_records(path, options):
        yield record
