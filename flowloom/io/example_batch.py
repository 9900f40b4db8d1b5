"""A vectorised reader of a batch of serialized `tf.train.Example` protos.

`decode_batch` walks the protobuf wire format of every Example of a batch at once with NumPy:
one step of each loop reads the next field of every message still open, so the Python work
grows with the number of fields in the widest message, not with the number of Examples. It
accepts exactly the bytes `example_wire` accepts and finds the same values (the last of
duplicate keys wins; a dense key skips empty Features; only a Feature's first list is read),
and bounds every length by the bytes that remain before anything is allocated.

It never reports *why* bytes are bad: on anything `example_wire` would reject it raises
`Fallback`, and the caller parses the batch again with `example_wire`, Example by Example,
which names the Example and key in TF's words.
"""

import numpy as np

from flowloom.io import example_template

STRING, FLOAT, INT64 = "string", "float", "int64"
_TAG = {STRING: 0x0A, FLOAT: 0x12, INT64: 0x1A}
_PAD = 16  # zero bytes after the batch, so windows of up to 10 bytes never leave the buffer
_M32 = np.uint64(0xFFFFFFFF)


class Fallback(Exception):
    """The batch holds bytes the fast reader does not accept; parse it Example by Example."""


class Column:
    """What one configured key holds across the batch.

    Attributes:
      present: bool [N], whether the Example has the key (for a dense key: a non-empty one).
      counts: int64 [N], the number of values of each Example (0 where absent).
      values: the values of all Examples in order: float32 or int64 array, or a list of bytes.
      every: when known, the number of values every Example has (each one present), else
        None.
    """

    __slots__ = ("present", "counts", "values", "every")

    def __init__(self, present, counts, values, every=None):
        self.present, self.counts, self.values = present, counts, values
        self.every = every


def _varints(buf, pos, end, bits=32):
    """Reads one varint at each of `pos` (none may run past `end`). Returns (values, sizes)."""
    window = buf[pos[:, None] + np.arange(10)]
    more = window >= 0x80
    size = np.argmin(more, axis=1) + 1
    if more.all(axis=1).any() or (pos + size > end).any():
        raise Fallback("truncated or overlong varint")
    keep = np.arange(10) < size[:, None]
    parts = (window & 0x7F).astype(np.uint64) << (np.arange(10, dtype=np.uint64) * 7)
    values = np.bitwise_or.reduce(np.where(keep, parts, 0), axis=1)
    return (values & _M32 if bits == 32 else values), size


def _length_delimited(buf, pos, end):
    """Reads a length varint at each of `pos`; returns (start, length) of the field body."""
    n, size = _varints(buf, pos, end)
    start = pos + size
    n = n.astype(np.int64)
    if (n > end - start).any():
        raise Fallback("length runs past the end of its message")
    return start, n


def _fields(buf, starts, ends, wanted_tag, strict):
    """The length-delimited fields `wanted_tag` of each message [starts, ends), in order.

    With `strict`, any other field is an error (a Features message, a bytes_list); otherwise
    other fields are skipped as example_wire skips them (an Example's unknown fields).
    Returns (message index, body start, body length) of every field found, in file order.
    """
    owner = np.arange(len(starts))
    pos = np.asarray(starts, np.int64).copy()
    ends = np.asarray(ends, np.int64)
    found = []
    while True:
        live = pos < ends
        if not live.all():
            owner, pos, ends = owner[live], pos[live], ends[live]
        if not len(pos):
            break
        tag, size = _varints(buf, pos, ends)
        pos = pos + size
        hit = tag == wanted_tag
        if strict and not hit.all():
            raise Fallback("unexpected field")
        if hit.all():
            start, n = _length_delimited(buf, pos, ends)
            found.append((owner, start, n))
            pos = start + n
            continue
        start, n = _length_delimited(buf, pos[hit], ends[hit])
        found.append((owner[hit], start, n))
        pos[hit] = start + n
        _skip(buf, pos, ends, tag, ~hit)
    if not found:
        return (np.zeros(0, np.int64),) * 3
    owner, start, n = (np.concatenate(parts) for parts in zip(*found))
    order = np.argsort(owner, kind="stable")  # file order within each message
    return owner[order], start[order], n[order]


def _skip(buf, pos, ends, tag, mask):
    """Skips one field of wire type tag & 7 at pos[mask] (in place), as example_wire does."""
    kind = (tag & np.uint64(7)).astype(np.int64)
    for wire, width in ((0, None), (1, 8), (2, None), (5, 4)):
        m = mask & (kind == wire)
        if not m.any():
            continue
        if wire == 0:
            _, size = _varints(buf, pos[m], ends[m])
            pos[m] += size
        elif wire == 2:
            n, size = _varints(buf, pos[m], ends[m])
            pos[m] = np.minimum(pos[m] + size + n.astype(np.int64), ends[m])
        else:
            if (pos[m] + width > ends[m]).any():
                raise Fallback("fixed-width field runs past the end")
            pos[m] += width
    if (mask & ~np.isin(kind, (0, 1, 2, 5))).any():
        raise Fallback("unsupported wire type")


def _entries(buf, starts, ends):
    """The (key, value) fields of each map entry [starts, ends): returns their (start, len)."""
    m = len(starts)
    pos = np.asarray(starts, np.int64).copy()
    ends = np.asarray(ends, np.int64)
    key_at = np.zeros(m, np.int64)
    key_n = np.zeros(m, np.int64)
    val_at = np.zeros(m, np.int64)
    val_n = np.zeros(m, np.int64)
    for _ in range(2):
        if (pos >= ends).any():
            raise Fallback("a map entry lacks its key or value")
        field, size = _varints(buf, pos, ends)
        is_key = field == 0x0A
        if not (is_key | (field == 0x12)).all():
            raise Fallback("unknown field in a map entry")
        start, n = _length_delimited(buf, pos + size, ends)
        key_at = np.where(is_key, start, key_at)
        key_n = np.where(is_key, n, key_n)
        val_at = np.where(is_key, val_at, start)
        val_n = np.where(is_key, val_n, n)
        pos = start + n
    if (pos != ends).any():
        raise Fallback("trailing fields in a map entry")
    return key_at, key_n, val_at, val_n


def _matches(buf, key_at, key_n, key):
    hit = key_n == len(key)
    if len(key) and hit.any():
        idx = np.flatnonzero(hit)
        window = buf[key_at[idx, None] + np.arange(len(key))]
        same = (window == np.frombuffer(key, np.uint8)).all(axis=1)
        hit[idx[~same]] = False
    return hit


def _varint_stream(buf, starts, lengths):
    """Decodes the varints that fill each region [start, start + length) exactly.

    Returns (values uint64, count per region)."""
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, np.uint64), np.zeros(len(starts), np.int64)
    idx = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
    raw = buf[idx]
    last = raw < 0x80
    region_last = np.cumsum(lengths)[lengths > 0] - 1
    if not last[region_last].all():
        raise Fallback("truncated varint")
    ends = np.flatnonzero(last)
    begins = np.concatenate(([0], ends[:-1] + 1))
    if (ends - begins >= 10).any():
        raise Fallback("overlong varint")
    shift = (np.arange(total) - np.repeat(begins, ends - begins + 1)).astype(np.uint64) * 7
    values = np.bitwise_or.reduceat((raw & 0x7F).astype(np.uint64) << shift, begins)
    region = np.repeat(np.arange(len(lengths)), lengths)
    counts = np.bincount(region[last], minlength=len(lengths)).astype(np.int64)
    return values, counts


def _gather_bytes(buf, starts, lengths):
    total = int(lengths.sum())
    idx = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
    return buf[idx]


def _floats(buf, at, n):
    """float_list bodies [at, at + n): packed (one block; what follows it is ignored, as TF
    does) or one 0x0D-tagged fixed32 per value."""
    counts = np.zeros(len(at), np.int64)
    first = np.where(n > 0, buf[at], 0)
    packed = (first == 0x0A) & (n > 0)
    loose = (first == 0x0D) & (n > 0)
    if ((n > 0) & ~packed & ~loose).any():
        raise Fallback("float_list holds another field")
    starts = np.zeros(len(at), np.int64)
    if packed.any():
        s, k = _length_delimited(buf, at[packed] + 1, at[packed] + n[packed])
        starts[packed] = s
        counts[packed] = k // 4
    if loose.any():
        if (n[loose] % 5).any():
            raise Fallback("truncated float_list")
        tags = _gather_bytes(buf, at[loose], n[loose]).reshape(-1, 5)
        if (tags[:, 0] != 0x0D).any():
            raise Fallback("float_list holds another field")
        counts[loose] = n[loose] // 5
    values = np.zeros(int(counts.sum()), np.float32)
    offsets = np.cumsum(counts) - counts
    if packed.any():
        p = packed & (counts > 0)
        raw = _gather_bytes(buf, starts[p], counts[p] * 4)
        dest = np.repeat(offsets[p] - np.cumsum(counts[p]) + counts[p], counts[p]) + \
            np.arange(int(counts[p].sum()))
        values[dest] = raw.view("<f4")
    if loose.any():
        lo = loose & (counts > 0)
        raw = _gather_bytes(buf, at[lo], n[lo]).reshape(-1, 5)[:, 1:].copy()
        dest = np.repeat(offsets[lo] - np.cumsum(counts[lo]) + counts[lo], counts[lo]) + \
            np.arange(int(counts[lo].sum()))
        values[dest] = raw.reshape(-1).view("<f4")
    return values, counts


def _int64s(buf, at, n):
    """int64_list bodies: one packed block (what follows it is ignored), or (0x08, varint)
    pairs."""
    first = np.where(n > 0, buf[at], 0)
    packed = (first == 0x0A) & (n > 0)
    loose = (first == 0x08) & (n > 0)
    if ((n > 0) & ~packed & ~loose).any():
        raise Fallback("int64_list holds another field")
    region_at = at.copy()
    region_n = np.where(loose, n, 0)
    if packed.any():
        s, k = _length_delimited(buf, at[packed] + 1, at[packed] + n[packed])
        region_at[packed], region_n[packed] = s, k
    values, counts = _varint_stream(buf, region_at, region_n)
    if loose.any():
        # a stream of tag, value, tag, value...: every tag (as a 32-bit varint) is 8
        offsets = np.cumsum(counts) - counts
        is_loose = np.repeat(loose, counts)
        position = np.arange(len(values)) - np.repeat(offsets, counts)
        tags = is_loose & (position % 2 == 0)
        if (counts[loose] % 2).any() or ((values[tags] & _M32) != 8).any():
            raise Fallback("int64_list holds another field")
        values = values[~tags]
        counts = np.where(loose, counts // 2, counts)
    return values.view(np.int64), counts


def _strings(data, buf, at, n):
    """bytes_list bodies: (0x0A, length, bytes) repeated. Returns (list of bytes, counts)."""
    owner, start, length = _fields(buf, at, at + n, 0x0A, strict=True)
    counts = np.bincount(owner, minlength=len(at)).astype(np.int64)
    return [data[s:s + k] for s, k in zip(start.tolist(), length.tolist())], counts


def decode_batch(serialized, config, layout=None):
    """Reads the configured keys of every Example of a batch.

    Args:
      serialized: a sequence of N bytes objects.
      config: a list of (key bytes, kind (STRING/FLOAT/INT64), is_dense).
      layout: `one_layout(serialized, config)` when the caller asked it already, else None.

    Returns:
      One `Column` per config entry.

    Raises:
      Fallback: the bytes hold something example_wire rejects (a malformed message, a type
        that does not match, an unsupported Feature); nothing is said about what.
    """
    if layout is not None:  # one_layout's answer for these Examples
        if layout:
            template, rows, data = layout
            return template.read(rows, data, Column)
        sizes = list(map(len, serialized))
        return _decode_general(serialized, config, sizes, b"".join(serialized))
    n_examples = len(serialized)
    sizes = list(map(len, serialized))
    data = b"".join(serialized)
    if n_examples > 1 and sizes[0] and sizes.count(sizes[0]) == n_examples:
        # Examples of one layout: read like the first (example_template.py)
        rows = np.frombuffer(data, np.uint8).reshape(n_examples, -1)
        template = example_template.for_rows(rows, serialized[0], config)
        if template is not None:
            return template.read(rows, data, Column)
    return _decode_general(serialized, config, sizes, data)


def one_layout(serialized, config):
    """(Template, rows uint8 [N, length], joined bytes) when the N >= 2 Examples (bytes) have
    one length and all match a Template of the config (example_template.for_rows); False
    when they do not; None when it was not asked (other objects than bytes: the caller
    converts them first). decode_batch takes the answer as its `layout`."""
    n_examples = len(serialized)
    if n_examples < 2 or type(serialized[0]) is not bytes:
        return None
    size = len(serialized[0])
    try:
        if not size or list(map(len, serialized)).count(size) != n_examples:
            return False
        data = b"".join(serialized)
    except TypeError:  # not bytes-like
        return None
    if len(data) != n_examples * size:  # buffers whose len is not their size in bytes
        return None
    rows = np.frombuffer(data, np.uint8).reshape(n_examples, size)
    template = example_template.for_rows(rows, serialized[0], config)
    return False if template is None else (template, rows, data)


def _decode_general(serialized, config, sizes, data):
    n_examples = len(serialized)
    buf = np.frombuffer(data + bytes(_PAD), np.uint8)
    lengths = np.fromiter(sizes, np.int64, n_examples)
    ends = np.cumsum(lengths)
    example, f_at, f_n = _fields(buf, ends - lengths, ends, 0x0A, strict=False)
    region, e_at, e_n = _fields(buf, f_at, f_at + f_n, 0x0A, strict=True)
    owner = example[region]  # entries come out in file order within each Example
    key_at, key_n, val_at, val_n = _entries(buf, e_at, e_at + e_n)
    columns = []
    for key, kind, is_dense in config:
        hit = _matches(buf, key_at, key_n, key)
        if is_dense:
            hit &= val_n > 0
        idx = np.flatnonzero(hit)
        who = owner[idx]
        last = np.ones(len(idx), bool)
        last[:-1] = who[1:] != who[:-1]  # the last entry of each Example wins
        idx, who = idx[last], who[last]
        at, size = val_at[idx], val_n[idx]
        first = np.where(size > 0, buf[at], 0)
        if ((size > 0) & (first != _TAG[kind])).any():
            raise Fallback("a Feature of another type")
        body_at, body_n = np.zeros(len(idx), np.int64), np.zeros(len(idx), np.int64)
        nonempty = size > 0
        if nonempty.any():
            body_at[nonempty], body_n[nonempty] = _length_delimited(
                buf, at[nonempty] + 1, at[nonempty] + size[nonempty])
        if kind == FLOAT:
            values, counts = _floats(buf, body_at, body_n)
        elif kind == INT64:
            values, counts = _int64s(buf, body_at, body_n)
        else:
            values, counts = _strings(data, buf, body_at, body_n)
        present = np.zeros(n_examples, bool)
        present[who] = True
        per_example = np.zeros(n_examples, np.int64)
        per_example[who] = counts
        columns.append(Column(present, per_example, values))
    return columns
