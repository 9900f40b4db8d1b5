"""One block of a LevelDB-format table: prefix-compressed entries and restart points.

Entry:   varint32 shared, varint32 non_shared, varint32 value_length,
         key[shared:] (non_shared bytes), value
Trailer: uint32 restart_offset[num_restarts], uint32 num_restarts
"""

import struct

from flowloom.framework import errors
from flowloom.io.varint import decode_varint, encode_varint


class BlockBuilder:
    """Builds a block, byte-identical to TF's `table::BlockBuilder`.

    Args:
      restart_interval: number of entries between restart points.
    """

    def __init__(self, restart_interval):
        self._restart_interval = restart_interval
        self.reset()

    def reset(self):
        self._buffer = bytearray()
        self._restarts = [0]
        self._counter = 0
        self._last_key = b""

    def empty(self):
        return not self._buffer

    def size_estimate(self):
        return len(self._buffer) + 4 * len(self._restarts) + 4

    def add(self, key, value):
        shared = 0
        if self._counter < self._restart_interval:
            limit = min(len(key), len(self._last_key))
            while shared < limit and key[shared] == self._last_key[shared]:
                shared += 1
        else:
            self._restarts.append(len(self._buffer))
            self._counter = 0
        self._buffer += encode_varint(shared)
        self._buffer += encode_varint(len(key) - shared)
        self._buffer += encode_varint(len(value))
        self._buffer += key[shared:]
        self._buffer += value
        self._last_key = key
        self._counter += 1

    def finish(self):
        """Returns the block contents (entries and restart array)."""
        trailer = struct.pack(f"<{len(self._restarts) + 1}I", *self._restarts, len(self._restarts))
        return bytes(self._buffer) + trailer


def parse_block(contents):
    """Decodes every entry of a block.

    Args:
      contents: the block bytes (without the 5-byte trailer).

    Returns:
      A list of (key, value) bytes pairs in block order.

    Raises:
      DataLossError: if the restart array or any entry is malformed.
    """
    size = len(contents)
    if size < 4:
        raise errors.DataLossError(None, None, f"block of {size} bytes is too short")
    (num_restarts,) = struct.unpack_from("<I", contents, size - 4)
    if num_restarts > (size - 4) // 4:
        raise errors.DataLossError(
            None, None, f"bad restart count {num_restarts} for a block of {size} bytes"
        )
    restarts_start = size - 4 - 4 * num_restarts
    restarts = struct.unpack_from(f"<{num_restarts}I", contents, restarts_start)
    if restarts and restarts[0] != 0 or any(r >= restarts_start and r != 0 for r in restarts):
        raise errors.DataLossError(None, None, "bad restart offsets in block")
    entries = []
    last_key = b""
    pos = 0
    while pos < restarts_start:
        shared, pos = decode_varint(contents, pos, restarts_start, 32, "entry header")
        non_shared, pos = decode_varint(contents, pos, restarts_start, 32, "entry header")
        value_length, pos = decode_varint(contents, pos, restarts_start, 32, "entry header")
        if shared > len(last_key) or non_shared + value_length > restarts_start - pos:
            raise errors.DataLossError(None, None, f"bad entry in block at offset {pos}")
        key = last_key[:shared] + bytes(contents[pos : pos + non_shared])
        pos += non_shared
        value = bytes(contents[pos : pos + value_length])
        pos += value_length
        entries.append((key, value))
        last_key = key
    return entries
