"""TF1 programs' import paths for feature columns, lookup tables and canned estimators."""

import importlib
import sys

import pytest

import flowloom
from flowloom.compat import importer


@pytest.fixture
def as_tensorflow():
    if "tensorflow" in sys.modules and sys.modules["tensorflow"] is not flowloom:
        pytest.skip("the real TensorFlow is imported in this process")
    flowloom.install_as_tensorflow()
    yield
    importer.uninstall()


def test_feature_column_lookup_and_canned_paths(as_tensorflow):
    import tensorflow.feature_column as fc
    from tensorflow.contrib import lookup
    from tensorflow.python.estimator.canned import dnn
    from tensorflow.python.feature_column import feature_column
    from tensorflow.python.ops import lookup_ops

    assert fc is flowloom.feature_column and feature_column is flowloom.feature_column
    assert lookup.index_table_from_tensor is lookup_ops.index_table_from_tensor
    assert dnn.DNNClassifier is flowloom.estimator.DNNClassifier
    assert importlib.import_module("tensorflow.lookup") is flowloom.lookup
