"""TF's `Operation(node_def, g, ...)`, `_create_c_op` and friends (framework/op_construction.py).

Expected values are TF 1.15's (its framework/ops_test.py checks the same behaviour).
"""

import pytest

import flowloom as tf
from flowloom.framework import dtypes, op_def
from flowloom.framework.op_construction import _create_c_op, _NodeDef
from flowloom.framework.ops import Operation
from flowloom.framework.tensor_shape import unknown_shape
from flowloom.proto import attr_value_pb2


def _fixture_ops():
    for name, inputs, outputs in [("FxFloatOutput", [], ["a: float32"]),
                                  ("FxRefOutputFloatOutput", [], ["a: Ref(float32)", "b: float32"]),
                                  ("FxTwoFloatInputs", ["a: float32", "b: float32"], []),
                                  ("FxIntInput", ["a: int32"], []),
                                  ("FxIntOutput", [], ["a: int32"])]:
        if op_def.get(name) is None:
            op_def.defop(name, inputs=inputs, outputs=outputs).shape(
                lambda op, n=len(outputs): [unknown_shape()] * n)


_fixture_ops()


def test_node_def_helper():
    nd = _NodeDef("FxFloatOutput", "bar", device=tf.DeviceSpec(job="j"),
                  attrs={"_a": attr_value_pb2.AttrValue(i=3)})
    assert (nd.op, nd.name, nd.device, nd.attr["_a"].i) == ("FxFloatOutput", "bar", "/job:j", 3)


def test_operation_from_node_def_is_in_its_graph():
    g = tf.Graph()
    with g.device("/device:CPU:0"), g.as_default():
        c = tf.constant(1.0)
        with tf.control_dependencies([c]):
            op = Operation(_NodeDef("FxFloatOutput", "myop", device="/job:goo/device:GPU:0"),
                           g, [], [dtypes.float32])
    # As TF: the NodeDef's device, none of the graph's stacks.
    assert op.device == "/job:goo/device:GPU:0"
    assert op.control_inputs == []
    assert g.get_operation_by_name("myop") is op
    assert [t.dtype for t in op.values()] == [dtypes.float32]
    assert repr(op) == "<tf.Operation 'myop' type=FxFloatOutput>"
    assert op.op_def.name == "FxFloatOutput" and len(op.op_def.output_arg) == 1
    # The name is taken: the graph uniquifies the next one.
    with g.as_default():
        assert tf.constant(2.0, name="myop").op.name == "myop_1"


def test_operation_from_node_def_ref_inputs_and_errors():
    g = tf.Graph()
    op1 = Operation(_NodeDef("FxRefOutputFloatOutput", "op1"), g, [], [])
    ref_t, nonref_t = op1.values()
    assert ref_t.dtype == dtypes.float32_ref
    op3 = Operation(_NodeDef("FxTwoFloatInputs", "op3"), g, [ref_t, nonref_t], [])
    assert list(op3.inputs) == [ref_t, nonref_t]
    assert list(op3.node_def.input) == ["op1", "op1:1"]
    for bad in ["", "_invalid", "-invalid", "/invalid", "invalid:0"]:
        with pytest.raises(ValueError):
            Operation(_NodeDef("op", bad), g)
    with pytest.raises(TypeError):
        Operation("not a node def", g)
    with pytest.raises(TypeError):
        Operation(_NodeDef("FxFloatOutput", "x"), "not a graph")
    with pytest.raises(ValueError, match="Duplicate node name"):
        Operation(_NodeDef("FxFloatOutput", "op1"), g)
    with pytest.raises(ValueError):  # a float into an int32 input
        Operation(_NodeDef("FxIntInput", "op4"), g, [nonref_t])


def test_create_c_op_then_wrap():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([[1, 2, 3], [4, 5, 6]])
        c_op = _create_c_op(g, _NodeDef("Identity", "myop"), [x], [])
        assert "myop" not in g  # waiting, not yet an Operation
        op = g._create_op_from_tf_operation(c_op)
        assert op.outputs[0].shape == tf.TensorShape([2, 3])  # T inferred from the input
        assert x.consumers() == [op]
        a = _create_c_op(g, _NodeDef("FxIntOutput", "other"), [], [])
        b = _create_c_op(g, _NodeDef("FxIntOutput", "other_1"), [], [])
        assert [o.name for o in g._add_new_tf_operations()] == ["other", "other_1"]
        assert g.get_operation_by_name("other") is not None and a is not b
        assert tf.constant(0, name="other").op.name == "other_2"
        with pytest.raises(ValueError, match="Duplicate node name"):
            _create_c_op(g, _NodeDef("FxIntOutput", "other"), [], [])


def test_create_c_op_in_while_loop_gets_its_enter():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(3)

        def body(i):
            _create_c_op(tf.get_default_graph(), _NodeDef("FxIntInput", "myloop/myop"), [x], [])
            assert len(g._add_new_tf_operations()) == 1
            return i

        tf.while_loop(lambda i: i < 10, body, [0], name="myloop")
    op = g.get_operation_by_name("myloop/myop")
    assert op.inputs[0].op.type == "Enter"
    assert list(op.inputs[0].op.inputs) == [x]


def test_set_attr_takes_attr_value_and_shape_tuple():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant([[1.0, 2.0]])
        p = tf.placeholder(tf.float32)
    c.op._set_attr("_foo", attr_value_pb2.AttrValue(i=2))
    assert c.op.get_attr("_foo") == 2
    assert c._shape_tuple() == (1, 2)
    assert p._shape_tuple() is None


def test_ops_module_extras_as_tf():
    from flowloom.framework import op_construction as ops_extras
    from flowloom.framework.op_construction import is_dense_tensor_like
    from flowloom.framework.ops import convert_to_tensor

    assert not ops_extras.has_default_graph()
    with tf.Graph().as_default():
        assert ops_extras.has_default_graph()
        with pytest.raises(TypeError, match="Can't convert Operation 'NoOp' to Tensor"):
            convert_to_tensor(tf.no_op())
        assert is_dense_tensor_like(tf.Variable([17]))
        assert is_dense_tensor_like(tf.constant(1))
    g = tf.Graph()
    assert g.collections == []
    g.add_to_collection("key", 12)
    assert g.collections == ["key"]

    class NoName:
        pass

    with pytest.raises(TypeError, match="`name`"):
        ops_extras.register_dense_tensor_like_type(NoName)
    assert ops_extras.strip_name_scope("hidden1///hidden1/weights", "hidden1") == \
        "hidden1/weights"


def test_update_input_checks_cycles_device_nesting_attr_scope():
    from flowloom.framework import errors
    from flowloom.framework.op_construction import name_scope_v2

    g0, g1 = tf.Graph(), tf.Graph()
    with g0.as_default():
        x = tf.constant(1)
    with g1.as_default():
        w = tf.constant(2, shape=[3, 1])
        z = w * 2
        with pytest.raises(ValueError, match="must be from the same graph"):
            z.op._update_input(0, x)
        with pytest.raises(errors.OutOfRangeError, match=r"Input index \[1\] is greater than "
                                                         r"the number of total inputs \[0\]"):
            w.op._update_input(1, w)
        y = tf.constant(1, shape=[2, 2])
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"incompatible shapes: \[2,2\] and \[3,1\]"):
            z.op._update_input(0, y)
        a, b = tf.constant(0), tf.constant(1)
        a.op._add_control_input(b.op)
        b.op._add_control_input(a.op)
    with tf.Session(graph=g1) as sess:
        with pytest.raises(errors.InvalidArgumentError,
                           match="Graph is invalid, contains a cycle with 2 nodes"):
            sess.run(a)
        assert sess.run(z).tolist() == [[4], [4], [4]]  # the rest still runs
    scope = g1.device("/device:GPU:8")
    scope.__enter__()
    with g1.device("/device:GPU:9"):
        with pytest.raises(RuntimeError, match="without proper scope nesting."):
            scope.__exit__(None, None, None)
    with g1.as_default():
        with g1._attr_scope({"_A": attr_value_pb2.AttrValue(s=b"foo")}):
            with g1._attr_scope({"_A": None, "_B": attr_value_pb2.AttrValue(s=b"bar")}):
                op = tf.no_op()
        assert tf.compat.as_text(op.get_attr("_B")) == "bar"
        with pytest.raises(ValueError):
            op.get_attr("_A")
        foo = name_scope_v2("foo")
        with foo as outer:
            with foo as inner:
                assert (outer, inner) == ("foo/", "foo/foo/")


def test_op_statistics():
    from flowloom.framework.op_stats import OpStats, RegisterStatistics, get_stats_for_node_def

    @RegisterStatistics("FxStatOp", "flops")
    def _flops(graph, node):
        return OpStats("flops", 20)

    node = _NodeDef("FxStatOp", "a")
    assert get_stats_for_node_def(tf.Graph(), node, "flops").value == 20
    assert get_stats_for_node_def(tf.Graph(), node, "missing").value is None
    total = OpStats("flops")
    total += OpStats("flops", 3)
    assert total.value == 3
    with pytest.raises(KeyError):
        RegisterStatistics("FxStatOp", "flops")(_flops)


def test_init_scope_lifts_out_of_function_graphs():
    g0, g1, g2 = tf.Graph(), tf.Graph(), tf.Graph()
    g1._building_function = g2._building_function = True
    with g0.as_default(), tf.device("/device:CPU:0"):
        with g1.as_default(), g2.as_default():
            with tf.device("/device:GPU:0"), tf.name_scope("outer"):
                with tf.init_scope():
                    lifted = tf.constant(1.0, name="c")
                    assert tf.get_default_graph() is g0
            with tf.init_scope():
                cpu = tf.constant(1.0)
    assert lifted.graph is g0 and lifted.op.name == "outer/c"
    assert lifted.device == "/device:GPU:0"  # the innermost non-empty device stack
    assert cpu.device == "/device:CPU:0"
    assert not g1.get_operations() and not g2.get_operations()
    with tf.Graph().as_default() as g:
        x = tf.constant(1.0)
        with tf.control_dependencies([x]):
            with tf.init_scope():
                free = tf.constant(2.0)
        assert free.op.control_inputs == [] and free.graph is g


def test_inputs_are_read_only():
    with tf.Graph().as_default():
        x = tf.constant(1)
        op = tf.identity(x).op
    assert list(op.inputs) == [x] and op.inputs == (x,)
    with pytest.raises(AttributeError, match="'_InputList' object has no attribute 'append'"):
        op.inputs.append(None)


def test_scalar_mul_scales_indexed_slices():
    with tf.Graph().as_default(), tf.Session() as sess:
        values = tf.constant([2, 3, 5, 7], shape=[2, 2])
        x = tf.scalar_mul(-2, tf.IndexedSlices(values, tf.constant([0, 2])))
        assert isinstance(x, tf.IndexedSlices)
        assert sess.run(x.values).tolist() == [[-4, -6], [-10, -14]]
        assert sess.run(x.indices).tolist() == [0, 2]
