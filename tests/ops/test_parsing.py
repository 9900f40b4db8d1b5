"""parse_example, parse_single_example, decode_raw, decode_csv against TF 2.21 (recorded),
and fuzzing of serialized Examples and record files."""

import json
import os
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import flowloom as tf
from tests import tf_reference
from flowloom.framework import errors

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
sys.path.insert(0, DATA)
import parsing_cases

VALUES = np.load(os.path.join(DATA, "parsing_tf.npz"), allow_pickle=False)
with open(os.path.join(DATA, "parsing_tf.json")) as f:
    META = json.load(f)


def _run(case):
    tf.reset_default_graph()
    fetches, feed = case(tf)
    with tf.Session() as sess:
        return fetches, sess.run(fetches, feed)


def _same(expected, got):
    got = np.asarray(got)
    if got.dtype == object:
        got = got.astype(bytes) if got.size else np.zeros(got.shape, "S1")
    assert got.shape == expected.shape
    if expected.dtype.kind == "f":
        np.testing.assert_array_equal(got.astype(expected.dtype), expected)
        assert got.dtype == expected.dtype
    else:
        assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("name,case", parsing_cases.CASES, ids=[n for n, _ in parsing_cases.CASES])
def test_matches_tf(name, case):
    info = META[name]
    if "error" in info:
        cls, message = info["error"]
        with pytest.raises(getattr(errors, cls)) as caught:
            _run(case)
        assert caught.value.message.split("\n\t [[")[0].strip() == message
        return
    fetches, values = _run(case)
    for key, t in fetches.items():
        # TF 2.x (the recording) builds ParseExampleV2 for tf.parse_example; flowloom builds
        # TF 1.15's ParseExample (graphs load in both), so that tensor has TF 1.15's name.
        names = [n.replace("ParseExample/ParseExampleV2:", "ParseExample/ParseExample:")
                 if n.startswith("ParseExample") else n for n in info["names"][key]]
        if isinstance(t, tf.SparseTensor):
            got = [t.indices.name, t.values.name, t.dense_shape.name, str(t.indices.shape),
                   str(t.values.shape), str(t.dense_shape.shape)]
            assert got == names
            for part in ("indices", "values", "dense_shape"):
                _same(VALUES[f"{name}/{key}/{part}"], getattr(values[key], part))
        else:
            assert [t.name, str(t.shape)] == names
            _same(VALUES[f"{name}/{key}"], values[key])


def test_seed_snippet_names_each_parsed_feature():
    fetches, values = _run(parsing_cases.case_seed_parse_example)
    assert [fetches[k].name for k in ("image", "text", "label")] == ["image:0", "text:0",
                                                                     "label:0"]
    assert values["image"].shape == (2, 256) and values["label"][1, 5] == b"t1_5"


def test_parse_example_build_time_errors():
    s = tf.placeholder(tf.string, [None])
    with pytest.raises(ValueError, match="cannot be None or falsy"):
        tf.parse_example(s, {})
    with pytest.raises(ValueError, match="requires allow_missing to be True"):
        tf.parse_example(s, {"q": tf.FixedLenSequenceFeature([2], tf.float32)})
    with pytest.raises(ValueError, match="First dimension of shape for feature x unknown"):
        tf.parse_example(s, {"x": tf.FixedLenFeature([None, 2], tf.float32)})
    with pytest.raises(ValueError, match="Input serialized must be a scalar"):
        tf.parse_single_example(s, {"x": tf.VarLenFeature(tf.int64)})
    with pytest.raises(ValueError, match="Unsupported dtype int32"):
        tf.parse_example(s, {"x": tf.FixedLenFeature([], tf.int32)})


def test_sparse_tensor_feed_and_fetch_round_trip():
    sp = tf.sparse_placeholder(tf.float32, shape=[3, None], name="sp")
    doubled = tf.SparseTensor(sp.indices, sp.values * 2.0, sp.dense_shape)
    value = tf.SparseTensorValue(indices=[[0, 1], [2, 0]], values=[1.5, -1.0],
                                 dense_shape=[3, 4])
    with tf.Session() as sess:
        out = sess.run(doubled, {sp: value})
        again = sess.run(sp, {sp: ([[1, 1]], [7.0], [3, 2])})
    assert isinstance(out, tf.SparseTensorValue)
    assert out.indices.tolist() == [[0, 1], [2, 0]] and out.values.tolist() == [3.0, -2.0]
    assert again.dense_shape.tolist() == [3, 2]
    # TF 1.15: a shape with a None entry makes dense_shape a placeholder of the rank, so the
    # static shape is [?, ?] (TF 2.x's PlaceholderWithDefault keeps the 3).
    assert sp.shape.as_list() == [None, None] and sp.values.name == "sp/values:0"


# -- fuzzing ---------------------------------------------------------------------------------------

def _seed_examples():
    return parsing_cases._batch(tf)


_PARSER = {}


def _parser():
    """One graph and session reused by every fuzz example (building them is the slow part)."""
    if not _PARSER:
        g = tf.Graph()
        with g.as_default():
            serialized = tf.placeholder(tf.string, [None])
            parsed = tf.parse_example(serialized, parsing_cases._config(tf))
            single_in = tf.placeholder(tf.string, [])
            single = tf.parse_single_example(single_in, parsing_cases._config(tf))
        _PARSER.update(sess=tf.Session(graph=g), serialized=serialized, parsed=parsed,
                       single_in=single_in, single=single)
    return _PARSER


def _mutate(data, edits):
    data = bytearray(data)
    for kind, pos, byte in edits:
        if kind == 0 and data:
            data[pos % len(data)] = byte
        elif kind == 1:
            data.insert(pos % (len(data) + 1), byte)
        elif kind == 2 and data:
            del data[pos % len(data)]
        elif kind == 3:
            data = data[: pos % (len(data) + 1)]
    return bytes(data)


_EDITS = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10_000), st.integers(0, 255)),
                  min_size=1, max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, 3), edits=_EDITS)
def test_fuzz_mutated_examples_raise_invalid_argument_or_parse(which, edits):
    p = _parser()
    data = _mutate(_seed_examples()[which], edits)
    for fetch, feed in ((p["parsed"], {p["serialized"]: [data]}),
                        (p["single"], {p["single_in"]: data})):
        try:
            p["sess"].run(fetch, feed)
        except errors.InvalidArgumentError as e:
            assert e.message
        # Anything else (TypeError, IndexError, InternalError...) fails the test.


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=200))
def test_fuzz_random_bytes_as_examples(data):
    p = _parser()
    try:
        p["sess"].run(p["parsed"], {p["serialized"]: [data, data]})
    except errors.InvalidArgumentError as e:
        # Every message names the Example: by index, or by name for a missing feature.
        assert "Index: " in e.message or "Name: <unknown>, Feature:" in e.message


@settings(max_examples=80, deadline=None)
@given(edits=_EDITS, compression=st.sampled_from(["", "ZLIB", "GZIP"]))
def test_fuzz_damaged_record_files_raise_data_loss(tmp_path_factory, edits, compression):
    path = str(tmp_path_factory.mktemp("rec") / "data.tfrecord")
    options = tf.io.TFRecordOptions(compression) if compression else None
    with tf.io.TFRecordWriter(path, options) as writer:
        for example in _seed_examples():
            writer.write(example)
    with open(path, "rb") as f:
        damaged = _mutate(f.read(), edits)
    with open(path, "wb") as f:
        f.write(damaged)
    try:
        records = list(tf.python_io.tf_record_iterator(path, options))
    except errors.DataLossError as e:
        # TF 1.15's RecordReader words ("corrupted record at N") do not name the file
        assert e.message
        return
    p = _parser()
    try:
        p["sess"].run(p["parsed"], {p["serialized"]: records})
    except errors.InvalidArgumentError as e:
        assert e.message


TF_PYTHON = tf_reference.tensorflow_python()
TF_PARSES_FILE = """
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
records = list(tf.python_io.tf_record_iterator(sys.argv[1], tf.io.TFRecordOptions("ZLIB")))
parsed = tf.parse_example(tf.constant(records), {
    "b": tf.FixedLenFeature([], tf.int64), "v": tf.VarLenFeature(tf.int64),
    "w": tf.FixedLenFeature([2], tf.string, default_value=["-", "-"])})
with tf.Session() as sess:
    out = sess.run(parsed)
print(json.dumps({"b": out["b"].tolist(), "v": out["v"].values.tolist(),
                  "v_shape": out["v"].dense_shape.tolist(),
                  "w": [x.decode() for x in out["w"].ravel()]}))
"""


def test_tensorflow_reads_and_parses_flowloom_example_records(tmp_path):
    import subprocess

    if TF_PYTHON is None:
        pytest.skip(tf_reference.skip_reason())
    path = str(tmp_path / "examples.tfrecord")
    with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions("ZLIB")) as writer:
        for i in range(3):
            example = tf.train.Example(features=tf.train.Features(feature={
                "b": tf.train.Feature(int64_list=tf.train.Int64List(value=[i * 10])),
                "v": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(i)))),
            }))
            if i == 1:
                example.features.feature["w"].bytes_list.value.extend([b"x", b"y"])
            writer.write(example.SerializeToString())
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    out = subprocess.run([TF_PYTHON, "-c", TF_PARSES_FILE, path], capture_output=True,
                         text=True, timeout=120, env=env, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout)
    assert seen == {"b": [0, 10, 20], "v": [0, 0, 1], "v_shape": [3, 2],
                    "w": ["-", "-", "x", "y", "-", "-"]}


@settings(max_examples=400, deadline=None)
@given(kind=st.sampled_from([0x0A, 0x12, 0x1A]), body=st.binary(max_size=60),
       example=st.binary(max_size=80))
def test_fuzz_wire_reader_raises_only_wire_errors(kind, body, example):
    from flowloom.io import example_wire

    feature = bytes([kind]) + body
    try:
        example_wire.feature_values(feature, example_wire.feature_kind(feature))
    except example_wire.WireError:
        pass
    try:
        entries = example_wire.parse_example(example)
    except example_wire.WireError:
        return
    for key, raw in entries:
        assert isinstance(key, bytes) and isinstance(raw, bytes)
