"""tf.contrib checks against TensorFlow 1.15's recorded behaviour (tests/contrib/cases.py):
error classes and messages, initializer statistics and op names, default layer names."""

import gzip
import json
import os
import re

import numpy as np
import pytest

import flowloom as tf
from tests.contrib import cases

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
VALUES = np.load(os.path.join(DATA, "contrib_tf.npz"), allow_pickle=False)
with gzip.open(os.path.join(DATA, "contrib_tf.json.gz"), "rt") as _f:
    META = json.load(_f)


def _case(name):
    g = tf.Graph()
    with g.as_default():
        return cases.CASES[name](tf)


def test_errors_as_tf():
    got, _ = _case("errors")
    want = META["cases"]["errors"]
    assert set(got) == set(want)
    for key, value in got.items():
        if key == "vs_mode":
            # TF passes the format string and the mode as two arguments (its message is a
            # tuple); flowloom formats it.
            assert value[0] == want[key][0] and "Unknown mode FAN_X" in value[1]
        elif key == "flatten_unknown_rank":
            # The layer name in TF's message comes from a per-graph counter of Keras layer
            # names that other programs in the recording process advanced.
            assert value[0] == want[key][0]
            assert re.sub(r"flatten_\d+", "flatten", value[1]) == \
                re.sub(r"flatten_\d+", "flatten", want[key][1])
        else:
            assert value == want[key], key


def test_initializer_statistics_and_ops_as_tf():
    got, arrays = _case("initializers")
    assert got["ops"] == META["cases"]["initializers"]["ops"]
    for key, (lo, hi, mean, std) in arrays.items():
        t_lo, t_hi, t_mean, t_std = VALUES["initializers/" + key]
        loose = 0.1 if key.startswith("scalar") else 0.03
        assert abs(std - t_std) <= loose * t_std, key
        assert abs(mean - t_mean) <= loose * t_std, key
        assert abs(lo - t_lo) <= loose * t_std * 3 and abs(hi - t_hi) <= loose * t_std * 3, key


def test_default_names_and_global_step_as_tf():
    got, _ = _case("names")
    want = META["cases"]["names"]
    assert got["variables"] == want["variables"]
    assert got["model_variables"] == want["model_variables"]
    assert got["step"] == want["step"]
    # Output names of the layers whose last op flowloom builds as TF does.
    for (name, shape), (t_name, t_shape) in zip(got["outputs"], want["outputs"]):
        assert shape == t_shape, t_name
        if not t_name.startswith(("Dropout/", "BatchNorm")):
            assert name == t_name


def test_framework_variable_helpers_as_tf():
    got, _ = _case("framework")
    assert got == META["cases"]["framework"]


def test_arg_scope_as_tf():
    got, _ = _case("arg_scopes")
    assert got == META["cases"]["arg_scopes"]


def test_vocabulary_processor_as_tf(tmp_path):
    got, arrays = _case("vocabulary")
    assert got == META["cases"]["vocabulary"]
    for key, value in arrays.items():
        np.testing.assert_array_equal(value, VALUES["vocabulary/" + key])
    pre = tf.contrib.learn.preprocessing
    vp = pre.VocabularyProcessor(4, min_frequency=1)
    vp.fit(["a b a c", "b d"])
    path = str(tmp_path / "vocab")
    vp.save(path)
    back = pre.VocabularyProcessor.restore(path)
    assert [list(x) for x in back.transform(["a b c d e"])] == \
        [list(x) for x in vp.transform(["a b c d e"])]
    with open(path + "_pickle", "wb") as f:
        f.write(b"\x80\x04\x95")  # a pickle header: refused, never unpickled
    with pytest.raises(ValueError, match="not a VocabularyProcessor saved by flowloom"):
        pre.VocabularyProcessor.restore(path + "_pickle")


def test_contrib_modules_not_provided_are_named():
    with pytest.raises(NotImplementedError, match="tf.contrib.bayesflow is not provided"):
        tf.contrib.bayesflow  # noqa: B018
    assert not hasattr(tf.contrib, "keras")
    with pytest.raises(AttributeError, match="no attribute 'no_such_module'"):
        tf.contrib.no_such_module  # noqa: B018
    with pytest.raises(NotImplementedError, match="tf.contrib.learn.Estimator"):
        tf.contrib.learn.Estimator  # noqa: B018
