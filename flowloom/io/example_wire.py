"""A strict, allocation-bounded reader of serialized `tf.train.Example` protos.

It follows TF's fast Example parser (example_proto_fast_parsing.cc) rather than a general
protobuf parser, so flowloom accepts and rejects the same bytes and sees the same values:
the `features` map is read as (key, raw Feature) pairs in file order (the last duplicate
wins), and a Feature's value list is decoded only when a parse config asks for its key.
Every length is checked against the bytes that remain before anything is allocated;
malformed input raises `WireError`, never another exception.
"""

import numpy as np

STRING, FLOAT, INT64 = "string", "float", "int64"
_KIND_OF_TAG = {0x0A: STRING, 0x12: FLOAT, 0x1A: INT64}


class WireError(Exception):
    """The bytes are not a well-formed Example (or Feature list)."""


class UnsupportedDatatype(WireError):
    """A Feature whose first field is not one of bytes_list, float_list, int64_list."""


class _Reader:
    __slots__ = ("data", "end", "pos")

    def __init__(self, data, pos=0, end=None):
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else end

    def at_end(self):
        return self.pos >= self.end

    def varint(self, limit_bits=64):
        data, pos, end = self.data, self.pos, self.end
        if pos < end and data[pos] < 0x80:  # one byte: tags, short lengths, small values
            self.pos = pos + 1
            return data[pos]
        result, self.pos = read_varint(data, pos, end)
        return result & ((1 << limit_bits) - 1)

    def take(self, n):
        if n > self.end - self.pos:
            raise WireError(f"length {n} runs past the end of its message")
        start = self.pos
        self.pos += n
        return start

    def sub(self):
        """A reader over the next length-delimited field."""
        n = self.varint(32)
        start = self.take(n)
        return _Reader(self.data, start, start + n)

    def skip_field(self, tag):
        kind = tag & 7
        if kind == 0:
            self.varint(32)
        elif kind == 1:
            self.take(8)
        elif kind == 2:
            n = self.varint(32)
            self.pos = min(self.pos + n, self.end)  # TF's Skip past the end is not checked
        elif kind == 5:
            self.take(4)
        else:
            raise WireError(f"unsupported wire type {kind}")


def read_varint(data, pos, end):
    """(full value, next position) of a varint at `pos` that must end before `end`."""
    result = shift = 0
    while True:
        if pos >= end or shift >= 70:
            raise WireError("truncated or overlong varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, pos


def _varint32(data, pos, end):
    """(value, next position) of a varint at `pos` that must end before `end`, masked to 32
    bits as TF reads tags and lengths."""
    result, pos = read_varint(data, pos, end)
    return result & 0xFFFFFFFF, pos


def parse_example(serialized):
    """Splits a serialized Example into its (key, raw Feature bytes) entries, in order.

    Args:
      serialized: bytes.

    Returns:
      A list of (bytes key, bytes feature) pairs.

    Raises:
      WireError: if the bytes do not parse as an Example.
    """
    # One loop with the one-byte varints (tags, short lengths) read inline: this runs once
    # per Example of every parse_single_example.
    data = bytes(serialized)
    end = len(data)
    pos = 0
    entries = []
    while pos < end:
        b = data[pos]
        if b < 0x80:
            tag, pos = b, pos + 1
        else:
            tag, pos = _varint32(data, pos, end)
        if tag != 0x0A:
            r = _Reader(data, pos, end)
            r.skip_field(tag)
            pos = r.pos
            continue
        n, pos = _varint32(data, pos, end)
        if n > end - pos:
            raise WireError(f"length {n} runs past the end of its message")
        features_end = pos + n
        while pos < features_end:
            if data[pos] != 0x0A:
                tag, _ = _varint32(data, pos, features_end)
                if tag != 0x0A:
                    raise WireError("a Features message holds a field other than `feature`")
                _, pos = _varint32(data, pos, features_end)
            else:
                pos += 1
            b = data[pos] if pos < features_end else 0x80
            if b < 0x80:
                n, pos = b, pos + 1
            else:
                n, pos = _varint32(data, pos, features_end)
            if n > features_end - pos:
                raise WireError(f"length {n} runs past the end of its message")
            entry_end = pos + n
            key = value = b""
            for _ in range(2):
                if pos >= entry_end:
                    raise WireError("a feature map entry lacks its key or value")
                b = data[pos]
                if b < 0x80:
                    field, pos = b, pos + 1
                else:
                    field, pos = _varint32(data, pos, entry_end)
                if field != 0x0A and field != 0x12:
                    raise WireError("a feature map entry holds an unknown field")
                b = data[pos] if pos < entry_end else 0x80
                if b < 0x80:
                    n, pos = b, pos + 1
                else:
                    n, pos = _varint32(data, pos, entry_end)
                if n > entry_end - pos:
                    raise WireError(f"length {n} runs past the end of its message")
                if field == 0x0A:
                    key = data[pos:pos + n]
                else:
                    value = data[pos:pos + n]
                pos += n
            if pos < entry_end:
                raise WireError("a feature map entry has trailing fields")
            entries.append((key, value))
    return entries


def feature_kind(feature):
    """The value type of a raw Feature: STRING, FLOAT, INT64, or None when it is empty.

    Raises:
      UnsupportedDatatype: if its first field is none of the three lists.
    """
    if not feature:
        return None
    kind = _KIND_OF_TAG.get(feature[0])
    if kind is None:
        raise UnsupportedDatatype("Unsupported datatype.")
    return kind


def _list_reader(feature):
    r = _Reader(feature, 1)
    n = r.varint(32)
    start = r.take(n)
    return _Reader(feature, start, start + n)


def feature_values(feature, kind):
    """Decodes the value list of a raw Feature of type `kind` (see `feature_kind`).

    Returns:
      A list of bytes (STRING), a float32 array (FLOAT) or an int64 array (INT64).

    Raises:
      WireError: if the list is malformed.
    """
    r = _list_reader(feature)
    if kind == STRING:
        out = []
        while not r.at_end():
            if r.varint(32) != 0x0A:
                raise WireError("bytes_list holds a field other than `value`")
            n = r.varint(32)
            start = r.take(n)
            out.append(feature[start:start + n])
        return out
    if r.at_end():
        return np.zeros(0, np.float32 if kind == FLOAT else np.int64)
    first = feature[r.pos]
    if kind == FLOAT:
        if first == 0x0A:  # packed: one block; TF ignores what follows it
            r.pos += 1
            block = r.sub()
            count = (block.end - block.pos) // 4
            return np.frombuffer(feature, "<f4", count, block.pos).astype(np.float32)
        if first != 0x0D:
            raise WireError("float_list holds a field other than `value`")
        if (r.end - r.pos) % 5:
            raise WireError("truncated float_list")
        raw = np.frombuffer(feature, np.uint8, r.end - r.pos, r.pos).reshape(-1, 5)
        if (raw[:, 0] != 0x0D).any():
            raise WireError("float_list holds a field other than `value`")
        return raw[:, 1:].copy().view("<f4").reshape(-1).astype(np.float32)
    values = []
    if first == 0x0A:
        r.pos += 1
        block = r.sub()
        while not block.at_end():
            values.append(block.varint())
    elif first == 0x08:
        while not r.at_end():
            if r.varint(32) != 0x08:
                raise WireError("int64_list holds a field other than `value`")
            values.append(r.varint())
    else:
        raise WireError("int64_list holds a field other than `value`")
    return np.array(values, dtype=np.uint64).view(np.int64)
