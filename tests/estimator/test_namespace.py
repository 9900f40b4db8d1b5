"""tf.estimator holds TF 1.15's public names (recorded by tests/data/record_estimator.py), but
for the canned estimators and heads, which flowloom/estimator/canned provides (when there),
and the TPU names, which raise NotImplementedError."""

import json
import os
import sys

import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import estimator_programs  # noqa: E402

with open(os.path.join(DATA, "estimator_tf.json")) as f:
    TF_NAMES = json.load(f)["namespace_names"]

# Provided by the canned-estimator package (feature-column work), not by the core.
CANNED = {"BaselineClassifier", "BaselineEstimator", "BaselineRegressor", "BinaryClassHead",
          "BoostedTreesClassifier", "BoostedTreesEstimator", "BoostedTreesRegressor",
          "DNNClassifier", "DNNEstimator", "DNNLinearCombinedClassifier",
          "DNNLinearCombinedEstimator", "DNNLinearCombinedRegressor", "DNNRegressor", "Head",
          "LinearClassifier", "LinearEstimator", "LinearRegressor", "LogisticRegressionHead",
          "MultiClassHead", "MultiHead", "MultiLabelHead", "PoissonRegressionHead",
          "RegressionHead", "classifier_parse_example_spec", "regressor_parse_example_spec",
          "KMeans", "LinearSDCA", "dnn_logit_fn_builder", "linear_logit_fn_builder"}


@pytest.mark.parametrize("module", sorted(TF_NAMES))
def test_tf_names_are_there(module):
    ours = set(estimator_programs.namespace_names(tf)[module])
    missing = set(TF_NAMES[module]) - ours - CANNED
    assert not missing, f"tf.{module} lacks {sorted(missing)}"


def test_tpu_names_raise_not_implemented():
    with pytest.raises(NotImplementedError, match="TPUEstimator"):
        tf.estimator.tpu.TPUEstimator  # noqa: B018
