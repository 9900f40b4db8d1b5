"""Segment reductions and the other math ops of TF 1.15's kernel tests give what TF 1.15
gave (tests/data/tfmath_tf.json, made by tests/data/record_tfmath.py from
tests/data/tfmath_programs.py): values, static shapes, error classes and messages."""

import json
import os
import sys

import numpy as np
import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import tfmath_programs  # noqa: E402

with open(os.path.join(DATA, "tfmath_tf.json")) as f:
    EXPECTED = json.load(f)
GOT = {}


def _close(got, want):
    if isinstance(want, list) and len(want) == 2 and want[0] == "ValueError" and got and \
            got[0] == "ValueError":
        # build-time errors: TF 1.15 and flowloom word the node context differently
        return got[1].split(" for '")[0] == want[1].split(" for '")[0]
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want):
        return all(_close(g, w) for g, w in zip(got, want))
    if isinstance(want, float) and isinstance(got, (int, float)):
        return bool(np.isclose(got, want, rtol=1e-5, atol=1e-6)) or got == want
    return got == want


def _program(section):
    if section not in GOT:
        GOT[section] = json.loads(json.dumps(getattr(tfmath_programs, section + "_program")(tf)))
    return GOT[section]


@pytest.mark.parametrize("key", sorted(EXPECTED["segment"]))
def test_segment_ops_match_tf(key):
    got = _program("segment")[key]
    assert _close(got, EXPECTED["segment"][key]), (got, EXPECTED["segment"][key])


@pytest.mark.parametrize("key", sorted(EXPECTED["metrics"]))
def test_metrics_match_tf(key):
    got = _program("metrics")[key]
    assert _close(got, EXPECTED["metrics"][key]), (got, EXPECTED["metrics"][key])


@pytest.mark.parametrize("key", sorted(EXPECTED["math"]))
def test_math_ops_match_tf(key):
    got = _program("math")[key]
    assert _close(got, EXPECTED["math"][key]), (got, EXPECTED["math"][key])
