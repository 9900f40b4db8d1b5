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
    from flowloom.framework.graph_def import attr_value_to_python

    x_b = attr_value_to_python(attr_value_pb2.AttrValue(s=b"x"))
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
