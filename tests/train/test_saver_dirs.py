"""Saver.save into folders that do not exist, against TF (tests/data/saver_dirs_tf.json)."""

import json
import os
import sys

import flowloom as tf

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
sys.path.insert(0, DATA)
import saver_dir_cases  # noqa: E402


def test_save_into_missing_folders_as_tensorflow(tmp_path, monkeypatch):
    want = json.load(open(os.path.join(DATA, "saver_dirs_tf.json")))["cases"]
    monkeypatch.chdir(tmp_path)
    assert saver_dir_cases.observe(tf, str(tmp_path)) == want
