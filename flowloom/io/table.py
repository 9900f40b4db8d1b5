"""LevelDB-format sorted string tables, as TF writes them for checkpoint `.index` files.

Layout (TF's `tensorflow/core/lib/io/format.h`):

    data block*          prefix-compressed entries + restart array
    metaindex block      empty: TF writes no meta blocks
    index block          last-key-separator -> BlockHandle of each data block
    footer (48 bytes)    metaindex handle, index handle, zero padding to 40, magic

Every block is followed by a 5-byte trailer: compression type (0 = none,
1 = snappy) and the masked CRC32C of the block contents plus that type byte.
"""

import bisect
import os
import struct

from flowloom.framework import errors
from flowloom.io import crc32c
from flowloom.io.atomic_file import write_atomic
from flowloom.io.table_block import BlockBuilder, parse_block
from flowloom.io.varint import decode_varint, encode_varint
from flowloom.io import file_system

TABLE_MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
BLOCK_TRAILER_SIZE = 5
_HANDLE_PAD = 40  # two BlockHandles of at most 20 bytes each
NO_COMPRESSION = 0
SNAPPY_COMPRESSION = 1


def _encode_handle(offset, size):
    return encode_varint(offset) + encode_varint(size)


def _shortest_separator(start, limit):
    """A short key k with start <= k < limit (TF's FindShortestSeparator)."""
    common = 0
    min_length = min(len(start), len(limit))
    while common < min_length and start[common] == limit[common]:
        common += 1
    if common < min_length:
        diff_byte = start[common]
        if diff_byte < 0xFF and diff_byte + 1 < limit[common]:
            return start[:common] + bytes([diff_byte + 1])
    return start


def _short_successor(key):
    """A short key >= `key` (TF's FindShortSuccessor)."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


class TableBuilder:
    """Writes a table to a binary file object, byte-identical to TF's TableBuilder
    with `compression = kNoCompression`.

    Args:
      file: a writable binary file object.
      block_size: target uncompressed size of data blocks (TF: 256 KiB).
      block_restart_interval: keys between full (unshared) keys (TF: 16).

    Example:
      builder = TableBuilder(f)
      builder.add(b"a", b"1"); builder.add(b"b", b"2")
      builder.finish()
    """

    def __init__(self, file, block_size=262144, block_restart_interval=16):
        self._file = file
        self._block_size = block_size
        self._offset = 0
        self._data_block = BlockBuilder(block_restart_interval)
        self._index_block = BlockBuilder(1)
        self._last_key = None
        self._pending_handle = None  # handle of a flushed block awaiting its index key
        self._finished = False

    def add(self, key, value):
        """Adds an entry; keys must be added in strictly increasing byte order.

        Args:
          key: bytes.
          value: bytes.

        Raises:
          InvalidArgumentError: if `key` is not after the previous key.
        """
        key, value = bytes(key), bytes(value)
        if self._last_key is not None:
            if key <= self._last_key:
                raise errors.InvalidArgumentError(
                    None, None, f"table keys must increase: {key!r} after {self._last_key!r}"
                )
            if len(key) + len(value) >= 2 * self._block_size:
                self._flush()
        if self._pending_handle is not None:
            separator = _shortest_separator(self._last_key, key)
            self._index_block.add(separator, _encode_handle(*self._pending_handle))
            self._pending_handle = None
        self._last_key = key
        self._data_block.add(key, value)
        if self._data_block.size_estimate() >= self._block_size:
            self._flush()

    def _flush(self):
        if self._data_block.empty():
            return
        self._pending_handle = self._write_block(self._data_block)

    def _write_block(self, block):
        contents = block.finish()
        block.reset()
        type_byte = bytes([NO_COMPRESSION])
        checksum = crc32c.mask(crc32c.crc32c(type_byte, crc32c.crc32c(contents)))
        self._file.write(contents + type_byte + struct.pack("<I", checksum))
        handle = (self._offset, len(contents))
        self._offset += len(contents) + BLOCK_TRAILER_SIZE
        return handle

    def finish(self):
        """Writes the remaining block, the metaindex and index blocks and the footer."""
        if self._finished:
            return
        self._finished = True
        self._flush()
        metaindex_handle = self._write_block(BlockBuilder(16))
        if self._pending_handle is not None:
            successor = _short_successor(self._last_key)
            self._index_block.add(successor, _encode_handle(*self._pending_handle))
            self._pending_handle = None
        index_handle = self._write_block(self._index_block)
        handles = _encode_handle(*metaindex_handle) + _encode_handle(*index_handle)
        footer = handles.ljust(_HANDLE_PAD, b"\0") + struct.pack("<Q", TABLE_MAGIC)
        self._file.write(footer)
        self._offset += len(footer)


def build_table(items, **options):
    """Returns the bytes of a table holding `items`.

    Args:
      items: iterable of (key, value) bytes pairs in strictly increasing key order.
      **options: `block_size`, `block_restart_interval` as for `TableBuilder`.
    """
    import io

    buffer = io.BytesIO()
    builder = TableBuilder(buffer, **options)
    for key, value in items:
        builder.add(key, value)
    builder.finish()
    return buffer.getvalue()


def write_table(path, items, **options):
    """Writes a table to `path` crash-safely (temp file, fsync, rename).

    Args:
      path: the file to create.
      items: iterable of (key, value) bytes pairs in strictly increasing key order.
      **options: as for `TableBuilder`.
    """
    write_atomic(path, build_table(items, **options))


class Table:
    """Reads a table held in memory; every block's checksum is verified.

    Args:
      data: the whole table file as bytes.
      name: file name for error messages.

    Raises:
      DataLossError: if the footer, index or a block is corrupt.

    Example:
      table = Table.open("model.ckpt.index")
      for key, value in table.items(): ...
    """

    def __init__(self, data, name="<table>"):
        self._data = memoryview(bytes(data))
        self._name = name
        metaindex_handle, index_handle = self._read_footer()
        # TF writes no meta blocks; the metaindex is read only to verify it.
        self._parse_block(metaindex_handle, "metaindex block")
        index_entries = self._parse_block(index_handle, "index block")
        self._index_keys = [key for key, _ in index_entries]
        self._block_handles = [self._decode_handle(value) for _, value in index_entries]

    @classmethod
    def open(cls, path):
        """Reads the table file at `path`.

        Raises:
          NotFoundError: if there is no such file.
          DataLossError: if it is corrupt.
        """
        path = os.fspath(path)
        try:
            with file_system.open_file(path, "rb") as f:
                data = f.read()
        except errors.NotFoundError:
            raise errors.NotFoundError(None, None, f"{path}: No such file or directory") from None
        return cls(data, name=path)

    def _corrupt(self, message):
        return errors.DataLossError(None, None, f"{self._name}: corrupted table: {message}")

    def _read_footer(self):
        data = self._data
        if len(data) < FOOTER_SIZE:
            raise self._corrupt(f"file is too short ({len(data)} bytes) to be an sstable")
        footer = data[len(data) - FOOTER_SIZE :]
        (magic,) = struct.unpack("<Q", footer[_HANDLE_PAD:])
        if magic != TABLE_MAGIC:
            raise self._corrupt("not an sstable (bad magic number)")
        try:
            meta_offset, pos = decode_varint(footer, 0, _HANDLE_PAD, what="footer handle")
            meta_size, pos = decode_varint(footer, pos, _HANDLE_PAD, what="footer handle")
            index_offset, pos = decode_varint(footer, pos, _HANDLE_PAD, what="footer handle")
            index_size, pos = decode_varint(footer, pos, _HANDLE_PAD, what="footer handle")
        except errors.DataLossError as e:
            raise self._corrupt(e.message) from None
        return (meta_offset, meta_size), (index_offset, index_size)

    def _decode_handle(self, value):
        try:
            offset, pos = decode_varint(value, 0, what="block handle")
            size, pos = decode_varint(value, pos, what="block handle")
        except errors.DataLossError as e:
            raise self._corrupt(e.message) from None
        return offset, size

    def _read_block(self, handle, what):
        offset, size = handle
        end = offset + size + BLOCK_TRAILER_SIZE
        if end > len(self._data) - FOOTER_SIZE:
            raise self._corrupt(
                f"{what} at offset {offset} size {size} runs past the end of the file"
            )
        contents = self._data[offset : offset + size]
        type_byte = self._data[offset + size]
        (stored,) = struct.unpack("<I", self._data[offset + size + 1 : end])
        actual = crc32c.mask(crc32c.crc32c(bytes([type_byte]), crc32c.crc32c(contents)))
        if stored != actual:
            raise self._corrupt(f"block checksum mismatch in {what} at offset {offset}")
        if type_byte == SNAPPY_COMPRESSION:
            raise NotImplementedError(
                f"{self._name}: {what} at offset {offset} is snappy-compressed; "
                "reading snappy blocks is not supported"
            )
        if type_byte != NO_COMPRESSION:
            raise self._corrupt(f"bad block type {type_byte} in {what} at offset {offset}")
        return contents

    def _parse_block(self, handle, what):
        contents = self._read_block(handle, what)
        try:
            return parse_block(contents)
        except errors.DataLossError as e:
            raise self._corrupt(f"{what} at offset {handle[0]}: {e.message}") from None

    def _block_entries(self, block_number):
        return self._parse_block(self._block_handles[block_number], f"data block {block_number}")

    def items(self):
        """Yields every (key, value) pair in key order, as bytes."""
        for block_number in range(len(self._block_handles)):
            yield from self._block_entries(block_number)

    __iter__ = items

    def get(self, key, default=None):
        """Returns the value stored under `key`, or `default`.

        Args:
          key: bytes.
          default: returned when the key is absent.
        """
        key = bytes(key)
        # Index keys are >= every key of their block and < every key of the next.
        block_number = bisect.bisect_left(self._index_keys, key)
        if block_number == len(self._index_keys):
            return default
        for entry_key, value in self._block_entries(block_number):
            if entry_key == key:
                return value
        return default
