"""Little-endian base-128 varints, as in protobuf, LevelDB and TF's coding.h."""

from flowloom.framework import errors


def encode_varint(value):
    """Encodes a non-negative int as a varint.

    Args:
      value: int in [0, 2**64).

    Returns:
      bytes, 1 to 10 long.
    """
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def decode_varint(data, pos, limit=None, max_bits=64, what="varint"):
    """Decodes a varint from `data[pos:limit]`.

    Args:
      data: bytes-like.
      pos: where the varint starts.
      limit: end of the readable region (default: len(data)).
      max_bits: 32 or 64; longer encodings are corrupt.
      what: a name for the error message.

    Returns:
      (value, position after the varint).

    Raises:
      DataLossError: if the varint runs past `limit` or is too long.
    """
    if limit is None:
        limit = len(data)
    result = 0
    shift = 0
    while pos < limit:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            if result >> max_bits:
                break
            return result, pos
        shift += 7
        if shift >= max_bits + 7:
            break
    raise errors.DataLossError(None, None, f"bad {what} (truncated or over {max_bits} bits)")
