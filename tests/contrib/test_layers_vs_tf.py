"""tf.contrib.layers / slim programs against what TensorFlow 1.15 built and computed
(tests/data/record_contrib.py): variable names and shapes, collections, the op names of the
layers' main ops, outputs, gradients, and the variables after the update ops."""

import gzip
import json
import os

import numpy as np
import pytest

import flowloom as tf
from tests.contrib import programs

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
VALUES = np.load(os.path.join(DATA, "contrib_tf.npz"), allow_pickle=False)
with gzip.open(os.path.join(DATA, "contrib_tf.json.gz"), "rt") as _f:
    META = json.load(_f)

# The op types users name (fetches, checkpoints, summaries): compared by name. The helper ops
# TF builds around them (shape arithmetic of conv2d_transpose, SpaceToBatchND for dilations,
# reshapes inside fused batch norm) are not.
MAIN_TYPES = {"VariableV2", "MatMul", "BiasAdd", "Conv2D", "Conv2DBackpropInput", "MaxPool",
              "AvgPool", "Relu", "Relu6", "Tanh", "Sigmoid", "Elu", "OneHot", "L2Loss",
              "AssignSub", "GatherV2", "Placeholder"}


def _main_ops(listing):
    return sorted([n, t] for n, t in listing if t in MAIN_TYPES and not n.startswith("gradients"))


@pytest.fixture(scope="module")
def runs():
    return {}


def _run(runs, name):
    if name not in runs:
        runs[name] = programs.run_program(tf, name)
    return runs[name]


@pytest.mark.parametrize("name", sorted(programs.PROGRAMS))
def test_variables_and_collections_as_tf(runs, name):
    _, variables, collections, _ = _run(runs, name)
    want = META["programs"][name]
    assert variables == want["variables"]
    assert collections == want["collections"]


@pytest.mark.parametrize("name", sorted(programs.PROGRAMS))
def test_main_op_names_as_tf(runs, name):
    listing, _, _, _ = _run(runs, name)
    assert _main_ops(listing) == _main_ops(META["programs"][name]["ops"])


@pytest.mark.parametrize("name", sorted(programs.PROGRAMS))
def test_values_and_gradients_equal_tf(runs, name):
    _, _, _, got = _run(runs, name)
    keys = {k[len(name) + 1:] for k in VALUES.files if k.startswith(name + "/")}
    assert set(got) == keys
    for k, v in got.items():
        np.testing.assert_allclose(v, VALUES[name + "/" + k], rtol=2e-5, atol=2e-5, err_msg=k)
