"""tf.image values and gradients equal TF's, recorded from TF 2.21 (tests/data/image_tf2.npz)
and TF 1.15 (image_tf1.npz) by tests/data/record_image.py."""

import json
import os

import numpy as np
import pytest

import flowloom as tf
from tests.ops import image_cases

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")

# Where the two TF releases differ, flowloom follows TF 2.x.
TF1_DIFFERS = {
    "standardization": "TF 1.15 rescales non-float images and casts back; TF 2.x casts",
    "nms_iou_tie": "TF 1.15 drops a box whose IoU equals the threshold; TF 2.x keeps it",
    "convert_int16": "TF 1.15 casts the negative quotient -256 to uint8 as 255; TF 2.x as 0",
}


def _recorded(major):
    with np.load(os.path.join(DATA, f"image_tf{major}.npz")) as f:
        return {k: f[k] for k in f.files}


@pytest.mark.parametrize("major", ["2", "1"])
@pytest.mark.parametrize("case", sorted(image_cases.CASES))
def test_case_matches_tf(case, major, monkeypatch):
    if major == "1":
        monkeypatch.setenv("FLOWLOOM_SEED_RULES", "1")
    recorded = _recorded(major)
    keys = sorted(k for k in recorded if k.startswith(case + "/"))
    assert keys, f"TF {major} did not record {case} (see the recorder's output)"
    got, n_out = image_cases.run_case(tf, image_cases.CASES[case])
    assert len(got) == len(keys), case
    if major == "1" and case in TF1_DIFFERS:
        pytest.skip(f"TF 1.15 differs from TF 2.x here: {TF1_DIFFERS[case]}")
    for i, value in enumerate(got):
        key = f"{case}/out{i}" if i < n_out else f"{case}/grad{i - n_out}"
        want = recorded[key]
        value = np.asarray(value)
        assert value.dtype == want.dtype and value.shape == want.shape, key
        if case in image_cases.TOLERANCE:
            scale = 255.0 if want.dtype.kind == "f" else 1
            diff = np.abs(value.astype(np.float64) - want.astype(np.float64)) * scale
            assert diff.max() <= image_cases.TOLERANCE[case], (key, diff.max())
        elif case in image_cases.CLOSE or key.split("/")[1].startswith("grad"):
            np.testing.assert_allclose(value, want, rtol=2e-6, atol=2e-6, err_msg=key)
        else:
            np.testing.assert_array_equal(value, want, err_msg=key)


@pytest.mark.parametrize("major", ["2", "1"])
@pytest.mark.parametrize("case", sorted(image_cases.ERROR_CASES))
def test_errors_match_tf(case, major):
    with open(os.path.join(DATA, f"image_errors_tf{major}.json")) as f:
        want = json.load(f)[case]
    assert image_cases.error_of(tf, image_cases.ERROR_CASES[case]) == want
