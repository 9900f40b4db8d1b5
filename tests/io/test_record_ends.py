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


# TF 1.15's own bug, not followed: a compressed file shorter than its header is an
# InternalError that calls itself "an implementation error"; flowloom yields no records.
TF_BUGS = {f"FixedLengthRecordDataset shorter_than_header {c}" for c in ("GZIP", "ZLIB")}


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    directory = str(tmp_path_factory.mktemp("ends"))
    out = record_end_cases.observe(tf, directory)
    out.update(record_end_cases.observe_fixed_and_text(tf, directory))
    return out


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_record_end_as_tensorflow(observed, case):
    if case in TF_BUGS:
        assert RECORDED[case][0].startswith("InternalError") and observed[case] == []
    else:
        assert observed[case] == RECORDED[case]
