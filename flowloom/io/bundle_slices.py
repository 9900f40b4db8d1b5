"""Slices of tensors in V2 checkpoints (partitioned variables), stored as TF stores them.

A tensor saved in slices has, in the bundle's index:
  its full name  -> a BundleEntryProto with the dtype, the full shape and one TensorSliceProto
                    per stored slice (no data of its own);
  one key per slice -> an ordinary entry holding that slice's values. The key is TF's
                    `EncodeTensorNameSlice`: OrderedCode of 0, the name, the rank and then
                    start, length per dimension (length -1 for a whole dimension), so slice
                    keys sort before every tensor name.
The slice a Saver asks for is a spec string "10 3 0,4:0,3": the full shape, then
`start,length` (or `-` for the whole dimension) per dimension, separated by ':'.
"""

import numpy as np

from flowloom.framework import errors
from flowloom.proto import tensor_slice_pb2

FULL = -1  # a whole dimension (TF's kFullExtent)


# -- OrderedCode (the order-preserving encoding TF's slice keys use) ---------------------------
def _num_increasing(value):
    """An unsigned number: a length byte, then its big-endian bytes without leading zeros."""
    body = value.to_bytes((value.bit_length() + 7) // 8, "big") if value else b""
    return bytes([len(body)]) + body


def _string(value):
    """A string: 0x00 -> 0x00 0xff, 0xff -> 0xff 0x00, then the terminator 0x00 0x01."""
    out = bytearray()
    for byte in value:
        out += b"\x00\xff" if byte == 0 else b"\xff\x00" if byte == 0xFF else bytes([byte])
    return bytes(out) + b"\x00\x01"


# Header bits of a signed number's first two bytes, by encoded length (TF's table).
_HEADER = {1: (0x80, 0), 2: (0xC0, 0), 3: (0xE0, 0), 4: (0xF0, 0), 5: (0xF8, 0), 6: (0xFC, 0),
           7: (0xFE, 0), 8: (0xFF, 0), 9: (0xFF, 0x80), 10: (0xFF, 0xC0)}


def _signed_num_increasing(value):
    """A signed 64-bit number: length in unary in the leading bits, then two's complement."""
    magnitude = ~value if value < 0 else value
    length = magnitude.bit_length() // 7 + 1
    if length == 1:
        return bytes([(_HEADER[1][0] ^ value) & 0xFF])
    # The last `length` bytes of the sign-extended two's complement.
    raw = bytearray((value & ((1 << (8 * length)) - 1)).to_bytes(length, "big"))
    raw[0] ^= _HEADER[length][0]
    raw[1] ^= _HEADER[length][1]
    return bytes(raw)


def slice_key(name, starts, lengths):
    """The index key of one stored slice of tensor `name` (TF's EncodeTensorNameSlice)."""
    name = name.encode("utf-8") if isinstance(name, str) else name
    key = _num_increasing(0) + _string(name) + _num_increasing(len(starts))
    for start, length in zip(starts, lengths):
        key += _signed_num_increasing(int(start)) + _signed_num_increasing(int(length))
    return key


# -- slice specs ---------------------------------------------------------------------------------
def _bad(message):
    return errors.InvalidArgumentError(None, None, message)


def parse_slice(text):
    """"0,4:-" -> (starts, lengths) with FULL for a whole dimension (TF's TensorSlice::Parse)."""
    starts, lengths = [], []
    for part in text.split(":") if text else []:
        if part == "-":
            starts.append(0)
            lengths.append(FULL)
            continue
        pieces = part.split(",")
        try:
            start, length = (int(p) for p in pieces)
        except ValueError:
            raise _bad(f"Expected a pair of numbers or '-' but got '{part}': string = "
                       f"{text}") from None
        if start < 0 or length < 0:
            raise _bad(f"Expected non-negative start and length but got '{part}': string = "
                       f"{text}")
        starts.append(start)
        lengths.append(length)
    return starts, lengths


def debug_string(starts, lengths):
    """TF's TensorSlice::DebugString: "0,4:-"."""
    return ":".join("-" if length == FULL else f"{start},{length}"
                    for start, length in zip(starts, lengths))


def parse_shape_and_slice(spec):
    """"10 3 0,4:0,3" -> (full shape, starts, lengths); lengths are resolved (no FULL).

    Raises:
      InvalidArgumentError: for a malformed spec or a slice outside the shape.
    """
    parts = spec.split(" ")
    if len(parts) < 2:
        raise _bad(f"Need least two elements in shape_and_slice specification: {spec}")
    starts, lengths = parse_slice(parts[-1])
    try:
        shape = [int(p) for p in parts[:-1]]
    except ValueError:
        raise _bad(f"Non numerical dimension in shape_and_slice: {spec}") from None
    if len(starts) != len(shape):
        raise _bad(f"Mismatching ranks: shape = {shape_debug(shape)}, slice = "
                   f"{debug_string(starts, lengths)}")
    resolved = []
    for d, (start, length) in enumerate(zip(starts, lengths)):
        if length == FULL:
            resolved.append(shape[d])
            continue
        if start + length > shape[d]:
            raise _bad(f"Extent in dimension {d} out of bounds: shape = {shape_debug(shape)}, "
                       f"slice = {debug_string(starts, lengths)}")
        resolved.append(length)
    return shape, starts, resolved


def shape_debug(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def is_full(starts, lengths, full_shape):
    """True when the slice covers the whole tensor (TF saves it as an ordinary tensor)."""
    return all(s == 0 and (n == FULL or n == d)
               for s, n, d in zip(starts, lengths, full_shape))


def to_proto(starts, lengths, full_shape):
    """The TensorSliceProto TF writes: a whole dimension (`-`) as an empty extent."""
    proto = tensor_slice_pb2.TensorSliceProto()
    for start, length in zip(starts, lengths):
        extent = proto.extent.add()
        if length != FULL:
            extent.start = start
            extent.length = length
    return proto


def from_proto(proto):
    """(starts, lengths) of a TensorSliceProto (FULL where the extent has no length)."""
    starts, lengths = [], []
    for extent in proto.extent:
        if not extent.HasField("length"):
            starts.append(0)
            lengths.append(FULL)
        else:
            starts.append(extent.start)
            lengths.append(extent.length)
    return starts, lengths


def _bounds(starts, lengths, full_shape):
    return [(s, d if n == FULL else s + n) for s, n, d in zip(starts, lengths, full_shape)]


def assemble(full_shape, starts, lengths, stored, read, dtype, name):
    """The values of the slice (starts, lengths) of a tensor of `full_shape`, copied from the
    stored slices that overlap it.

    Args:
      stored: [(starts, lengths, handle)] of the slices in the checkpoint.
      read: handle -> ndarray of that stored slice.
      dtype: the NumPy dtype of the result.
    Raises:
      InvalidArgumentError: when the stored slices do not cover the one asked for.
    """
    want = _bounds(starts, lengths, full_shape)
    out = np.empty([hi - lo for lo, hi in want], dtype=dtype)
    covered = 0
    for s_starts, s_lengths, handle in stored:
        have = _bounds(s_starts, s_lengths, full_shape)
        overlap = [(max(a, c), min(b, d)) for (a, b), (c, d) in zip(want, have)]
        if any(lo >= hi for lo, hi in overlap):
            continue
        values = read(handle)
        dst = tuple(slice(lo - w[0], hi - w[0]) for (lo, hi), w in zip(overlap, want))
        src = tuple(slice(lo - h[0], hi - h[0]) for (lo, hi), h in zip(overlap, have))
        out[dst] = values[src]
        covered += int(np.prod([hi - lo for lo, hi in overlap], dtype=np.int64))
    if covered != out.size:
        raise _bad(f"Does not have sufficient slices for partitioned tensor {name} to restore "
                   f"in slice_spec: {debug_string(starts, lengths)}")
    return out
