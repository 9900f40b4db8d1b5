"""Hostile files and graphs end in TF's error classes, in bounded time and memory.

Each input runs in a forked child limited to 512 MB of extra address space and 5 s
(tests/resource_limits.py). The fuzzers draw GraphDefs with hostile attrs and shapes,
ZLIB/GZIP TFRecords, regex patterns and checkpoint index entries; FLOWLOOM_FUZZ_EXAMPLES
sets how many examples each draws (default: a few, to keep the suite fast).
"""

import os
import struct
import sys
import zlib

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import flowloom as tf
from flowloom.framework import errors
from flowloom.io import bundle, crc32c, table
from flowloom.proto import tensor_bundle_pb2
from tests.resource_limits import assert_ends_well, run_limited

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "data"))
import hardening_cases  # noqa: E402

FUZZ = settings(max_examples=int(os.environ.get("FLOWLOOM_FUZZ_EXAMPLES", "8")), deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow], database=None)


def _read_all(path, compression):
    return len(list(tf.python_io.tf_record_iterator(path, tf.io.TFRecordOptions(compression))))


def test_tfrecord_bombs_are_data_loss_in_bounded_memory(tmp_path):
    # 2 MB files that inflate to 2 GiB of zeros behind a header claiming 2**40 (or 100 MiB)
    # bytes: TF says DataLossError; so must flowloom, within 512 MB.
    for compression, claimed in [("ZLIB", 2 ** 40), ("GZIP", 2 ** 40), ("ZLIB", 100 << 20)]:
        path = str(tmp_path / f"bomb_{compression}")
        with open(path, "wb") as f:
            f.write(hardening_cases.zlib_bomb(claimed, 2 << 30, compression))
        report = assert_ends_well(_read_all, path, compression)
        assert report["error"] == "DataLossError", report


def test_a_claimed_record_longer_than_the_file_can_inflate_to_fails_at_once(tmp_path):
    path = str(tmp_path / "claims")
    with open(path, "wb") as f:
        f.write(hardening_cases.zlib_bomb(900 << 20, 1 << 16, "ZLIB"))
    report = assert_ends_well(_read_all, path, "ZLIB")
    assert report["error"] == "DataLossError" and report["extra_rss_mb"] < 64, report


def _import_and_size(graph_def_bytes):
    gd = tf.GraphDef.FromString(graph_def_bytes)
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        with tf.Session(graph=g) as sess:
            for op in g.get_operations():
                if op.outputs:
                    sess.run(tf.size(op.outputs[0]))


def test_small_graph_def_with_huge_fill_consts_imports_in_bounded_memory():
    # Three Consts of 2**28 floats in 171 bytes: TF imports them without their 3 GB.
    gd = tf.GraphDef()
    for i in range(3):
        hardening_cases._const_node(gd.node.add(), f"c{i}", 1, 1, [2 ** 28], float_val=[1.0])
    data = gd.SerializeToString()
    assert len(data) == 171
    report = assert_ends_well(_import_and_size, data)
    assert report["end"] == "ok" and report["extra_rss_mb"] < 100, report


def _build(which):
    with tf.Graph().as_default():
        if which == "reshape_fill":
            x = tf.placeholder_with_default(tf.zeros([1]), [None])
            tf.reshape(x, tf.fill([40000000], 1))
        elif which == "range":
            with tf.Session() as sess:
                assert sess.run(tf.size(tf.range(40000000))) == 40000000
        elif which == "regex":
            with tf.Session() as sess:
                sess.run(tf.strings.regex_full_match(["a" * 40] * 100, "(a+)+b"))


def test_shape_folding_and_regex_are_bounded():
    for which in ("reshape_fill", "range", "regex"):
        report = assert_ends_well(_build, which, extra_mb=400)
        assert report["seconds"] < 5, (which, report)


def _run_fill(n):
    with tf.Graph().as_default(), tf.Session() as sess:
        sess.run(tf.fill([n], 1.0))


def test_memory_error_in_a_kernel_is_resource_exhausted():
    report = run_limited(_run_fill, 2 ** 50)
    assert report["end"] == "error" and report["error"] == "ResourceExhaustedError", report
    assert "Fill" in report["message"], report


def test_memory_error_copying_a_fetch_is_resource_exhausted(monkeypatch):
    from flowloom.runtime import executor

    v = tf.Variable([1.0, 2.0], name="weights")
    with tf.Session() as sess:
        sess.run(v.initializer)

        def no_memory(value):
            raise MemoryError("Unable to allocate")

        monkeypatch.setattr(executor, "to_host", no_memory)
        try:
            sess.run(v)
        except errors.ResourceExhaustedError as e:
            assert "weights" in e.message
        else:
            raise AssertionError("no ResourceExhaustedError")


def test_memory_error_converting_a_feed_is_resource_exhausted(monkeypatch):
    from flowloom.runtime import session_io

    p = tf.placeholder(tf.float32, name="inputs")
    y = tf.identity(p)

    def no_memory(value, dtype):
        raise MemoryError("Unable to allocate")

    monkeypatch.setattr(session_io, "tensor_value_to_numpy", no_memory)
    with tf.Session() as sess:
        try:
            sess.run(y, {p: [1.0, 2.0]})
        except errors.ResourceExhaustedError as e:
            assert "inputs:0" in e.message
        else:
            raise AssertionError("no ResourceExhaustedError")


def _index_with_entry(prefix, **fields):
    """A checkpoint whose one entry has `fields` (valid table checksums)."""
    bundle.write_bundle(prefix, {"w": np.arange(4, dtype=np.float32)})
    reader = bundle.BundleReader(prefix)
    entry = tensor_bundle_pb2.BundleEntryProto()
    entry.CopyFrom(reader.entry("w"))
    dims = fields.pop("dims", None)
    if dims is not None:
        entry.shape.ClearField("dim")
        for d in dims:
            entry.shape.dim.add().size = d
    for k, v in fields.items():
        setattr(entry, k, v)
    header = table.Table.open(bundle.index_filename(prefix)).get(bundle.HEADER_KEY)
    table.write_table(bundle.index_filename(prefix),
                      [(bundle.HEADER_KEY, header), (b"w", entry.SerializeToString())])


def _restore(prefix):
    bundle.read_bundle(prefix)


def test_index_entry_with_negative_offset_is_data_loss(tmp_path):
    prefix = str(tmp_path / "ckpt")
    _index_with_entry(prefix, offset=-8)
    report = assert_ends_well(_restore, prefix)
    assert report["error"] == "DataLossError", report


# -- fuzzers ------------------------------------------------------------------------------------
_OPS = ["Const", "AddN", "Fill", "Range", "Reshape", "Split", "Unpack", "ConcatV2", "Pack",
        "Tile", "Placeholder", "Identity", "Cast", "ZerosLike", "StridedSlice", "OneHot",
        "StaticRegexFullMatch", "Pad", "Transpose", "ExpandDims"]
_BIG = st.sampled_from([0, 1, 2, 3, -1, -2, 2 ** 31 - 1, 2 ** 31, 2 ** 40, 2 ** 62, 2 ** 63 - 1])


@st.composite
def hostile_graph_defs(draw):
    gd = tf.GraphDef()
    names = []
    for i in range(draw(st.integers(1, 4))):
        node = gd.node.add()
        node.name = f"n{i}"
        node.op = draw(st.sampled_from(_OPS))
        for _ in range(draw(st.integers(0, 3))):
            if names:
                node.input.append(draw(st.sampled_from(names)) + draw(
                    st.sampled_from(["", ":0", ":1", ":99"])))
        for key in draw(st.lists(st.sampled_from(
                ["T", "N", "dtype", "num_split", "num", "axis", "Tidx", "value", "shape",
                 "pattern", "Tshape", "depth", "DstT", "SrcT"]), max_size=4, unique=True)):
            kind = draw(st.sampled_from(["type", "i", "tensor", "shape", "s"]))
            attr = node.attr[key]
            if kind == "type":
                attr.type = draw(st.sampled_from([0, 1, 2, 3, 7, 9, 10, 20, 101, 999]))
            elif kind == "i":
                attr.i = draw(_BIG)
            elif kind == "s":
                attr.s = draw(st.sampled_from([b"(a+)+b", b"(a)\\1", b"[", b"a" * 50, b""]))
            elif kind == "shape":
                for d in draw(st.lists(_BIG, max_size=4)):
                    attr.shape.dim.add().size = d
            else:
                t = attr.tensor
                t.dtype = draw(st.sampled_from([1, 3, 7, 9, 10, 23]))
                for d in draw(st.lists(_BIG, max_size=3)):
                    t.tensor_shape.dim.add().size = d
                t.tensor_content = draw(st.binary(max_size=16))
                t.float_val.extend(draw(st.lists(st.floats(width=32), max_size=2)))
                t.int_val.extend(draw(st.lists(st.integers(-3, 3), max_size=2)))
        names.append(node.name)
    return gd.SerializeToString()


@FUZZ
@given(data=hostile_graph_defs())
def test_fuzz_hostile_graph_defs(data):
    assert_ends_well(_import_and_size, data)


_SIZES = st.sampled_from([0, 1, 3, -1, -7, 2 ** 20, 2 ** 31 - 1, 2 ** 31, 2 ** 40, 2 ** 62])


def _run_sized(kind, a, b, c):
    """A well-formed graph whose sizes are hostile numbers, built and run."""
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant([[1.0, 2.0]])
        builders = {
            "fill": lambda: tf.fill([a, b], 1.0),
            "range": lambda: tf.range(a, b, c if c else 1),
            "tile": lambda: tf.tile(x, [a, b]),
            "one_hot": lambda: tf.one_hot([0, 1], a),
            "pad": lambda: tf.pad(x, [[a, b], [0, c]]),
            "reshape": lambda: tf.reshape(x, [a, b]),
            "zeros": lambda: tf.zeros([a, b, c]),
            "split": lambda: tf.split(x, [a, b], axis=1),
            "strided": lambda: x[a:b:c if c else 1],
            "expand": lambda: tf.expand_dims(x, a),
        }
        with tf.device("/cpu:0"):
            t = builders[kind]()
        sess.run(t)


@FUZZ
@given(kind=st.sampled_from(["fill", "range", "tile", "one_hot", "pad", "reshape", "zeros",
                             "split", "strided", "expand"]), a=_SIZES, b=_SIZES, c=_SIZES)
def test_fuzz_hostile_sizes_at_run_time(kind, a, b, c):
    assert_ends_well(_run_sized, kind, a, b, c)


@FUZZ
@given(compression=st.sampled_from(["ZLIB", "GZIP"]),
       claimed=st.sampled_from([0, 1, 2 ** 20, 2 ** 30, 2 ** 31, 2 ** 40, 2 ** 63]),
       inflated=st.integers(0, 1 << 20), cut=st.integers(0, 64), seed=st.integers(0, 255))
def test_fuzz_zlib_and_gzip_records(tmp_path_factory, compression, claimed, inflated, cut, seed):
    blob = bytearray(hardening_cases.zlib_bomb(claimed, inflated, compression))
    if cut and len(blob) > cut:
        del blob[-cut:]
    if seed and blob:
        blob[seed % len(blob)] ^= seed
    path = str(tmp_path_factory.mktemp("records") / "r.tfrecord")
    with open(path, "wb") as f:
        f.write(bytes(blob))
    assert_ends_well(_read_all, path, compression)


def _match(pattern, strings):
    with tf.Graph().as_default(), tf.Session() as sess:
        sess.run(tf.strings.regex_full_match(strings, pattern))
        sess.run(tf.strings.regex_full_match(strings, tf.constant(pattern)))


@FUZZ
@given(pattern=st.one_of(
           st.text(alphabet="a()+*?|\\1[]{}^$.,0-9", max_size=24),
           st.sampled_from(["(a+)+b", "(a|aa)*c", "(a*)*$", "(x+x+)+y", "(a)\\1", "(?P<n>a)",
                            "a{1000}{1000}", "(?=a)", "[z-a]", "\\"])),
       n=st.integers(1, 4000))
def test_fuzz_regex_patterns(pattern, n):
    assert_ends_well(_match, pattern, ["a" * n, "a" * n + "b", ""])


@FUZZ
@given(offset=st.sampled_from([-2 ** 63, -1, 0, 3, 2 ** 31, 2 ** 62]),
       size=st.sampled_from([-1, 0, 4, 16, 17, 2 ** 40]),
       dims=st.lists(st.sampled_from([-1, 0, 1, 4, 2 ** 31, 2 ** 62]), max_size=3),
       dtype=st.sampled_from([1, 2, 3, 7, 9, 10, 14, 21, 999]),
       shard=st.sampled_from([-1, 0, 1, 2 ** 31 - 1]), crc=st.integers(0, 2 ** 32 - 1))
def test_fuzz_checkpoint_index_entries(tmp_path_factory, offset, size, dims, dtype, shard, crc):
    prefix = str(tmp_path_factory.mktemp("ckpt") / "model")
    _index_with_entry(prefix, offset=offset, size=size, dtype=dtype, shard_id=shard, crc32c=crc,
                      dims=dims)
    assert_ends_well(_restore, prefix)


def test_checksums_of_the_bomb_header_are_valid():
    raw = zlib.decompress(hardening_cases.zlib_bomb(12345, 0, "ZLIB"))
    (length,), (masked,) = struct.unpack("<Q", raw[:8]), struct.unpack("<I", raw[8:12])
    assert length == 12345 and masked == crc32c.masked_crc32c(raw[:8])
