"""The vectorised Example reader (flowloom/io/example_batch.py, batches of FAST_BATCH or more)
and the one-Example path give exactly what the Example-by-Example reader gives, on Examples
encoded every way the wire format allows (packed and unpacked lists, non-canonical varints,
unknown fields, duplicate keys, empty Features, concatenated Examples) and on damaged bytes
(same outputs, or the same error class and message). The general reader itself is checked
against TF in test_parsing.py."""

import os
import random

import numpy as np
import pytest

import flowloom as tf
from flowloom.io import example_template
from flowloom.ops.parsing import parsing_ops

KEYS = [b"a", b"b", b"s", b"q", b"v", b"w", b"z", b""]


def _varint(n, pad=0):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n or pad:
            out.append(b | 0x80)
            if not n:
                pad -= 1
                if pad == 0:
                    out.append(0)
                    break
                continue
        else:
            out.append(b)
            break
    return bytes(out)


def _ld(tag, body, rng):
    return bytes([tag]) + _varint(len(body), pad=rng.random() < 0.05) + body


# Each key's usual type and value counts (what the configs below mostly accept).
NATURAL = {b"a": ("float", [2]), b"b": ("int64", [0, 1, 3]), b"s": ("bytes", [1]),
           b"q": ("float", [0, 2, 4, 6]), b"v": ("int64", [1]), b"w": ("float", [0, 1, 5]),
           b"z": ("bytes", [0, 1, 3]), b"": ("int64", [0, 2])}


def _feature(rng, key):
    kind = rng.choice(["float", "int64", "bytes", "empty", "empty_list"])
    n = rng.choice([0, 1, 2, 3, 4, 6, 8])
    if rng.random() < 0.97:
        kind, counts = NATURAL[key]
        n = rng.choice(counts)
    if kind == "empty":
        return b""
    if kind == "float":
        vals = np.array([rng.uniform(-9, 9) for _ in range(n)], "<f4").tobytes()
        if rng.random() < 0.5:
            body = _ld(0x0A, vals, rng)
        else:
            body = b"".join(b"\x0d" + vals[i:i + 4] for i in range(0, len(vals), 4))
        return _ld(0x12, body, rng)
    if kind == "int64":
        vals = [rng.choice([0, 1, -1, 7, 300, 2**40, -2**63, 2**63 - 1]) for _ in range(n)]
        if rng.random() < 0.5:
            body = _ld(0x0A, b"".join(_varint(v, pad=rng.random() < 0.1) for v in vals), rng)
        else:
            body = b"".join(_varint(8, pad=rng.random() < 0.1) + _varint(v) for v in vals)
        return _ld(0x1A, body, rng)
    if kind == "bytes":
        body = b"".join(_ld(0x0A, bytes(rng.randrange(256) for _ in range(rng.randrange(4))),
                            rng) for _ in range(n))
        return _ld(0x0A, body, rng)
    return bytes([rng.choice([0x0A, 0x12, 0x1A])]) + b"\x00"


def _example(rng):
    entries = []
    for _ in range(rng.randrange(6)):
        key = rng.choice(KEYS)
        entry = [_ld(0x0A, key, rng), _ld(0x12, _feature(rng, key), rng)]
        if rng.random() < 0.1:
            entry.reverse()
        entries.append(_ld(0x0A, b"".join(entry), rng))
    out = _ld(0x0A, b"".join(entries), rng)
    r = rng.random()
    if r < 0.1:
        out = b"\x10\x05" + out  # an unknown varint field
    elif r < 0.15:
        out += b"\x19" + bytes(8) + b"\x25" + bytes(4)  # fixed64, fixed32
    elif r < 0.25:
        out += _example(rng)  # two Examples concatenated parse as one
    return out


def _damage(data, rng):
    data = bytearray(data)
    for _ in range(rng.randrange(1, 3)):
        what = rng.random()
        if what < 0.4 and data:
            data[rng.randrange(len(data))] = rng.randrange(256)
        elif what < 0.7 and data:
            del data[rng.randrange(len(data)):]
        else:
            data.insert(rng.randrange(len(data) + 1), rng.randrange(256))
    return bytes(data)


CONFIGS = [
    {"a": tf.FixedLenFeature([2], tf.float32, default_value=[0.5, -0.5]),
     "b": tf.VarLenFeature(tf.int64), "s": tf.VarLenFeature(tf.string),
     "q": tf.FixedLenSequenceFeature([2], tf.float32, allow_missing=True, default_value=-1.0)},
    {"v": tf.FixedLenFeature([], tf.int64, default_value=3), "w": tf.VarLenFeature(tf.float32),
     "z": tf.FixedLenSequenceFeature([], tf.string, allow_missing=True),
     "": tf.FixedLenSequenceFeature([], tf.int64, allow_missing=True)},
    {"a": tf.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0]),
     "s": tf.FixedLenFeature([], tf.string, default_value="d")},
]


@pytest.fixture(scope="module")
def graphs():
    g = tf.Graph()
    with g.as_default():
        batch = tf.placeholder(tf.string, [None])
        one = tf.placeholder(tf.string, [])
        fetches = []
        for config in CONFIGS:
            parsed = tf.parse_example(batch, config)
            single = tf.parse_single_example(one, config)
            fetches.append((_flat(parsed), _flat(single)))
    sess = tf.Session(graph=g)
    yield sess, batch, one, fetches
    sess.close()


def _flat(parsed):
    out = []
    for key in sorted(parsed):
        t = parsed[key]
        out += [t.indices, t.values, t.dense_shape] if isinstance(t, tf.SparseTensor) else [t]
    return out


def _run(sess, fetch, feed):
    try:
        return [np.asarray(v) for v in sess.run(fetch, feed)]
    except tf.errors.OpError as e:
        return (type(e).__name__, e.message)


def _same(a, b):
    if isinstance(a, tuple) or isinstance(b, tuple):
        return a == b
    for x, y in zip(a, b):
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if x.dtype == np.float32:
            if not np.array_equal(x.view(np.int32), y.view(np.int32)):
                return False
        elif not np.array_equal(x, y):
            return False
    return len(a) == len(b)


def _both_ways(sess, fetch, feed, monkeypatch):
    fast = _run(sess, fetch, feed)
    with monkeypatch.context() as m:
        m.setattr(parsing_ops, "FAST_BATCH", 1 << 30)
        m.setattr(parsing_ops, "SINGLE_FAST", False)
        slow = _run(sess, fetch, feed)
    return fast, slow


# FLOWLOOM_FUZZ_EXAMPLES=N: about N batches instead of 240.
SEEDS = max(4, int(os.environ.get("FLOWLOOM_FUZZ_EXAMPLES", "0")) // 60)


@pytest.mark.parametrize("seed", range(SEEDS))
def test_fast_readers_equal_the_general_reader(graphs, seed, monkeypatch):
    sess, batch, one, fetches = graphs
    rng = random.Random(seed)
    errors = parsed = 0
    for trial in range(60):
        records = [_example(rng) for _ in range(rng.choice([1, 2, 5, 8]))]
        if trial % 4 == 0:
            k = rng.randrange(len(records))
            records[k] = _damage(records[k], rng)
        batch_fetch, single_fetch = fetches[trial % len(fetches)]
        fast, slow = _both_ways(sess, batch_fetch, {batch: records}, monkeypatch)
        assert _same(fast, slow), (records, fast, slow)
        errors += isinstance(slow, tuple)
        parsed += not isinstance(slow, tuple) and len(records) >= parsing_ops.FAST_BATCH
        fast, slow = _both_ways(sess, single_fetch, {one: records[0]}, monkeypatch)
        assert _same(fast, slow), (records[0], fast, slow)
    assert errors and parsed  # both kinds of batch were seen


def test_vectorised_reader_reads_a_large_batch_as_tf_lays_it_out():
    rng = np.random.RandomState(0)
    records, xs = [], []
    for i in range(300):
        x = rng.rand(5).astype(np.float32)
        xs.append(x)
        ex = tf.train.Example(features=tf.train.Features(feature={
            "x": tf.train.Feature(float_list=tf.train.FloatList(value=x)),
            "ids": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(i % 4)))),
            "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"n%d" % i]))}))
        records.append(ex.SerializeToString())
    with tf.Graph().as_default():
        parsed = tf.parse_example(records, {
            "x": tf.FixedLenFeature([5], tf.float32), "ids": tf.VarLenFeature(tf.int64),
            "name": tf.FixedLenFeature([], tf.string)})
        with tf.Session() as sess:
            x, ids, name = sess.run([parsed["x"], parsed["ids"], parsed["name"]])
    np.testing.assert_array_equal(x, np.stack(xs))
    assert ids.dense_shape.tolist() == [300, 3]
    assert ids.indices[:4].tolist() == [[1, 0], [2, 0], [2, 1], [3, 0]]
    assert ids.values[:4].tolist() == [0, 0, 1, 0]
    assert name[7] == b"n7"


def test_padding_past_the_output_limit_is_resource_exhausted(monkeypatch):
    monkeypatch.setattr(parsing_ops, "MAX_OUTPUT_BYTES", 1000)
    long = tf.train.Example(features=tf.train.Features(feature={
        "q": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0] * 100))}))
    with tf.Graph().as_default():
        parsed = tf.parse_example([long.SerializeToString()] * 5, {
            "q": tf.FixedLenSequenceFeature([], tf.float32, allow_missing=True)})
        with tf.Session() as sess, pytest.raises(tf.errors.ResourceExhaustedError,
                                                 match="over flowloom's limit"):
            sess.run(parsed["q"])


def _reference_entries(data):
    """The Example reader as first written (one _Reader per message), to check the inlined
    example_wire.parse_example against."""
    from flowloom.io.example_wire import WireError, _Reader

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
                raise WireError("field")
            entry = features.sub()
            key = value = b""
            for _ in range(2):
                if entry.at_end():
                    raise WireError("short")
                field = entry.varint(32)
                if field not in (0x0A, 0x12):
                    raise WireError("unknown")
                n = entry.varint(32)
                start = entry.take(n)
                if field == 0x0A:
                    key = data[start:start + n]
                else:
                    value = data[start:start + n]
            if not entry.at_end():
                raise WireError("trailing")
            entries.append((key, value))
    return entries


def test_inlined_example_reader_equals_the_reference():
    from flowloom.io import example_wire

    rng = random.Random(7)
    for trial in range(SEEDS * 150):
        data = _example(rng)
        if trial % 2:
            data = _damage(data, rng)
        try:
            want = _reference_entries(data)
        except example_wire.WireError:
            want = "error"
        try:
            got = example_wire.parse_example(data)
        except example_wire.WireError:
            got = "error"
        assert got == want, data


def _same_layout(rng, n):
    """n Examples of one length: copies of one, each with a few bytes changed (payload bytes
    keep the layout; a changed tag, length or key byte breaks it)."""
    first = _example(rng)
    out = [first]
    for _ in range(n - 1):
        data = bytearray(first)
        for _ in range(rng.choice([0, 0, 0, 0, 1, 2])):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
        out.append(bytes(data))
    return out


@pytest.mark.parametrize("seed", range(SEEDS))
def test_batches_of_one_layout_equal_the_general_reader(graphs, seed, monkeypatch):
    sess, batch, _, fetches = graphs
    rng = random.Random(100 + seed)
    parsed = 0
    for trial in range(60):
        records = _same_layout(rng, rng.choice([4, 6, 9]))
        batch_fetch, _ = fetches[trial % len(fetches)]
        fast, slow = _both_ways(sess, batch_fetch, {batch: records}, monkeypatch)
        assert _same(fast, slow), (records, fast, slow)
        parsed += not isinstance(slow, tuple)
    assert parsed >= 5


@pytest.mark.parametrize("seed", range(SEEDS))
def test_a_template_reused_across_batches_equals_the_general_reader(graphs, seed, monkeypatch):
    # Batches of copies of one Example, changed here and there and shuffled: the Template of
    # an earlier batch is used for a later one only where the later one's bytes match it.
    sess, batch, _, fetches = graphs
    rng = random.Random(200 + seed)
    built = []
    real_build = example_template.Template.build.__func__
    monkeypatch.setattr(example_template.Template, "build",
                        classmethod(lambda cls, *a: built.append(1) or real_build(cls, *a)))
    batches = parsed = 0
    for trial in range(20):
        base = _same_layout(rng, 12)
        batch_fetch, _ = fetches[trial % len(fetches)]
        for _ in range(3):
            records = rng.sample(base, 6)
            fast, slow = _both_ways(sess, batch_fetch, {batch: records}, monkeypatch)
            assert _same(fast, slow), (records, fast, slow)
            parsed += not isinstance(slow, tuple)
            batches += 1
    assert parsed >= 5 and len(built) < batches  # some batches reused a Template


def test_template_matches_as_the_elementwise_comparison(monkeypatch):
    # Template.matches compares the masked rows' bytes with the template's repeated (or,
    # above the size it keeps, elementwise); either way: every row agrees on the fixed bytes.
    from flowloom.io import example_wire

    rng = np.random.RandomState(5)
    record = tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=np.arange(5.0))),
        "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[300, 2]))}))
    record = record.SerializeToString()
    config = [(b"x", example_wire.FLOAT, True), (b"y", example_wire.INT64, True)]
    t = example_template.Template.build(record, config)
    row = np.frombuffer(record, np.uint8)
    for limit in (1 << 20, 10):
        monkeypatch.setattr(example_template, "_MAX_REPEATED", limit)
        for n in (1, 2, 7, 7, 3):
            rows = np.tile(row, (n, 1))
            rows[:, t.mask == 0] = rng.randint(0, 256, (n, int((t.mask == 0).sum())))
            assert t.matches(rows)
            want = not ((rows & t.mask) != t.row).any()
            bad = rows.copy()
            at = rng.randint(len(row))
            bad[rng.randint(n), at] ^= 0xFF
            assert t.matches(bad) == (not ((bad & t.mask) != t.row).any()) == (t.mask[at] == 0)
            assert want


def test_decode_raw_of_one_record_equals_the_batch_path():
    from flowloom.framework import dtypes as fl_dtypes
    from flowloom.framework.op_def import get

    kernel = get("DecodeRaw").kernel_fn
    rng = np.random.RandomState(3)
    for out_type in (fl_dtypes.uint8, fl_dtypes.int16, fl_dtypes.float32, fl_dtypes.float64,
                     fl_dtypes.int64):
        for little in (True, False):
            for size in (0, 8, 24, 3072):
                raw = rng.randint(0, 256, size).astype(np.uint8).tobytes()
                one = kernel(np, np.array(raw, dtype=object), out_type=out_type,
                             little_endian=little)
                batch = kernel(np, np.array([raw], dtype=object), out_type=out_type,
                               little_endian=little)[0]
                assert one.dtype == batch.dtype and one.shape == batch.shape
                assert one.tobytes() == batch.tobytes() and one.flags.writeable
    with pytest.raises(tf.errors.InvalidArgumentError, match="length 5 that is not a multiple"):
        kernel(np, np.array(b"12345", dtype=object), out_type=fl_dtypes.int16,
               little_endian=True)


def _full_example(rng, floats_packed, int_values, strings):
    """An Example holding every key of FIXED_CONFIG (layout chosen by the arguments)."""
    def entry(key, feature):
        return _ld(0x0A, _ld(0x0A, key, rng) + _ld(0x12, feature, rng), rng)

    vals = np.array([rng.uniform(-9, 9) for _ in range(6)], "<f4").tobytes()
    if floats_packed:
        floats = _ld(0x12, _ld(0x0A, vals, rng), rng)
    else:
        floats = _ld(0x12, b"".join(b"\x0d" + vals[i:i + 4] for i in range(0, 24, 4)), rng)
    ints = _ld(0x1A, _ld(0x0A, b"".join(_varint(v) for v in int_values), rng), rng)
    text = _ld(0x0A, b"".join(_ld(0x0A, s, rng) for s in strings), rng)
    return _ld(0x0A, entry(b"f", floats) + entry(b"i", ints) + entry(b"t", text), rng)


FIXED_CONFIG = {"f": tf.FixedLenFeature([2, 3], tf.float32),
                "i": tf.FixedLenFeature([2], tf.int64, default_value=[5, 6]),
                "t": tf.FixedLenFeature([], tf.string, default_value="d")}


@pytest.mark.parametrize("seed", range(SEEDS))
def test_fixed_shape_batches_of_one_layout_gathered_straight_equal_the_general_reader(
        seed, monkeypatch):
    # Only fixed-shape dense keys: a batch of one layout holding them all is gathered into
    # the outputs (Template.dense); any other batch goes the general way.
    rng = random.Random(300 + seed)
    straight = []
    real = example_template.Template.dense
    monkeypatch.setattr(example_template.Template, "dense",
                        lambda *a: straight.append(real(*a)) or straight[-1])
    with tf.Graph().as_default():
        batch = tf.placeholder(tf.string, [None])
        fetch = _flat(tf.parse_example(batch, FIXED_CONFIG))
        with tf.Session() as sess:
            for trial in range(30):
                ints = [rng.choice([0, 1, 127, 128, 300, 2**40, -1]) for _ in range(2)]
                strings = [b"ab" if trial % 3 else b"", b"c"][:1 if trial % 5 else 2]
                first = _full_example(rng, trial % 2 == 0, ints, strings)
                records = [first]
                for _ in range(rng.choice([3, 4, 7])):
                    data = bytearray(first)
                    if rng.random() < 0.3:  # a payload byte or anything at all
                        data[rng.randrange(len(data))] = rng.randrange(256)
                    records.append(bytes(data))
                if trial % 7 == 0:  # another layout in the batch
                    records[1] = _full_example(rng, trial % 2 == 1, ints, strings)
                fast, slow = _both_ways(sess, fetch, {batch: records}, monkeypatch)
                assert _same(fast, slow), (records, fast, slow)
    gathered = [s for s in straight if s is not None]
    assert len(gathered) >= 5 and len(gathered) < len(straight), (len(gathered), len(straight))
