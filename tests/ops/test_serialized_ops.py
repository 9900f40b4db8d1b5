"""ParseTensor/SerializeTensor, DecodeJSONExample and DecodePaddedRaw (found by TF 1.15's
parsing_ops_test)."""

import numpy as np
import pytest
from google.protobuf import json_format

import flowloom as tf
from flowloom.ops.parsing import serialized_ops
from flowloom.proto import example_pb2


def test_parse_and_serialize_tensor_round_trip_and_errors():
    value = np.arange(12, dtype=np.float32).reshape(3, 4)
    with tf.Graph().as_default():
        s = tf.placeholder(tf.string)
        parsed = tf.parse_tensor(s, tf.float32)
        wrong = tf.parse_tensor(s, tf.uint16)
        round_trip = tf.parse_tensor(tf.serialize_tensor(tf.constant(value)), tf.float32)
        proto = tf.make_tensor_proto(value).SerializeToString()
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(parsed, {s: proto}), value)
            np.testing.assert_array_equal(sess.run(round_trip), value)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Type mismatch between parsed tensor \(float32\) and "
                                     r"dtype \(uint16\)"):
                sess.run(wrong, {s: proto})
            with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse"):
                sess.run(parsed, {s: "bogus"})
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"scalar, got shape: \[1\]"):
                sess.run(parsed, {s: ["bogus"]})


def test_decode_json_example():
    ex = example_pb2.Example()
    ex.features.feature["a"].float_list.value.extend([1.0, 2.0])
    ex.features.feature["b"].bytes_list.value.append(b"hi")
    with tf.Graph().as_default():
        j = tf.constant([[json_format.MessageToJson(ex)], ["{}"]])
        binary = tf.decode_json_example(j)
        bad = tf.decode_json_example(tf.constant(["{]"]))
        with tf.Session() as sess:
            out = sess.run(binary)
            assert out.shape == (2, 1)
            assert example_pb2.Example.FromString(out[0, 0]) == ex
            assert example_pb2.Example.FromString(out[1, 0]) == example_pb2.Example()
            with pytest.raises(tf.errors.InvalidArgumentError, match="Error while parsing JSON"):
                sess.run(bad)


def test_decode_raw_fixed_length_pads_and_cuts():
    with tf.Graph().as_default():
        out = serialized_ops.decode_raw(tf.constant([b"ab", b"abcdef"]), tf.uint8,
                                        fixed_length=4)
        wide = serialized_ops.decode_raw(tf.constant([b"\x01\x00\x02"]), tf.int16,
                                         fixed_length=4)
        same = serialized_ops.decode_raw(tf.constant([b"xy"]), tf.uint8)
        assert out.op.type == "DecodePaddedRaw" and same.op.type == "DecodeRaw"
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(out), [[97, 98, 0, 0], [97, 98, 99, 100]])
            np.testing.assert_array_equal(sess.run(wide), [[1, 2]])
            np.testing.assert_array_equal(sess.run(same), [[120, 121]])
