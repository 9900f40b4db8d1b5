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
        result = 0
        shift = 0
        data, pos, end = self.data, self.pos, self.end
        while True:
            if pos >= end or shift >= 70:
                raise WireError("truncated or overlong varint")
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        self.pos = pos
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


def parse_example(serialized):
    """Splits a serialized Example into its (key, raw Feature bytes) entries, in order.

    Args:
      serialized: bytes.

    Returns:
      A list of (bytes key, bytes feature) pairs.

    Raises:
      WireError: if the bytes do not parse as an Example.
    """
    data = bytes(serialized)
    r = _Reader(data)
    entries = []
    while not r.at_end():
        tag = r.varint(32)
        if tag != 0x0A:
            r.skip_field(tag)
            continue
        features = r.sub()
        while not features.at_end():
            if features.varint(32) != 0x0A:
                raise WireError("a Features message holds a field other than `feature`")
            entry = features.sub()
            key = value = b""
            for _ in range(2):
                if entry.at_end():
                    raise WireError("a feature map entry lacks its key or value")
                field = entry.varint(32)
                if field not in (0x0A, 0x12):
                    raise WireError("a feature map entry holds an unknown field")
                n = entry.varint(32)
                start = entry.take(n)
                if field == 0x0A:
                    key = data[start:start + n]
                else:
                    value = data[start:start + n]
            if not entry.at_end():
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
