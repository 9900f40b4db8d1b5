"""More construction shortcuts (issue 13) checked against the general paths they stand for.

init_scope does nothing when there is nothing to lift out of; the scope contexts are plain
classes; ops without inputs or control inputs share empty tuples; tensors share one interned
TensorShape per distinct shape. Each is compared with what the general path gives.
"""

import pytest

import flowloom as tf
from flowloom.framework import observers


def _model(where):
    """Variables and ops built inside the context `where` names (a fresh graph)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        c = tf.constant(1.0, name="c")
        ctx = {"plain": lambda: _nothing(),
               "control": lambda: tf.control_dependencies([c]),
               "device": lambda: tf.device("/cpu:0"),
               "name_scope": lambda: tf.name_scope("outer"),
               "colocate": lambda: tf.colocate_with(c)}[where]
        with ctx():
            with tf.variable_scope("layer"):
                w = tf.get_variable("w", [4, 3])
                b = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
                v = tf.Variable(tf.ones([3]), name="v")
                y = tf.nn.relu(tf.matmul(x, w) + b + v)
            pred = tf.placeholder(tf.bool, [], name="p")
            z = tf.cond(pred, lambda: tf.Variable(2.0, name="in_cond") * 1.0, lambda: c)
        with tf.Graph().as_default():  # a nested graph: variables go to it, not to g
            inner = tf.get_variable("inner", [2])
        assert inner.graph is not g
    return g, (y, z)


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _described(g):
    text = str(g.as_graph_def())
    cols = {k: [getattr(v, "name", v) for v in g.get_collection(k)]
            for k in (tf.GraphKeys.GLOBAL_VARIABLES, tf.GraphKeys.TRAINABLE_VARIABLES)}
    return text, cols


@pytest.mark.parametrize("where", ["plain", "control", "device", "name_scope", "colocate"])
def test_init_scope_fast_path_builds_what_the_general_path_builds(where):
    fast, _ = _model(where)
    # A control-block observer sends every init_scope down the general (lifting) path.
    observers.control_block.append(lambda event, controller: None)
    try:
        general, _ = _model(where)
    finally:
        observers.control_block.pop()
    assert _described(fast) == _described(general)


def test_init_scope_lifts_out_of_control_dependencies_and_cond():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
        with tf.control_dependencies([c]):
            v = tf.Variable(3.0, name="v")
            w = tf.identity(v)
        assert v.initializer.control_inputs == []
        assert v.op.control_inputs == []
        assert w.op.control_inputs == [c.op]
        with tf.init_scope():
            d = tf.constant(2.0)
        assert d.op.control_inputs == []
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(w) == 3.0


def test_init_scope_is_reentrant_and_a_decorator():
    scope = tf.init_scope()
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
        with tf.control_dependencies([c]):
            with scope:
                with scope:
                    a = tf.constant(1.0)
            b = tf.constant(1.0)

        @tf.init_scope()
        def make():
            return tf.constant(2.0)

        with tf.control_dependencies([c]):
            d = make()
    assert a.op.control_inputs == [] and b.op.control_inputs == [c.op]
    assert d.op.control_inputs == []


def test_attr_scope_nests_clears_and_restores_after_errors():
    from flowloom.proto import attr_value_pb2

    g = tf.Graph()
    with g.as_default():
        with g._attr_scope({"_a": 1, "_b": attr_value_pb2.AttrValue(s=b"x")}):
            x = tf.constant(1.0)
            with g._attr_scope({"_a": None, "_c": True}):
                y = tf.constant(1.0)
            z = tf.constant(1.0)
            with pytest.raises(RuntimeError):
                with g._attr_scope({"_d": 2}):
                    raise RuntimeError("inside")
            u = tf.constant(1.0)
        after = tf.constant(1.0)
    x_b = b"x"  # a string attr, as TF's get_attr gives it
    assert (x.op.get_attr("_a"), x.op.get_attr("_b")) == (1, x_b)
    assert "_a" not in y.op.attrs and y.op.get_attr("_c") is True and y.op.get_attr("_b") == x_b
    assert z.op.get_attr("_a") == 1 and "_c" not in z.op.attrs
    assert "_d" not in u.op.attrs
    assert not any(k in after.op.attrs for k in ("_a", "_b", "_c", "_d"))


def test_as_default_nests_and_exits_out_of_order():
    g1, g2 = tf.Graph(), tf.Graph()
    outer = tf.get_default_graph()
    with g1.as_default() as got:
        assert got is g1 and tf.get_default_graph() is g1
        with g2.as_default():
            assert tf.get_default_graph() is g2
        assert tf.get_default_graph() is g1
    assert tf.get_default_graph() is outer
    c1, c2 = g1.as_default(), g2.as_default()
    c1.__enter__()
    c2.__enter__()
    c1.__exit__(None, None, None)  # out of order: g1 leaves the stack, g2 stays on top
    assert tf.get_default_graph() is g2
    c2.__exit__(None, None, None)
    assert tf.get_default_graph() is outer
    with pytest.raises(ValueError):
        with g1.as_default():
            raise ValueError("inside")
    assert tf.get_default_graph() is outer


def test_ops_without_inputs_or_control_inputs_share_empty_tuples_and_can_grow():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0)
        with tf.control_dependencies(None):
            b = tf.constant(2.0)
        s = tf.add(a, b)
    assert a.op._inputs == () and list(a.op.inputs) == []
    assert b.op._control_inputs == () and b.op.control_inputs == []
    b.op._add_control_input(a.op)
    assert b.op.control_inputs == [a.op] and a.op._control_outputs == [b.op]
    assert s.op.control_inputs == []
    with pytest.raises(Exception):
        a.op._update_input(0, b)
    with tf.Session(graph=g) as sess:
        assert sess.run(s) == 3.0


def test_tensors_share_interned_shapes_and_set_shape_changes_only_its_tensor():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, [None, 3])
        a, b = tf.identity(x), tf.identity(y)
        assert a.shape is b.shape and a.shape.as_list() == [None, 3]
        a.set_shape([5, 3])
        assert a.shape.as_list() == [5, 3] and b.shape.as_list() == [None, 3]
        assert x.shape.as_list() == [None, 3]
        m = tf.matmul(a, tf.ones([3, 2]))
        assert m.shape.as_list() == [5, 2]


def test_variable_scope_contexts_unwind_on_errors_and_reentry():
    g = tf.Graph()
    with g.as_default():
        with pytest.raises(ZeroDivisionError):
            with tf.variable_scope("a"):
                with tf.variable_scope("b"):
                    1 / 0
        assert tf.get_variable_scope().name == "" and g.get_name_scope() == ""
        with tf.variable_scope("a") as a:  # the failed blocks' counts were reset on exit
            pass
        assert a.name == "a" and a.original_name_scope == "a_1/"
        with pytest.raises(TypeError):
            with tf.variable_scope(3):
                pass
        assert tf.get_variable_scope().name == "" and g.get_name_scope() == ""
        with tf.variable_scope(a, reuse=True):
            with tf.variable_scope(None, default_name="d") as d:
                assert d.name == "a/d" and d.reuse
        with tf.variable_scope(a):  # as TF: re-entering an object restores the counts after
            with tf.variable_scope(None, default_name="d") as d2:
                assert d2.name == "a/d"
            with tf.variable_scope(None, default_name="d") as d3:
                assert d3.name == "a/d_1"
        scope = tf.variable_scope("twice")
        with scope as s1:
            with scope as s2:  # one object entered twice, nested
                assert s2.name == "twice/twice"
            assert tf.get_variable_scope() is s1
        assert tf.get_variable_scope().name == ""


def test_variable_scope_defaults_reach_get_variable():
    g = tf.Graph()
    with g.as_default():
        init = tf.constant_initializer(3.0)
        reg = lambda v: tf.reduce_sum(v)  # noqa: E731
        with tf.variable_scope("s", initializer=init, regularizer=reg, dtype=tf.float64):
            with tf.variable_scope("inner"):
                v = tf.get_variable("v", [2])
        assert v.dtype.base_dtype == tf.float64 and v.name == "s/inner/v:0"
        assert len(g.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 1
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(v).tolist() == [3.0, 3.0]


def test_assign_of_a_variable_is_colocated_as_by_the_general_path():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.get_variable("v", [3])
            w = tf.Variable(tf.zeros([3]), name="w")
        with tf.device("/job:worker"):
            a = tf.assign(v, [1.0, 2.0, 3.0])
            with tf.colocate_with(w.op):
                b = tf.assign(w, [1.0, 2.0, 3.0])
                c = tf.assign(v, [1.0, 2.0, 3.0])
    for var, assign in ((v, v.initializer), (w, w.initializer), (v, a.op), (w, b.op)):
        assert assign.get_attr("_class") == [b"loc:@" + var.op.name.encode()]
        assert assign.device == var.op.device == "/job:ps/task:0"
    assert sorted(c.op.get_attr("_class")) == [b"loc:@v", b"loc:@w"]
    assert c.op.device == "/job:ps/task:0"


def test_name_scope_values_pick_their_graph_and_reject_mixed_graphs():
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        x = tf.constant(1.0)
    with g2.as_default():
        y = tf.constant(1.0)
        with tf.name_scope("s", values=[x, 3, [1, 2], None, "a"]):
            assert tf.get_default_graph() is g1
            z = tf.identity(x)
        assert tf.get_default_graph() is g2 and z.graph is g1 and z.op.name == "s/Identity"
        with pytest.raises(ValueError):
            with tf.name_scope("t", values=[x, y]):
                pass
        with tf.name_scope("u", values=[1.0, [y]]) as u:
            assert u == "u/"


def test_variable_enums_keep_their_checks():
    from flowloom.variable_enums import (VariableAggregation, VariableSynchronization,
                                         validate_synchronization_aggregation_trainable)

    assert validate_synchronization_aggregation_trainable(None, None, None, "v") == (
        VariableSynchronization.AUTO, VariableAggregation.NONE, True)
    assert validate_synchronization_aggregation_trainable(
        VariableSynchronization.ON_READ, VariableAggregation.SUM, None, "v") == (
        VariableSynchronization.ON_READ, VariableAggregation.SUM, False)
    assert validate_synchronization_aggregation_trainable(3, 1, None, "v")[0] is \
        VariableSynchronization(3)
    with pytest.raises(ValueError, match="synchronization"):
        validate_synchronization_aggregation_trainable(17, None, None, "v")
    with pytest.raises(ValueError, match="aggregation"):
        validate_synchronization_aggregation_trainable(None, 17, None, "v")


def test_initial_values_that_read_no_variable_are_used_as_they_are():
    from flowloom.variable_init_guard import _try_guard_against_uninitialized_dependencies

    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(tf.ones([2]), name="w")
        plain = tf.random_uniform([2]) * 2.0 + tf.constant([1.0, 2.0])
        n = len(g.get_operations())
        assert _try_guard_against_uninitialized_dependencies("u/", plain) is plain
        assert len(g.get_operations()) == n  # nothing copied
        reads = tf.identity(plain + w)  # a variable read two ops below: the copy replaces it
        guarded = _try_guard_against_uninitialized_dependencies("z/", reads)
        assert guarded is not reads and len(g.get_operations()) > n
        v = tf.Variable(reads, name="v")
        with tf.Session() as sess:
            sess.run(v.initializer)  # w is not initialized: its initial value is used
            assert sess.run(v).shape == (2,)


def test_dtype_kind_tests_by_enum_match_membership_of_the_base_dtype():
    from flowloom.framework import dtypes

    floats = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.bfloat16)
    for d in dtypes._BY_ENUM.values():
        assert d.is_floating == (d.base_dtype in floats), d
        assert d.is_integer == (d.base_dtype in dtypes._INTEGERS), d
    assert tf.float32_ref.is_floating and tf.int64_ref.is_integer and not tf.bool.is_integer


def test_op_construction_reexports_load_on_use():
    from flowloom.framework import graph_def, op_construction
    from flowloom.proto import attr_value_pb2, node_def_pb2

    assert op_construction.prepend_name_scope is graph_def.prepend_name_scope
    assert op_construction.strip_name_scope is graph_def.strip_name_scope
    assert op_construction.node_def_pb2 is node_def_pb2
    assert op_construction.attr_value_pb2 is attr_value_pb2
    with pytest.raises(AttributeError):
        op_construction.no_such_name  # noqa: B018
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
        node = op_construction._NodeDef("Identity", "copy", attrs={
            "T": attr_value_pb2.AttrValue(type=tf.float32.as_datatype_enum)})
        op = tf.Operation(node, g, inputs=[c])
    assert op.type == "Identity" and op.name == "copy" and op.inputs[0] is c


def test_a_program_without_a_config_proto_does_not_load_protobuf():
    import os
    import subprocess
    import sys

    program = (
        "import sys\n"
        "import flowloom as tf\n"
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "w = tf.get_variable('w', [2, 2])\n"
        "loss = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w) + 1.0))\n"
        "step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)\n"
        "with tf.Session() as sess:\n"
        "    sess.run(tf.global_variables_initializer())\n"
        "    sess.run(step, {x: [[1.0, 2.0]]})\n"
        "print('google.protobuf' in sys.modules)\n")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root)
    env.pop("FLOWLOOM_EAGER_IMPORT", None)
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_session_config_checks_and_tf_config_options_still_work():
    with pytest.raises(TypeError, match="ConfigProto"):
        tf.Session(config=object())
    tf.config.optimizer.set_experimental_options({"constant_folding": False})
    try:
        assert tf.config.optimizer.get_experimental_options()["constant_folding"] is False
        with tf.Graph().as_default():
            with tf.Session() as sess:
                assert sess.run(tf.constant(2.0) * 3.0) == 6.0
    finally:
        from flowloom.framework import config

        config._optimizer_options.clear()


def test_device_none_blocks_leave_no_creation_sites_and_real_blocks_keep_theirs():
    g = tf.Graph()
    with g.as_default():
        v = tf.get_variable("v", [2])  # its initializer ops are made under device(None)
        with tf.device("/cpu:0"):
            w = tf.get_variable("w", [2])
            with tf.device(None):
                n = tf.constant(1.0)
    init_ops = [op for op in g.get_operations() if op.name.startswith("v/Initializer")]
    assert init_ops and all(op._scope_sites is None for op in init_ops)
    assert all(op._device_assignments == [] and op._colocation_dict == {} for op in init_ops)
    w_init = [op for op in g.get_operations() if op.name.startswith("w/Initializer")]
    assert w_init and all([d.obj for d in op._device_assignments] == ["/cpu:0"]
                          for op in w_init)
    assert [d.obj for d in n.op._device_assignments] == ["/cpu:0"]
    assert w.op._device_assignments[0].filename == __file__
    assert v.op._scope_sites is None
