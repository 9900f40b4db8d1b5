"""TF1's low-level control-flow builders (enter/merge/switch/next_iteration/exit built by
hand), references through them (RefIdentity, RefSelect, ref loop variables), Merge's
(output, value_index) result, and strided_slice's default strides for a begin tensor.

Found by TF 1.15's control_flow_ops_py_test (testLoop_1/_2/_false, testRef*,
testSparse{Identity,EnterExit}, testUninitializedRefIdentity, testWhileWithRefs_1,
testWhile_5).
"""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.control_flow import control_flow_ops as cfo
from flowloom.ops.control_flow import control_flow_primitives as prim


def test_hand_built_loop():
    enter_i = cfo._enter(tf.constant(0), "foo", is_constant=False)
    enter_one = cfo._enter(tf.constant(1), "foo", is_constant=True)
    enter_n = cfo._enter(tf.constant(10), "foo", is_constant=True)
    merge_i = cfo.merge([enter_i, enter_i])
    assert merge_i.output is merge_i[0] and merge_i.value_index is merge_i[1]
    switch_i = cfo.switch(merge_i.output, cfo.loop_cond(tf.less(merge_i.output, enter_n)))
    next_i = prim.next_iteration(tf.add(switch_i[1], enter_one))
    merge_i.output.op._update_input(1, next_i)
    with tf.Session() as sess:
        assert sess.run(cfo.exit(switch_i[0])) == 10


def test_references_through_identity_enter_switch_and_select():
    v = tf.Variable(7)
    ident = prim._Identity(v)
    assert ident.dtype == tf.int32_ref and ident.op.type == "RefIdentity"
    v2 = cfo.with_dependencies([tf.assign(ident, 9)], ident)
    entered = prim._Enter(v, "foo_1", is_constant=True)
    assert entered.op.type == "RefEnter"
    switched = prim._SwitchRefOrTensor(v._ref(), tf.constant(True))
    assert switched[1].dtype == tf.int32_ref
    a, b = tf.Variable([[1, 2]]), tf.Variable([[3, 4]])
    index = tf.placeholder(tf.int32)
    s = prim.ref_select(index, [a, b])
    assert s.shape.as_list() == [1, 2] and s.dtype == tf.int32_ref
    assert prim.ref_select(index, [a, tf.Variable([[1], [2]])]).shape.ndims is None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(v2) == 9
        np.testing.assert_array_equal(sess.run(s, {index: 1}), [[3, 4]])


def test_sparse_tensor_through_identity_enter_exit():
    st = tf.SparseTensor([[0, 5]], ["x"], [10, 10])
    st2 = prim._Identity(st)
    st3 = cfo.exit(prim._Enter(st, "foo_1"))
    assert isinstance(st2, tf.SparseTensor) and isinstance(st3, tf.SparseTensor)
    with tf.Session() as sess:
        assert sess.run(st3.values).tolist() == [b"x"]


def test_reference_loop_variable_stays_a_reference():
    x = tf.Variable(0)._ref()
    seen = []

    def body(i, x):
        seen.append(x.dtype)
        return i + 1, prim.ref_identity(x)
    r = tf.while_loop(lambda i, x: i < 10, body, [tf.constant(0), x], parallel_iterations=5)
    assert seen == [tf.int32_ref] and r[1].dtype == tf.int32_ref
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert list(sess.run(r)) == [10, 0]


def test_strided_slice_with_begin_tensor_and_default_strides():
    x = tf.constant([1, 2, 3, 4])
    i = tf.constant(1)
    s = tf.strided_slice(x, tf.expand_dims(i, 0), [1] + tf.expand_dims(i, 0))
    with tf.Session() as sess:
        assert sess.run(s).tolist() == [2]


def test_slicing_an_unknown_rank_tensor_with_an_index_tensor():
    ws = tf.placeholder(tf.float64)  # as a function argument: unknown rank
    i = tf.placeholder(tf.int32)
    assert ws[i, :].shape.ndims is None  # builds (TF accepts scalar or unknown-rank indices)
    with pytest.raises(TypeError):
        ws[tf.constant([[1]])]
