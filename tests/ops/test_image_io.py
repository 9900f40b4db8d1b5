"""ReadFile / WriteFile and the tf.image functions of TF 1.15's image_ops_test give what
TF 1.15 gave (tests/data/image_io_tf1.json, made by tests/data/record_image_io.py)."""

import json
import os
import sys

import numpy as np
import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import image_io_ops  # noqa: E402
import image_io_programs  # noqa: E402

with open(os.path.join(DATA, "image_io_tf1.json")) as f:
    EXPECTED = json.load(f)

# Cases compared within a tolerance (floating-point formulas computed in another order).
CLOSE = {key: 1e-4 for key in ("ssim", "ssim_uint8", "ssim_filter7", "ssim_broadcast",
                                "ms_ssim", "ms_ssim_unweighted", "psnr")}
# Resampled values (0..255) summed in another order: float32 rounding.
CLOSE.update({key: 2e-3 for key in ("resize_v2", "scale_and_translate", "resize_with_pad")})


def _tolerance(key):
    return next((v for k, v in CLOSE.items() if key == k or key.startswith(k + "_")), 1e-5)


@pytest.fixture(scope="module")
def got(tmp_path_factory):
    work = str(tmp_path_factory.mktemp("image_io"))
    result = image_io_programs.program(tf, image_io_ops.flowloom_ops(), work)
    return json.loads(json.dumps(result).replace(work, "WORKDIR"))


def _core(message):
    # TF's build-time messages end in " for 'Op' (op: ...)"; flowloom's name the op the same
    # way: compare the part before it.
    return message.split(" for '")[0]


def _same(got, want, atol):
    if isinstance(want, dict) and "error" in want:
        assert isinstance(got, dict) and got.get("error") == want["error"], got
        assert _core(got["message"]) == _core(want["message"])
    elif isinstance(want, dict) and "values" in want:
        assert got["dtype"] == want["dtype"] and got["shape"] == want["shape"]
        np.testing.assert_allclose(got["values"], want["values"], atol=atol, rtol=0)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), got
        for k in want:
            _same(got[k], want[k], atol)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), got
        for g, w in zip(got, want):
            _same(g, w, atol)
    elif isinstance(want, float):
        np.testing.assert_allclose(got, want, atol=atol, rtol=0)
    else:
        assert got == want


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tf_1_15(got, key):
    _same(got[key], EXPECTED[key], _tolerance(key))
