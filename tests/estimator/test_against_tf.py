"""The estimator programs (tests/data/estimator_programs.py) observe on flowloom what TF 1.15
observed (tests/data/estimator_tf.json, made by tests/data/record_estimator.py): files in
model_dir, metric keys and values, summary tags, exported signatures, error messages."""

import json
import os
import re
import sys

import pytest

import flowloom as tf

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
sys.path.insert(0, DATA)
import estimator_programs  # noqa: E402

with open(os.path.join(DATA, "estimator_tf.json")) as f:
    EXPECTED = json.load(f)


def _close(got, want, path="$"):
    """Equal, floats to 1e-3 relative (float32 sums in another order)."""
    if isinstance(want, float) and isinstance(got, (int, float)):
        assert got == pytest.approx(want, rel=1e-3, abs=1e-4), path
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), path
        for k in want:
            _close(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (path, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{path}[{i}]")
    else:
        assert got == want, path


def _normalise(name, x):
    """Facts that differ by design: object addresses and temporary directories."""
    if isinstance(x, str):
        return re.sub(r"/tmp\S*/est_[^/\s']+", "TMP", re.sub(r" at 0x[0-9a-f]+", " at 0x", x))
    if isinstance(x, list):
        return [_normalise(name, v) for v in x]
    if isinstance(x, dict):
        return {k: _normalise(name, v) for k, v in x.items()}
    return x


@pytest.mark.parametrize("prog", estimator_programs.PROGRAMS, ids=lambda p: p.__name__)
def test_program_matches_tf(prog):
    got = json.loads(json.dumps(prog(tf), default=str))
    name = prog.__name__
    _close(_normalise(name, got), _normalise(name, EXPECTED[name]))


@pytest.mark.parametrize("prog", estimator_programs.PANDAS_PROGRAMS, ids=lambda p: p.__name__)
def test_pandas_program_matches_tf(prog):
    pytest.importorskip("pandas", reason="pandas is optional: pandas_input_fn is checked "
                                         "where it is installed")
    test_program_matches_tf(prog)
