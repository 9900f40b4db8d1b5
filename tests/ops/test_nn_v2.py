"""TF 1.15's `_v2` nn wrappers, the data-format ops, MaxPoolV2, max pooling across depth,
max-pooling gradients with NaN and second-order max-pooling gradients give what TF 1.15 gave
(tests/data/nn_v2_tf.json, made by tests/data/record_nn_v2.py)."""

import json
import os
import sys

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework.apply_op import apply_op
from flowloom.ops.nn import nn_v2

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import nn_v2_programs  # noqa: E402

with open(os.path.join(DATA, "nn_v2_tf.json")) as f:
    EXPECTED = json.load(f)


def _max_pool_grad_grad(x, y, g, ksize, strides, padding):
    return apply_op("MaxPoolGradGrad", (x, y, g), ksize=ksize, strides=strides,
                    padding=padding).outputs[0]


OPS = {"max_pool_v2": nn_v2.max_pool_v2, "avg_pool_v2": nn_v2.avg_pool_v2,
       "conv_transpose": nn_v2.conv_transpose, "softmax_v2": nn_v2.softmax_v2,
       "log_softmax_v2": nn_v2.log_softmax_v2, "moments_v2": nn_v2.moments_v2,
       "data_format_dim_map": nn_v2.data_format_dim_map,
       "data_format_vec_permute": nn_v2.data_format_vec_permute,
       "gen_max_pool_v2": nn_v2.max_pool_v2_op, "max_pool_grad_grad": _max_pool_grad_grad,
       "nchw": False}

GOT = json.loads(json.dumps(nn_v2_programs.program(tf, OPS)))


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_tf_1_15(key):
    want, got = EXPECTED[key], GOT[key]
    if isinstance(want, list) and want and isinstance(want[0], str):
        assert got == want  # [error class, message start]
    else:
        np.testing.assert_allclose(np.array(got, dtype=float), np.array(want, dtype=float),
                                   rtol=1e-5, atol=1e-5)


def test_nchw_max_pool_v2_is_the_nhwc_result_transposed():
    x = nn_v2_programs._grid(2, 5, 6, 3)
    with tf.Graph().as_default(), tf.Session() as s:
        nhwc = s.run(nn_v2.max_pool_v2(x, [2, 3], [2, 1], "VALID"))
        nchw = s.run(nn_v2.max_pool_v2(np.transpose(x, [0, 3, 1, 2]), [2, 3], [2, 1], "VALID",
                                       data_format="NCHW"))
    np.testing.assert_array_equal(np.transpose(nchw, [0, 2, 3, 1]), nhwc)


def test_dropout_v2_checks_rate_and_returns_x_for_zero():
    with tf.Graph().as_default():
        x = tf.zeros([5])
        assert nn_v2.dropout_v2(x, rate=0) is x
        for bad in (-1.0, 1.1, [0.0, 1.0]):
            with pytest.raises(ValueError):
                nn_v2.dropout_v2(x, bad)
        with pytest.raises(ValueError):  # keep_prob a list (TF 1.15: ValueError)
            tf.nn.dropout(x, [0.0, 1.0])
        with pytest.raises(ValueError):  # rate of another float type
            tf.nn.dropout(x, tf.placeholder(tf.float64))


def test_softmax_along_an_axis_known_only_at_run_time():
    with tf.Graph().as_default(), tf.Session() as s:
        x = tf.constant(np.arange(6.0).reshape(2, 3))
        for axis in (0, -2):
            dynamic = tf.placeholder_with_default(axis, shape=[])
            np.testing.assert_allclose(s.run(tf.nn.softmax(x, axis=dynamic)),
                                       s.run(tf.nn.softmax(x, axis=axis)))
            np.testing.assert_allclose(s.run(tf.nn.log_softmax(x, axis=dynamic)),
                                       s.run(tf.nn.log_softmax(x, axis=axis)))
        # As TF 1.15: out of range, and (its transposes' range) the last axis, fail at run time.
        for axis in (100, 1):
            with pytest.raises(tf.errors.InvalidArgumentError):
                s.run(tf.nn.softmax(x, axis=tf.placeholder_with_default(axis, shape=[])))
