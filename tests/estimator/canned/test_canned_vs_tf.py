"""flowloom's canned estimators against TF 1.15's (tests/data/record_canned.py): TF's
checkpoints restore into flowloom's estimators, which predict and evaluate the same (1e-5) and
resume training; flowloom's estimators create TF's variables and checkpoint names. With
FLOWLOOM_TF1_PYTHON set, TF 1.15's canned estimators also restore flowloom's checkpoints and
predict the same (live)."""

import json
import os
import shutil

import numpy as np
import pytest

import flowloom as tf
from tests.estimator.canned import canned_cases
from tests.tf_reference import skip_reason, tensorflow_python

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))), "data")
RECORDED = json.load(open(os.path.join(DATA, "canned_tf.json")))
CASES = sorted(canned_cases.CASES)
RESUMED = ("dnn_classifier", "dnn_regressor", "linear_classifier", "wide_deep_classifier")


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
def test_checkpoints_have_tfs_names_and_tf_checkpoints_resume(name, tmp_path):
    # flowloom's estimators create TF's variables, and their checkpoints hold exactly TF's
    # names (optimizer slots included) ...
    est, label_key = _estimator(name, str(tmp_path / "fresh"))
    est.train(canned_cases.input_fn(tf, label_key), steps=1)
    assert canned_cases.model_variables(est) == RECORDED["cases"][name]["variables"]
    assert sorted(est.get_variable_names()) == RECORDED["cases"][name]["all_variables"]
    # ... and training resumes from TF's checkpoint, slots and all (one case per slot naming:
    # t_0/Adagrad, Adam's beta powers, part_0/Ftrl, plain).
    if name not in RESUMED:
        return
    model_dir = str(tmp_path / "resumed")
    shutil.copytree(os.path.join(DATA, "canned_ckpt", name), model_dir)
    est, label_key = _estimator(name, model_dir)
    est.train(canned_cases.input_fn(tf, label_key), steps=1)
    assert est.get_variable_value("global_step") == RECORDED["steps"] + 1


_TF_PREDICT = r"""
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[3])
import tensorflow as tf
tf.logging.set_verbosity(tf.logging.ERROR)
from tests.estimator.canned import canned_cases
est, _ = canned_cases.CASES[sys.argv[1]](tf, sys.argv[2], tf.estimator.RunConfig(tf_random_seed=1))
out = canned_cases.predictions_of(est, tf)
print(json.dumps({k: np.asarray(v).tolist() for k, v in out.items()
                  if np.asarray(v).dtype.kind in "fiu"}))
"""


@pytest.mark.skipif(not tensorflow_python("FLOWLOOM_TF1_PYTHON"),
                    reason=skip_reason("FLOWLOOM_TF1_PYTHON"))
@pytest.mark.parametrize("name", CASES)
def test_flowloom_checkpoint_predicts_the_same_in_tf(name, tmp_path):
    import subprocess

    model_dir = str(tmp_path / name)
    est, label_key = _estimator(name, model_dir)
    est.train(canned_cases.input_fn(tf, label_key), steps=3)
    ours = canned_cases.predictions_of(est, tf)
    root = os.path.dirname(os.path.dirname(DATA))
    run = subprocess.run([tensorflow_python("FLOWLOOM_TF1_PYTHON"), "-c", _TF_PREDICT, name,
                          model_dir, root], capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    assert run.returncode == 0, run.stderr[-2000:]
    theirs = json.loads(run.stdout.strip().splitlines()[-1])
    assert theirs
    for key, value in theirs.items():
        np.testing.assert_allclose(ours[key], value, rtol=1e-5, atol=1e-5, err_msg=key)
