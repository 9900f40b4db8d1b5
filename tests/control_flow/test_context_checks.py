"""TF's rule for values of while loops (an op may not read a loop's value from outside it or
from another loop: ValueError as the op is built), contexts to/from their protos, cond's
structure error for dicts, with_dependencies of a Python value.

Found by TF 1.15's control_flow_ops_py_test (ControlFlowContextCheckTest,
testCheckNestedOutputStruct, testCaseSideEffects) and control_flow_ops_test (ContextTest).
"""

import pytest

import flowloom as tf
from flowloom.ops.control_flow.control_flow_context import CondContext, WhileContext


def _while_tensor():
    made = []

    def body(i):
        if not made:
            made.append(tf.constant(1))
        return i + made[0]
    tf.while_loop(lambda i: i < 10, body, [0])
    return made[0]


def test_loop_values_used_outside_their_loop_are_errors():
    w = _while_tensor()
    with pytest.raises(ValueError, match="Cannot use 'while/Const_1' as input to 'Add' because "
                                         "'while/Const_1' is in a while loop"):
        tf.add(1, w)
    with pytest.raises(ValueError, match="as input to 'cond/Add' because"):
        tf.cond(tf.less(1, 2), lambda: tf.add(1, w), lambda: tf.constant(0))
    with pytest.raises(ValueError, match="'while_1/Add' because they are in different while "
                                         "loops"):
        tf.while_loop(lambda i: i < 10, lambda x: tf.add(1, w), [0])


def test_valid_uses_nested_loops_conds_and_gradients():
    def body(_):
        c = tf.constant(1)
        return tf.while_loop(lambda i: i < 3, lambda i: i + c, [0])
    tf.while_loop(lambda i: i < 5, body, [0])
    made = []

    def branch():
        if not made:
            made.append(tf.constant(1))
        return made[0]
    tf.cond(tf.less(1, 2), branch, branch)
    x = tf.constant(2.0)
    r = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, tf.constant(1.0)])
    g = tf.gradients(r[1], x)[0]
    with tf.Session() as sess:
        assert sess.run(g) == 12.0


def test_contexts_round_trip_through_their_protos():
    i = tf.constant(0)
    tf.while_loop(lambda i: i < 10, lambda i: i + 1, [i], maximum_iterations=10)
    tf.cond(tf.less(1, 2), lambda: tf.constant(1), lambda: tf.constant(2))
    seen = set()
    for op in tf.get_default_graph().get_operations():
        c = op._get_control_flow_context()
        if c is not None:
            cls = CondContext if isinstance(c, CondContext) else WhileContext
            assert cls.from_proto(c.to_proto()).to_proto() == c.to_proto()
            seen.add(cls)
    assert seen == {CondContext, WhileContext}


def test_cond_dict_keys_error_and_with_dependencies_of_a_python_value():
    with pytest.raises(ValueError, match="The two structures don't have the same nested "
                                         "structure"):
        tf.cond(tf.less(1, 2), lambda: {"a": tf.constant(1)}, lambda: {"c": tf.constant(1)})
    v = tf.Variable(-1)
    r = tf.cond(tf.less(1, 2),
                lambda: tf.tuple([tf.constant(0)], control_inputs=[tf.assign(v, 0)])[0],
                lambda: tf.constant(1))
    from flowloom.ops.control_flow.control_flow_ops import with_dependencies

    w = with_dependencies([tf.assign(v, 5)], 7)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(r) == 0 and sess.run(w) == 7 and sess.run(v) == 5


def test_group_of_python_values_is_a_type_error():
    with pytest.raises(TypeError, match="Expected tf.group"):
        tf.group(1, 2)
