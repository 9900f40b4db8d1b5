"""tf.repeat, ConjugateTranspose, GuaranteeConst, Snapshot, EuclideanNorm, reductions over no
axes, reduced_shape and build-time checks observe what TF 1.15 observed
(tests/data/array_extra_tf.json, made by tests/data/record_array_extra.py)."""

import json
import os
import sys

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.array import array_extra_ops
from flowloom.ops.math.reduction_ops import reduced_shape
from flowloom.test import gradient_checker

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import array_extra_programs  # noqa: E402

with open(os.path.join(DATA, "array_extra_tf.json")) as f:
    EXPECTED = json.load(f)


def test_program_matches_tf():
    got = json.loads(json.dumps(array_extra_programs.program(tf, reduced_shape)))
    assert got == EXPECTED


def test_guarantee_const_rejects_a_resource_handle():
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.get_variable("v", [], initializer=tf.constant_initializer(10.0),
                            use_resource=True)
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match="cannot be a resource"):
            sess.run(tf.guarantee_const(v.handle))


def test_snapshot_copies_the_current_value():
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable([1.0, 2.0])
        snap = array_extra_ops.snapshot(v)
        sess.run(v.initializer)
        first = sess.run(snap)
        sess.run(v.assign([5.0, 6.0]))
        assert first.tolist() == [1.0, 2.0] and sess.run(snap).tolist() == [5.0, 6.0]


def test_gradient_checker_handles_an_empty_output():
    with tf.Graph().as_default(), tf.Session():
        x = tf.constant(np.zeros((0, 3)), dtype=tf.float64)
        y = tf.reduce_sum(x, 1)
        err = gradient_checker.compute_gradient_error(x, [0, 3], y, [0], x_init_value=np.zeros(
            (0, 3)))
        assert err == 0


def test_slice_shape_from_constant_sizes_with_unknown_begin():
    # TF 1.15's Slice shape function: constant sizes give every dim but those of -1, even
    # when `begin` is only known at run time (so random_crop's output shape is static).
    x = tf.placeholder(tf.float32, [32, 32, 3])
    b = tf.placeholder(tf.int32, [3])
    assert tf.slice(x, b, [24, 24, 3]).shape.as_list() == [24, 24, 3]
    assert tf.slice(x, b, [24, -1, 3]).shape.as_list() == [24, None, 3]
    assert tf.random_crop(x, [24, 24, 3]).shape.as_list() == [24, 24, 3]
    u = tf.placeholder(tf.float32)
    assert tf.slice(u, tf.placeholder(tf.int32, [2]), [2, 3]).shape.as_list() == [2, 3]
    assert tf.slice(u, [1, 1], [2, -1]).shape.as_list() == [2, None]
    assert tf.slice(x, [1, 1, 0], [-1, 2, -1]).shape.as_list() == [31, 2, 3]
