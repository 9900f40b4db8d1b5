"""Summary ops against TF 2.21: op names, tags and serialized output bytes (recorded)."""

import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flowloom as tf
from flowloom.framework import errors
from flowloom.proto import summary_pb2

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
sys.path.insert(0, DATA)
import summary_cases

RECORDED = np.load(os.path.join(DATA, "summaries_tf.npz"), allow_pickle=False)
CASES = sorted(k[4:] for k in RECORDED.files if k.startswith("out:"))


@pytest.fixture(scope="module")
def flowloom_outputs():
    g = tf.Graph()
    with g.as_default():
        tensors = summary_cases.build(tf)
        with tf.Session() as sess:
            values = sess.run(tensors)
    return tensors, values


@pytest.mark.parametrize("case", CASES)
def test_name_matches_tf(flowloom_outputs, case):
    tensors, _ = flowloom_outputs
    assert tensors[case].name == RECORDED["name:" + case].tobytes().decode()


@pytest.mark.parametrize("case", CASES)
def test_bytes_match_tf(flowloom_outputs, case):
    _, values = flowloom_outputs
    expected = RECORDED["out:" + case].tobytes()
    got = values[case]
    if got != expected:  # show a readable difference
        assert summary_pb2.Summary.FromString(got) == summary_pb2.Summary.FromString(expected)
    assert got == expected


def test_summaries_collected_in_order():
    a = tf.summary.scalar("a", 1.0)
    b = tf.summary.histogram("b", [1.0])
    c = tf.summary.scalar("c", 2.0, collections=["mine"])
    assert tf.get_collection(tf.GraphKeys.SUMMARIES) == [a, b]
    assert tf.get_collection("mine") == [c]
    assert tf.summary.merge_all("nothing_here") is None


def test_histogram_rejects_nan_and_inf():
    x = tf.placeholder(tf.float32)
    h = tf.summary.histogram("h", x)
    with tf.Session() as sess:
        with pytest.raises(errors.InvalidArgumentError, match="Nan in summary histogram for: h"):
            sess.run(h, {x: [1.0, np.nan]})
        with pytest.raises(errors.InvalidArgumentError, match="Infinity in summary histogram"):
            sess.run(h, {x: [np.inf]})


def test_merge_rejects_duplicate_tags_and_garbage():
    a = tf.constant(summary_pb2.Summary(value=[summary_pb2.Summary.Value(
        tag="x", simple_value=1)]).SerializeToString())
    dup = tf.summary.merge([a, a])
    bad = tf.summary.merge([tf.constant(b"\xff\xff")])
    with tf.Session() as sess:
        with pytest.raises(errors.InvalidArgumentError, match="Duplicate tag x found"):
            sess.run(dup)
        with pytest.raises(errors.InvalidArgumentError, match="Could not parse one of"):
            sess.run(bad)


def test_scalar_shape_mismatch_and_image_rank_errors():
    s = tf.summary.scalar("s", tf.constant([1.0, 2.0]))
    img = tf.placeholder(tf.float32)
    i = tf.summary.image("i", img)
    with tf.Session() as sess:
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"tags and values not the same shape: \[\] != \[2\] \(tag 's'\)"):
            sess.run(s)
        with pytest.raises(errors.InvalidArgumentError, match="Tensor must be 4-D with last dim"):
            sess.run(i, {img: np.zeros((2, 3, 3, 2))})


def test_text_needs_strings():
    with pytest.raises(ValueError, match="to have dtype string"):
        tf.summary.text("t", tf.constant(1))


def test_old_aliases_take_tags_verbatim():
    """tf.scalar_summary / histogram_summary / image_summary / merge_summary (TF 0.x)."""
    s = tf.scalar_summary(["a/x", "a/y"], tf.constant([1.0, 2.0]))
    h = tf.histogram_summary("conv1/pre_activations", tf.constant([0.5]))
    i = tf.image_summary("pic", tf.zeros([1, 2, 2, 1]), max_images=1)
    m = tf.merge_all_summaries()
    assert (s.op.name, h.op.name, i.op.name) == ("ScalarSummary", "HistogramSummary",
                                                 "ImageSummary")
    # TF 0.x opened a "MergeSummary" scope around an op of the default name.
    assert m.op.name == "MergeSummary/MergeSummary" and m.op.type == "MergeSummary"
    with tf.Session() as sess:
        merged = summary_pb2.Summary.FromString(sess.run(m))
    assert [v.tag for v in merged.value] == ["a/x", "a/y", "conv1/pre_activations",
                                             "pic/image"]
    assert tf.merge_summary([s]).op.type == "MergeSummary"


def test_get_summary_description_reads_the_json_attr():
    node = tf.NodeDef(name="t", op="TensorSummary")
    node.attr["description"].s = b'{"type_hint": "scalar"}'
    assert tf.summary.get_summary_description(node).type_hint == "scalar"
    with pytest.raises(ValueError, match="Can't get_summary_description on Const"):
        tf.summary.get_summary_description(tf.NodeDef(name="c", op="Const"))


@settings(max_examples=60, deadline=None)
@given(data=st.lists(st.binary(max_size=40), min_size=1, max_size=3))
def test_fuzz_merge_summary_of_arbitrary_bytes(data):
    g = tf.Graph()
    with g.as_default():
        merged = tf.summary.merge([tf.constant(d) for d in data])
        with tf.Session() as sess:
            try:
                out = sess.run(merged)
            except errors.InvalidArgumentError as e:
                assert "Could not parse" in e.message or "Duplicate tag" in e.message
                return
    summary_pb2.Summary.FromString(out)
