"""flowloom's feature columns against TF 1.15's outputs for the same cases
(tests/data/record_feature_columns.py): hash and cross buckets bit-exact, layer outputs to
1e-6, variable names and shapes equal."""

import json
import os

import numpy as np
import pytest

import flowloom as tf
from tests.feature_column import fc_cases

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                    "feature_column_tf.json")
_DATA = json.load(open(DATA))
RECORDED = _DATA["cases"]


def _decode(entry):
    if entry["dtype"] == "string":
        return np.array([v.encode("utf-8") for v in entry["values"]],
                        dtype=object).reshape(entry["shape"])
    return np.array(entry["values"], dtype=entry["dtype"]).reshape(entry["shape"])


def test_every_case_is_recorded():
    assert sorted(RECORDED) == sorted(fc_cases.CASES)


@pytest.mark.parametrize("name", sorted(fc_cases.CASES))
def test_case_matches_tf(name):
    want = RECORDED[name]
    values, variables, extra = fc_cases.run(tf, fc_cases.CASES[name])
    assert variables == want["variables"]
    assert json.loads(json.dumps(extra)) == want["extra"]
    assert sorted(values) == sorted(want["values"])
    for key, got in values.items():
        expected = _decode(want["values"][key])
        got = np.asarray(got)
        assert got.shape == expected.shape, key
        if expected.dtype == object or np.issubdtype(expected.dtype, np.integer):
            np.testing.assert_array_equal(got, expected, err_msg=key)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6, err_msg=key)


def test_errors_have_tf_classes():
    assert fc_cases.record_errors(tf) == _DATA["errors"]


@pytest.mark.parametrize("call,words", [
    (lambda fc: fc.categorical_column_with_hash_bucket("clicks", 0), ["clicks"]),
    (lambda fc: fc.categorical_column_with_vocabulary_list("colour", ["a", "a"]), ["colour"]),
    (lambda fc: fc.numeric_column("price", dtype=tf.string), ["price"]),
    (lambda fc: fc.input_layer({"kw": tf.constant([["a"]])},
                               [fc.categorical_column_with_hash_bucket("kw", 3)]), ["kw"]),
    (lambda fc: fc.input_layer({"x": tf.constant([[1.]])}, [fc.numeric_column("age")]),
     ["age"]),
])
def test_errors_name_the_column(call, words):
    with pytest.raises(ValueError) as info:
        call(tf.feature_column)
    for word in words:
        assert word in str(info.value)
