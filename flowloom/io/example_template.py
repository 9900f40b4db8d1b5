"""Batches of Examples that share one layout, read with a few NumPy gathers.

Real input files often hold Examples of one shape: the same keys in the same order, the same
number of values, only the values differ. `Template` walks the first Example of a batch the
way `example_wire` parses it and notes, byte by byte, what its parse depends on: tags,
lengths, keys and Feature kinds (which must be equal in every Example) and the ends of
varint-encoded values (whose continuation bits must be equal); the other bytes (float and
string payloads, ignored bytes) may be anything. When every Example of the batch has the
same length and agrees on those bytes, each parses exactly like the first, so its values lie
at the same offsets and are gathered for the whole batch at once. Otherwise (or for anything
unusual in the first Example) `Template.build` returns None and the general reader runs.
"""

import numpy as np

from flowloom.io import example_wire

STRING, FLOAT, INT64 = example_wire.STRING, example_wire.FLOAT, example_wire.INT64
_TAG = {STRING: 0x0A, FLOAT: 0x12, INT64: 0x1A}


class _Walk:
    """Reads one Example, marking the bytes its parse depends on."""

    def __init__(self, data):
        self.data = data
        self.fixed = np.zeros(len(data), bool)
        self.ends = np.zeros(len(data), bool)

    def varint(self, pos, end, mark="fixed"):
        """(value masked to 32 bits, next position); marks its bytes."""
        start = pos
        result, pos = example_wire.read_varint(self.data, pos, end)
        (self.fixed if mark == "fixed" else self.ends)[start:pos] = True
        return result & 0xFFFFFFFF, pos

    def length_delimited(self, pos, end):
        n, pos = self.varint(pos, end)
        if n > end - pos:
            raise example_wire.WireError("length")
        return pos, pos + n


def _entries(walk):
    """The (key start, key end, value start, value end) of every map entry, in order."""
    end, pos, out = len(walk.data), 0, []
    while pos < end:
        tag, pos = walk.varint(pos, end)
        kind = tag & 7
        if tag == 0x0A:
            start, stop = walk.length_delimited(pos, end)
            while start < stop:
                field, start = walk.varint(start, stop)
                if field != 0x0A:
                    raise example_wire.WireError("features")
                e, e_end = walk.length_delimited(start, stop)
                key = value = (e, e)
                for _ in range(2):
                    if e >= e_end:
                        raise example_wire.WireError("entry")
                    field, e = walk.varint(e, e_end)
                    if field not in (0x0A, 0x12):
                        raise example_wire.WireError("entry field")
                    s, e = walk.length_delimited(e, e_end)
                    if field == 0x0A:
                        key = (s, e)
                        walk.fixed[s:e] = True
                    else:
                        value = (s, e)
                if e != e_end:
                    raise example_wire.WireError("entry trailing")
                out.append(key + value)
                start = e_end
            pos = stop
        elif kind == 0:
            _, pos = walk.varint(pos, end, mark="ends")
        elif kind == 2:
            n, pos = walk.varint(pos, end)
            pos = min(pos + n, end)
        elif kind in (1, 5):
            pos += 8 if kind == 1 else 4
            if pos > end:
                raise example_wire.WireError("fixed width")
        else:
            raise example_wire.WireError("wire type")
    return out


def _values(walk, at, stop, kind):
    """The layout of one winning Feature's values: ("bytes", byte positions) for floats,
    ("varints", [(start, size)]) for int64s, ("strings", [(start, end)])."""
    data = walk.data
    walk.fixed[at] = True
    body, body_end = walk.length_delimited(at + 1, stop)
    if kind == STRING:
        spans, pos = [], body
        while pos < body_end:
            tag, pos = walk.varint(pos, body_end)
            if tag != 0x0A:
                raise example_wire.WireError("bytes_list")
            s, pos = walk.length_delimited(pos, body_end)
            spans.append((s, pos))
        return "strings", spans
    if body == body_end:
        return ("bytes", np.zeros(0, np.int64)) if kind == FLOAT else ("varints", [])
    walk.fixed[body] = True
    first = data[body]
    if kind == FLOAT:
        if first == 0x0A:
            s, e = walk.length_delimited(body + 1, body_end)
            return "bytes", np.arange(s, s + (e - s) // 4 * 4)
        if first != 0x0D or (body_end - body) % 5:
            raise example_wire.WireError("float_list")
        tags = np.arange(body, body_end, 5)
        if (np.frombuffer(data, np.uint8)[tags] != 0x0D).any():
            raise example_wire.WireError("float_list")
        walk.fixed[tags] = True
        return "bytes", (tags[:, None] + np.arange(1, 5)).reshape(-1)
    spans = []
    if first == 0x0A:
        pos, end = walk.length_delimited(body + 1, body_end)
        while pos < end:
            s = pos
            _, pos = walk.varint(pos, end, mark="ends")
            spans.append((s, pos - s))
    elif first == 0x08:
        pos = body
        while pos < body_end:
            tag, pos = walk.varint(pos, body_end)
            if tag != 0x08:
                raise example_wire.WireError("int64_list")
            s = pos
            _, pos = walk.varint(pos, body_end, mark="ends")
            spans.append((s, pos - s))
    else:
        raise example_wire.WireError("int64_list")
    return "varints", spans


# The most bytes a Template keeps of its masked row repeated (`matches` of larger batches
# compares elementwise).
_MAX_REPEATED = 1 << 20


class Template:
    """The layout of a batch's first Example; `read` gathers the batch's columns."""

    @classmethod
    def build(cls, data, config):
        """A Template for Example bytes `data` and a decode_batch config, or None."""
        walk = _Walk(data)
        try:
            entries = _entries(walk)
            layouts = []
            for key, kind, is_dense in config:
                winner = None
                for k0, k1, v0, v1 in entries:
                    if data[k0:k1] == key and (v1 > v0 or not is_dense):
                        winner = (v0, v1)
                if winner is None:
                    layouts.append(None)
                elif winner[1] == winner[0]:
                    layouts.append(("empty", None))
                elif data[winner[0]] != _TAG[kind]:
                    return None  # another type: the general reader says so
                else:
                    layouts.append(_values(walk, winner[0], winner[1], kind))
        except example_wire.WireError:
            return None
        t = cls()
        row = np.frombuffer(data, np.uint8)
        t.length = len(data)
        # the bits every row must share with this one: all of a fixed byte, the continuation
        # bit of a varint's byte
        t.mask = np.where(walk.fixed, 0xFF, np.where(walk.ends, 0x80, 0)).astype(np.uint8)
        t.row = row & t.mask
        t._rows_bytes = None  # the masked row repeated for a batch (`matches`)
        t.layouts = [("varints", _varint_plan(lay[1])) if lay and lay[0] == "varints" else lay
                     for lay in layouts]
        t.kinds = [kind for _, kind, _ in config]
        return t

    def matches(self, rows):
        """Whether every row (uint8 [N, length]) parses the way the first one does."""
        # The masked rows' bytes against the template's repeated: two C loops over the bytes
        # instead of an elementwise comparison and its reduction.
        size = rows.size
        if size > _MAX_REPEATED:
            return not ((rows & self.mask) != self.row).any()
        if self._rows_bytes is None or len(self._rows_bytes) != size:
            self._rows_bytes = self.row.tobytes() * len(rows)
        return np.bitwise_and(rows, self.mask).tobytes() == self._rows_bytes

    def read(self, rows, data, column):
        """The config's columns for the rows (see example_batch.Column)."""
        n = len(rows)
        out = []
        for layout, kind in zip(self.layouts, self.kinds):
            if layout is None:
                out.append(column(np.zeros(n, bool), np.zeros(n, np.int64),
                                  [] if kind == STRING else np.zeros(0, _dtype(kind))))
                continue
            what, where = layout
            if what == "empty":
                values, count = ([] if kind == STRING else np.zeros(0, _dtype(kind))), 0
            elif what == "bytes":
                count = len(where) // 4
                if count and where[-1] - where[0] == len(where) - 1:  # one packed block
                    values = rows[:, where[0]:where[-1] + 1].copy()
                else:
                    values = np.ascontiguousarray(rows[:, where])
                values = values.view("<f4").reshape(-1).astype(np.float32, copy=False)
            elif what == "varints":
                values, count = _gather_varints(rows, where), len(where[0])
            else:
                count = len(where)
                values = [data[r * self.length + s:r * self.length + e]
                          for r in range(n) for s, e in where]
            out.append(column(np.ones(n, bool), np.full(n, count, np.int64), values, count))
        return out


    def dense(self, rows, data, shapes, strides):
        """The rows' values of each configured key as an array [N] + shape (float32, int64
        or object), when the template holds exactly stride (the shape's size) values of
        each; else None (a missing or empty key, or another count: the general path says
        what follows)."""
        n = len(rows)
        out = []
        for layout, shape, stride in zip(self.layouts, shapes, strides):
            if layout is None:
                return None
            what, where = layout
            if what == "bytes" and len(where) == 4 * stride and stride:
                if where[-1] - where[0] == len(where) - 1:  # one packed block
                    values = rows[:, where[0]:where[-1] + 1].copy()
                else:
                    values = np.ascontiguousarray(rows[:, where])
                values = values.view("<f4")
                if values.dtype != np.float32:
                    values = values.astype(np.float32)
            elif what == "varints" and len(where[0]) == stride and stride:
                values = _gather_varints(rows, where)
            elif what == "strings" and len(where) == stride and stride:
                values = np.empty(n * stride, object)
                values[:] = [data[r * self.length + s:r * self.length + e]
                             for r in range(n) for s, e in where]
            else:
                return None
            out.append(values.reshape([n] + shape))
        return out


def _dtype(kind):
    return np.float32 if kind == FLOAT else np.int64


def _varint_plan(spans):
    """(starts, byte columns, their shifts, which are in the value) for varints at `spans`
    [(start, size)]: each value's bytes up to the longest of them."""
    starts = np.array([p for p, _ in spans], np.int64)
    sizes = np.array([k for _, k in spans], np.int64)
    offsets = np.arange(int(sizes.max()) if len(sizes) else 0)
    take = starts[:, None] + offsets
    keep = offsets < sizes[:, None]
    return starts, np.where(keep, take, starts[:, None]), offsets.astype(np.uint64) * 7, keep


def _gather_varints(rows, plan):
    starts, take, shifts, keep = plan
    if not len(starts):
        return np.zeros(0, np.int64)
    if take.shape[1] == 1:  # one byte each (its continuation bit is clear: `matches`)
        return rows[:, starts].astype(np.int64).reshape(-1)
    parts = (rows[:, take] & 0x7F).astype(np.uint64) << shifts
    parts[:, ~keep] = 0
    return np.bitwise_or.reduce(parts, axis=2).reshape(-1).view(np.int64)


_RECENT = {}  # a decode config -> the Template its last batch matched


def for_rows(rows, first, config):
    """A Template that every row (uint8 [N, length]) matches: the one the config's last
    batch matched when these rows match it too (an Example that agrees with a Template's
    bytes parses the way the Example it was built from does), else one built from `first`
    (the first row's bytes); None when there is none."""
    key = tuple(config)
    t = _RECENT.get(key)
    if t is not None and t.length == rows.shape[1] and t.matches(rows):
        return t
    t = Template.build(first, config)
    if t is None or not t.matches(rows):
        return None
    if len(_RECENT) > 256:
        _RECENT.clear()
    _RECENT[key] = t
    return t
