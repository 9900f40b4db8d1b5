"""The ReaderBaseState message a reader's serialize_state gives and restore_state takes.

Fields (TF's reader_base.proto, proto3): 1 work_started, 2 work_finished, 3
num_records_produced (int64 varints), 4 current_work (bytes). Written as TF serializes it
(fields in order, zero and empty ones left out) and read as protobuf parses it (any order,
the last value of a field wins, unknown fields skipped, groups refused); `debug_string` is
the text format TF's messages quote.
"""

_INT_FIELDS = ("work_started", "work_finished", "num_records_produced")


class ParseError(ValueError):
    pass


def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def encode(work_started, work_finished, num_records_produced, current_work):
    out = b""
    for field, v in enumerate((work_started, work_finished, num_records_produced), 1):
        if v:
            out += bytes([field << 3]) + _varint(v)
    if current_work:
        out += b"\x22" + _varint(len(current_work)) + current_work
    return out


def _read_varint(data, pos):
    result = shift = 0
    while True:
        if pos >= len(data) or shift >= 70:
            raise ParseError("varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result & ((1 << 64) - 1), pos


def decode(data):
    """{field: value} of a serialized ReaderBaseState (int64 fields signed); ParseError."""
    out = {"work_started": 0, "work_finished": 0, "num_records_produced": 0,
           "current_work": b""}
    pos = 0
    while pos < len(data):
        tag, pos = _read_varint(data, pos)
        field, wire = tag >> 3, tag & 7
        if field == 0:
            raise ParseError("field 0")
        if wire == 0:
            v, pos = _read_varint(data, pos)
            if 1 <= field <= 3:
                out[_INT_FIELDS[field - 1]] = v - (1 << 64) if v >> 63 else v
        elif wire == 2:
            n, pos = _read_varint(data, pos)
            if n > len(data) - pos:
                raise ParseError("length")
            if field == 4:
                out["current_work"] = bytes(data[pos:pos + n])
            pos += n  # a known field of another wire type is an unknown field, as protobuf
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
            if pos > len(data):
                raise ParseError("fixed")
        else:
            raise ParseError("wire type")
    return out


def c_escape(data):
    """absl::CEscape: printable ASCII as is, the usual backslash escapes, else octal."""
    special = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x22: '\\"', 0x27: "\\'", 0x5C: "\\\\"}
    return "".join(special.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}")
                   for b in data)


def debug_string(state):
    """The message's text format (protobuf's DebugString)."""
    lines = [f"{k}: {state[k]}" for k in _INT_FIELDS if state[k]]
    if state["current_work"]:
        lines.append(f'current_work: "{c_escape(state["current_work"])}"')
    return "".join(line + "\n" for line in lines)
