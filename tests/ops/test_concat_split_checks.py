"""Concat / ConcatOffset / Split / SplitV / Unpack: TF 1.15's shape checks, kernel checks,
messages, and the IndexedSlices gradient of a concat."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework.apply_op import apply_op


def test_concat_checks_axis_type_and_rank_and_input_ranks():
    a = tf.Variable(tf.constant(1.0, shape=[1]))
    with pytest.raises(ValueError):
        tf.concat(a, a)  # one value: the float axis cannot be int32
    with pytest.raises(TypeError):
        tf.concat(1, 4.2)
    with pytest.raises(TypeError, match="allowed values: int32, int64"):
        tf.concat([a, a], a)
    with pytest.raises(ValueError, match="rank 0"):
        tf.concat([a, a], [3])
    with pytest.raises(ValueError):
        tf.concat(1, tf.constant(0, shape=[1]))
    dim = tf.placeholder(tf.int32)
    p = tf.placeholder(tf.float32)
    assert tf.concat([p, tf.zeros([4, 4, 4])], dim).shape.ndims == 3
    assert tf.concat([p, p], dim).shape.ndims is None
    with pytest.raises(ValueError, match="rank 3 but is rank 2"):
        tf.concat([p, tf.zeros([4, 4, 4]), tf.zeros([4, 4])], dim)
    with tf.Graph().as_default():
        assert tf.concat([tf.zeros([2, 3])], 0).op.name == "concat/concat"  # as TF 1.15


def _offsets(cdim, shapes):
    return apply_op("ConcatOffset", (tf.constant(cdim), [tf.constant(s) for s in shapes])).outputs


def test_concat_offset_kernel_checks():
    with tf.Session() as sess:
        assert [o.tolist() for o in sess.run(_offsets(-2, [[2, 3, 5], [2, 7, 5]]))] == \
            [[0, 0, 0], [0, 3, 0]]
        cases = [(1, [[[2, 3, 5]], [[2, 7, 5]]], "input 0 should be a vector"),
                 (4, [[2, 3, 5], [2, 7, 5]], "Concat dim is out of range: 4 vs. 3"),
                 (1, [[2, 3, 5], [2, 7, 5, 10]], "input 1 should contain 3 elements"),
                 (1, [[2, 3, 5], [2, 7, 10]], r"All dimensions except 1 must match. Input 1 "
                  r"has shape \[2 7 10\] and doesn't match input 0 with shape \[2 3 5\]")]
        for cdim, shapes, message in cases:
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                sess.run(_offsets(cdim, shapes))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_gradient_of_indexed_slices(axis):
    x1 = tf.constant(np.arange(6.0).reshape(2, 3), tf.float32)
    x2 = tf.constant(np.arange(6.0, 12.0).reshape(2, 3), tf.float32)
    out = tf.gather(tf.concat([x1, x2], axis), [1, 0])
    g = np.arange(out.shape.num_elements(), dtype=np.float32).reshape(out.shape.as_list())
    grads = tf.gradients(out, [x1, x2], tf.constant(g))
    assert all(isinstance(gr, tf.IndexedSlices) for gr in grads)
    with tf.Session() as sess:
        dense = sess.run([tf.convert_to_tensor(gr) for gr in grads])
    want = np.zeros((4, 3) if axis == 0 else (2, 6), np.float32)
    want[[1, 0]] = g
    split = np.split(want, 2, axis=0 if axis == 0 else 1)
    assert [d.tolist() for d in dense] == [s.tolist() for s in split]
    p = tf.placeholder(tf.float32)
    if axis < 0:
        with pytest.raises(ValueError, match="first value rank is statically-known"):
            tf.gradients(tf.gather(tf.concat([p, p], axis), [0]), [p])


def test_split_checks():
    value = list(range(10))
    with pytest.raises(ValueError, match="Length of size_splits"):
        tf.split(value, tf.constant([2, 2, 6]), num=4)
    with pytest.raises(ValueError, match="Cannot infer num from shape"):
        tf.split(value, tf.placeholder(tf.int32, [None]))
    with pytest.raises(ValueError, match="Rank-0 tensors are not supported"):
        tf.split(tf.ones([4, 4]), tf.constant(2))
    with pytest.raises(ValueError, match="should evenly divide"):
        tf.split([0, 1, 2, 3], 3)
    with pytest.raises(ValueError, match="Determined shape"):
        tf.split([0, 1], [3, -1])
    s0, s1 = tf.split([0, 1, 2], [2, -1])
    assert s0.shape.as_list() == [2] and s1.shape.as_list() == [1]
    parts = tf.split(tf.ones([5, 2]), tf.constant([2, 1, 2]) * 1)
    assert [p.shape.as_list() for p in parts] == [[2, 2], [1, 2], [2, 2]]  # as TF 1.15
    axis = tf.placeholder(tf.int32)
    y = tf.split(np.zeros([5, 30]), tf.placeholder(tf.int32, [3]), axis=axis)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="exactly one element"):
            sess.run(y, {axis: np.array([], np.int32), y[0].op.inputs[1]: [4, 11, 15]})


def test_unstack_messages_are_tf_1_15s():
    with pytest.raises(ValueError, match=r"axis = -3 not in \[-2, 2\)"):
        tf.unstack(tf.zeros([2, 3]), axis=-3)
    with pytest.raises(ValueError, match=r"Cannot infer num from shape \(\?,\)"):
        tf.unstack(tf.placeholder(tf.float32, [None]))
