"""Canned estimators given a partitioner (DNN's input_layer_partitioner, Linear's partitioner):
their checkpoints hold the names and shapes TF 1.15's do, and flowloom predicts from TF's
checkpoint what TF predicts (tests/data/record_partitioned_estimators.py recorded TF)."""

import json
import os
import shutil
import sys

import numpy as np
import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
RECORDED = os.path.join(DATA, "partitioned_estimators")
sys.path.insert(0, DATA)

import partitioned_estimator_cases as cases  # noqa: E402

with open(os.path.join(RECORDED, "tf.json")) as _f:
    TF = json.load(_f)


@pytest.mark.parametrize("case", cases.CASES)
def test_checkpoint_names_and_shapes_are_tf_s(case, tmp_path):
    estimator = cases.make(tf, case, str(tmp_path))
    estimator.train(cases.input_fn(tf), steps=3)
    reader = tf.train.NewCheckpointReader(tf.train.latest_checkpoint(str(tmp_path)))
    # The partitioned weights are stored as slices of their full names, and the slots under
    # the names TF's slot_creator gives them (".../t_0/Adagrad", ".../part_0/Ftrl").
    assert {k: list(v) for k, v in reader.get_variable_to_shape_map().items()} == \
        TF[case]["checkpoint"]


@pytest.mark.parametrize("case", cases.CASES)
def test_predicts_from_tf_s_partitioned_checkpoint(case, tmp_path):
    for name in os.listdir(os.path.join(RECORDED, case)):
        shutil.copy(os.path.join(RECORDED, case, name), str(tmp_path))
    prefix = str(tmp_path / "model.ckpt-3")
    estimator = cases.make(tf, case, str(tmp_path / "model"))
    got = [p["probabilities"] for p in estimator.predict(cases.input_fn(tf, repeat=False),
                                                         checkpoint_path=prefix)]
    np.testing.assert_allclose(got, TF[case]["probabilities"], rtol=1e-5, atol=1e-6)
