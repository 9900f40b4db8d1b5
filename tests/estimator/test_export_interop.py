"""Estimator files across frameworks: the SavedModels TF 1.15's Estimator exported (tests/data/
estimator_savedmodels, made by tests/data/record_estimator_savedmodel.py) serve in flowloom what
they served in TF; a TF Estimator's model_dir evaluates and trains on in flowloom as in TF; one
flowloom's Estimator exports serves in TF what it serves in flowloom (live, where
FLOWLOOM_TF1_PYTHON names a TF 1.15 Python)."""

import json
import os
import subprocess
import sys

import pytest

import flowloom as tf

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
MODELS = os.path.join(DATA, "estimator_savedmodels")
sys.path.insert(0, DATA)
import estimator_programs as programs  # noqa: E402
from tests.estimator.test_against_tf import _close  # noqa: E402

with open(os.path.join(MODELS, "outputs.json")) as f:
    TF_OUTPUTS = json.load(f)


@pytest.mark.parametrize("kind", ["raw", "parsing"])
def test_tf_estimator_export_serves_the_same_in_flowloom(kind):
    got = json.loads(json.dumps(programs.serve(tf, os.path.join(MODELS, kind), kind)))
    _close(got, TF_OUTPUTS[kind])


def test_tf_estimator_model_dir_evaluates_and_resumes_in_flowloom():
    got = json.loads(json.dumps(programs.resume_from_model_dir(
        tf, os.path.join(MODELS, "model_dir"))))
    _close(got, TF_OUTPUTS["model_dir"])


def test_flowloom_estimator_export_serves_the_same_in_tf(tmp_path):
    python = os.environ.get("FLOWLOOM_TF1_PYTHON")
    if not python:
        pytest.skip("FLOWLOOM_TF1_PYTHON is not set (a TF 1.15 Python to load the export in)")
    est = tf.estimator.Estimator(programs.export_model_fn(tf), model_dir=str(tmp_path / "m"))
    est.train(programs._input_fn(tf), steps=3)
    ours = {}
    paths = {}
    for kind, fn in programs.serving_receivers(tf).items():
        paths[kind] = est.export_saved_model(str(tmp_path / "export"), fn).decode()
        ours[kind] = json.loads(json.dumps(programs.serve(tf, paths[kind], kind)))
    script = ("import json, sys; sys.path.insert(0, %r); import tensorflow as tf; "
              "import estimator_programs as p; "
              "print(json.dumps({k: p.serve(tf, v, k) for k, v in json.loads(sys.argv[1]).items()}))"
              % DATA)
    run = subprocess.run([python, "-c", script, json.dumps(paths)], capture_output=True,
                         text=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"), timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    theirs = json.loads(run.stdout.strip().splitlines()[-1])
    _close(theirs, ours)
    # And both match what TF's own Estimator exported.
    _close(ours, {k: TF_OUTPUTS[k] for k in ours})


def test_flowloom_estimator_model_dir_evaluates_and_resumes_in_tf(tmp_path):
    python = os.environ.get("FLOWLOOM_TF1_PYTHON")
    if not python:
        pytest.skip("FLOWLOOM_TF1_PYTHON is not set (a TF 1.15 Python to resume in)")
    md = str(tmp_path / "m")
    est = tf.estimator.Estimator(programs.export_model_fn(tf), model_dir=md)
    est.train(programs._input_fn(tf), steps=3)
    ours = json.loads(json.dumps(programs.resume_from_model_dir(tf, md)))
    script = ("import json, sys; sys.path.insert(0, %r); import tensorflow as tf; "
              "import estimator_programs as p; "
              "print(json.dumps(p.resume_from_model_dir(tf, sys.argv[1])))" % DATA)
    run = subprocess.run([python, "-c", script, md], capture_output=True, text=True,
                         env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"), timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    _close(json.loads(run.stdout.strip().splitlines()[-1]), ours)
