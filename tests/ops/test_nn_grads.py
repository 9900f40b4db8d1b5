"""Second derivatives of the activations and of the depthwise convolution, cross-entropy
shape inference and kernel errors, tf.losses' squeezing and the gradient checker at a
Fortran-ordered point give what TF 1.15 gave (tests/data/nn_grad_tf.json, made by
tests/data/record_nn_grad.py)."""

import json
import os
import sys

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_versions import set_producer_version
from flowloom.test import gradient_checker

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import nn_grad_programs  # noqa: E402

with open(os.path.join(DATA, "nn_grad_tf.json")) as f:
    EXPECTED = json.load(f)


def _xent(features, labels):
    return apply_op("SoftmaxCrossEntropyWithLogits", (features, labels)).outputs


def _bn_global(t, m, v, beta, gamma, variance_epsilon, scale_after_normalization):
    return apply_op("BatchNormWithGlobalNormalization", (t, m, v, beta, gamma),
                    variance_epsilon=variance_epsilon,
                    scale_after_normalization=scale_after_normalization).outputs[0]


OPS = {"xent": _xent, "gradient_error": gradient_checker.compute_gradient_error,
       "bn_global": _bn_global, "set_producer_version": set_producer_version}
GOT = json.loads(json.dumps(nn_grad_programs.program(tf, OPS)))


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tf_1_15(key):
    want, got = EXPECTED[key], GOT[key]
    if isinstance(want, list) and want and isinstance(want[0], str):
        # [error class, message start]; TF prints the PreventGradient reason as bytes.
        assert got[0] == want[0] and got[1][:38] == want[1][:38]
    elif key.startswith(("depthwise_second", "fused_second", "global_norm", "weighted")):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-4)
    elif key == "xent_broadcast":
        np.testing.assert_allclose(got[0], want[0], atol=1e-5)
        np.testing.assert_allclose(got[1], want[1], atol=1e-5)
        assert got[2] == want[2]
    else:
        np.testing.assert_allclose(np.array(got, dtype=float), np.array(want, dtype=float),
                                   rtol=1e-5, atol=1e-5)
