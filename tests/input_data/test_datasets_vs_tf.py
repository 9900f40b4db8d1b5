"""tf.data pipelines yield what TensorFlow 1.15 yields (tests/data/datasets_tf1.json)."""

import json
import os
import sys

import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
sys.path.insert(0, DATA)
import dataset_programs  # noqa: E402

with open(os.path.join(DATA, "datasets_tf1.json")) as f:
    RECORDED = json.load(f)["programs"]
with open(os.path.join(DATA, "datasets_tf2.json")) as f:
    RECORDED_TF2 = json.load(f)["programs"]  # the shuffle_* programs on TF 2.x compat.v1


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_pipeline_yields_tfs_elements(name, tmp_path, monkeypatch):
    monkeypatch.setenv("FLOWLOOM_SEED_RULES", "1")  # TF 1.15's op seeds under a graph seed
    assert dataset_programs.run(tf, name, str(tmp_path)) == RECORDED[name]


@pytest.mark.parametrize("name", sorted(RECORDED_TF2))
def test_shuffle_follows_tf2_by_default(name, tmp_path, monkeypatch):
    monkeypatch.setenv("FLOWLOOM_SEED_RULES", "2")  # TF 2.x's rules (flowloom's default)
    assert dataset_programs.run(tf, name, str(tmp_path)) == RECORDED_TF2[name]
