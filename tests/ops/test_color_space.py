"""tf.image's RGB <-> YIQ / YUV conversions and resize_image_with_pad_v1 give what TF 1.15
gave (tests/data/color_space_tf.json, made by tests/data/record_color_space.py)."""

import json
import os
import sys

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.image import image_ops

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import color_space_programs  # noqa: E402

with open(os.path.join(DATA, "color_space_tf.json")) as f:
    EXPECTED = json.load(f)

GOT = json.loads(json.dumps(color_space_programs.program(
    tf, {"pad_v1": image_ops.resize_image_with_pad_v1})))


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tf_1_15(key):
    want, got = EXPECTED[key], GOT[key]
    if key.startswith("one_image"):
        np.testing.assert_allclose(got, want, atol=1e-5)
    else:
        np.testing.assert_allclose(got[0], want[0], atol=1e-5)
        assert got[1] == want[1]
