"""tf.test.TestCase.assertProtoEquals compares protos that differ with floats rounded to 6
decimals and doubles to 7, as TF 1.15 (tests/data/proto_equals_tf.json, made by
tests/data/record_proto_equals.py)."""

import json
import os
import sys

import pytest
from google.protobuf import text_format

import flowloom as tf
from flowloom.proto import summary_pb2

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import proto_equals_programs  # noqa: E402

with open(os.path.join(DATA, "proto_equals_tf.json")) as f:
    EXPECTED = json.load(f)

GOT = proto_equals_programs.program(tf.test.TestCase, summary_pb2, text_format)


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tf_1_15(key):
    assert GOT[key] == EXPECTED[key]


def test_the_compared_messages_are_not_changed():
    message = text_format.Parse("value { histo { bucket_limit: 9.938094902880803 } }",
                                summary_pb2.Summary())

    class T(tf.test.TestCase):
        def runTest(self):  # noqa: N802
            pass

    T().assertProtoEquals("value { histo { bucket_limit: 9.93809490288 } }", message)
    assert message.value[0].histo.bucket_limit[0] == 9.938094902880803
