"""flowloom's canned estimators against TF 1.15's (tests/data/record_canned.py): TF's
checkpoints restore into flowloom's estimators, which predict and evaluate the same (1e-5);
flowloom's estimators create TF's variable names and shapes."""

import json
import os
import shutil

import numpy as np
import pytest

import flowloom as tf
from tests.estimator.canned import canned_cases

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))), "data")
RECORDED = json.load(open(os.path.join(DATA, "canned_tf.json")))
CASES = sorted(canned_cases.CASES)


def _decode(entry):
    if entry["dtype"] == "string":
        return np.array([v.encode() for v in entry["values"]], dtype=object).reshape(
            entry["shape"])
    return np.array(entry["values"], dtype=entry["dtype"]).reshape(entry["shape"])


def _estimator(name, model_dir):
    config = tf.estimator.RunConfig(tf_random_seed=1)
    return canned_cases.CASES[name](tf, model_dir, config)


def test_every_case_is_recorded():
    assert sorted(RECORDED["cases"]) == CASES


@pytest.mark.parametrize("name", CASES)
def test_tf_checkpoint_predicts_and_evaluates_the_same(name, tmp_path):
    model_dir = str(tmp_path / name)
    shutil.copytree(os.path.join(DATA, "canned_ckpt", name), model_dir)
    est, label_key = _estimator(name, model_dir)
    want = RECORDED["cases"][name]
    got = canned_cases.predictions_of(est, tf)
    assert sorted(got) == sorted(want["predictions"])
    for key, value in got.items():
        expected = _decode(want["predictions"][key])
        if expected.dtype == object:
            np.testing.assert_array_equal(np.asarray(value, dtype=object), expected)
        else:
            np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-5, err_msg=key)
    metrics = est.evaluate(canned_cases.input_fn(tf, label_key), steps=1)
    assert sorted(metrics) == sorted(want["metrics"])
    for key, value in metrics.items():
        np.testing.assert_allclose(float(value), want["metrics"][key], rtol=1e-5, atol=1e-5,
                                   err_msg=key)


@pytest.mark.parametrize("name", CASES)
def test_variable_names_and_shapes_are_tfs(name, tmp_path):
    est, label_key = _estimator(name, str(tmp_path / name))
    est.train(canned_cases.input_fn(tf, label_key), steps=1)
    assert canned_cases.model_variables(est) == RECORDED["cases"][name]["variables"]
