"""tf.parse_single_sequence_example and tf.io.parse_sequence_example (ParseSingleSequenceExample,
ParseSequenceExample) observe what TF 1.15 observed (tests/data/sequence_example_tf.json, made
by tests/data/record_sequence_example.py)."""

import json
import os
import sys
import types

import flowloom as tf
from flowloom.proto import example_pb2, feature_pb2

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import sequence_example_programs  # noqa: E402

with open(os.path.join(DATA, "sequence_example_tf.json")) as f:
    EXPECTED = json.load(f)

PB = types.SimpleNamespace(**{n: getattr(feature_pb2, n) for n in (
    "Feature", "Features", "FeatureList", "FeatureLists", "FloatList", "Int64List",
    "BytesList")}, SequenceExample=example_pb2.SequenceExample)


def test_program_matches_tf():
    got = json.loads(json.dumps(sequence_example_programs.program(tf, PB)))
    for key in EXPECTED:
        assert got[key] == EXPECTED[key], key
