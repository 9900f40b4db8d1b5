"""TFRecord files that end inside a record, against TF 1.15 (record_ends_tf1.json): a partial
header (1-11 bytes) is a clean end of file for every reader; a whole header with missing data
or footer is DataLossError('truncated record at N'), after the whole records."""

import json
import os
import sys

import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
sys.path.insert(0, DATA)
import record_end_cases  # noqa: E402

RECORDED = json.load(open(os.path.join(DATA, "record_ends_tf1.json")))["cases"]


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    return record_end_cases.observe(tf, str(tmp_path_factory.mktemp("ends")))


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_record_end_as_tensorflow(observed, case):
    assert observed[case] == RECORDED[case]
