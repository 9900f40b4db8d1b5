"""The variable classes as TF 1.15 structures them, the variable-creator stack, tf.container,
and initial values that read uninitialized variables (expected values are TF 1.15's)."""

import threading

import numpy as np
import pytest

import flowloom as tf
from flowloom import variables
from flowloom.resource_variable import ResourceVariable


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def test_v2_class_builds_resource_variables_and_v1_builds_ref_ones():
    v2 = variables.VariableV2(np.zeros([1, 1]), shape=tf.TensorShape(None))
    v1 = tf.Variable(1.0)
    assert type(v2) is ResourceVariable and v2.op.type == "VarHandleOp"
    assert type(v1) is variables.RefVariable and v1.op.type == "VariableV2"
    for v in (v1, v2):
        assert isinstance(v, variables.VariableV2) and isinstance(v, tf.Variable)
    assert not isinstance(v2, variables.RefVariable)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(v2.assign(np.ones([2, 2])))  # a resource variable of unknown shape
        np.testing.assert_array_equal(s.run(v2.read_value()), np.ones([2, 2]))


def test_v2_class_takes_its_own_signature():
    # V2's third positional argument is validate_shape (V1's is collections).
    v = variables.VariableV2(1.0, True, True, None, "pos")
    assert v.name == "pos:0" and v.trainable
    with pytest.raises(TypeError):
        variables.VariableV2(1.0, collections=[])


def test_tf_variable_in_a_resource_scope_is_a_resource_variable():
    with tf.variable_scope("s", use_resource=True):
        assert isinstance(tf.Variable(1.0), ResourceVariable)
    assert not isinstance(tf.Variable(1.0), ResourceVariable)


def test_operators_carry_the_tensor_operators_metadata():
    for name in ("__add__", "__rsub__", "__matmul__", "__neg__"):
        ours, tensors = getattr(variables.VariableV2, name), getattr(tf.Tensor, name)
        assert (ours.__module__, ours.__name__, ours.__doc__) == \
            (tensors.__module__, tensors.__name__, tensors.__doc__)


def test_creators_see_and_change_arguments_innermost_first():
    seen = []

    def record(next_creator, **kwargs):
        seen.append(kwargs["name"])
        return next_creator(**kwargs)

    def rename(next_creator, **kwargs):
        kwargs["name"] = "forced"
        return next_creator(**kwargs)

    with tf.variable_creator_scope(record), tf.variable_creator_scope(rename):
        v = tf.Variable(1.0, name="asked")
    assert seen == ["forced"] and v.op.name == "forced"


def test_get_variable_goes_through_the_creators_with_its_enums():
    got = {}

    def creator(next_creator, **kwargs):
        got.update(kwargs)
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        tf.get_variable("v", [], synchronization=tf.VariableSynchronization.ON_WRITE,
                        aggregation=tf.VariableAggregation.MEAN, use_resource=True)
    assert got["synchronization"] == tf.VariableSynchronization.ON_WRITE
    assert got["aggregation"] == tf.VariableAggregation.MEAN
    assert got["use_resource"] is True and got["name"] == "v"


def test_a_creator_may_return_another_variable_and_priorities_order_them():
    existing = tf.Variable(5.0, name="existing")
    order = []

    def low(next_creator, **kwargs):
        order.append("low")
        return next_creator(**kwargs)

    def high(next_creator, **kwargs):
        order.append("high")
        return existing

    from flowloom.variable_creator import variable_creator_scope

    with variable_creator_scope(low, priority=1), variable_creator_scope(high, priority=200):
        assert tf.Variable(1.0) is existing
    assert order == ["high"]  # the higher priority runs first and does not call on


def test_creator_scopes_must_nest_and_are_per_thread():
    g = tf.get_default_graph()
    saved = g._variable_creator_stack
    scope = tf.variable_creator_scope(lambda next_creator, **kw: next_creator(**kw))
    scope.__enter__()
    try:
        with tf.variable_creator_scope(lambda next_creator, **kw: next_creator(**kw)):
            with pytest.raises(RuntimeError, match="without proper nesting"):
                scope.__exit__(None, None, None)
    finally:
        g._variable_creator_stack = saved
    seen_in_thread = []
    with tf.variable_creator_scope(lambda next_creator, **kw: next_creator(**kw)):
        t = threading.Thread(target=lambda: seen_in_thread.append(
            len(g._variable_creator_stack)))
        t.start()
        t.join()
    assert seen_in_thread == [0]


def test_container_applies_to_stateful_ops_without_their_own():
    v0 = tf.Variable([0])
    with tf.container("l1"):
        v1 = tf.Variable([1])
        with tf.container("l2"):
            v2 = variables.VariableV2([2])
            own = tf.get_default_graph().create_op(
                "VariableV2", [], [tf.float32], name="InL3",
                attrs={"shape": tf.TensorShape([1]), "dtype": tf.float32,
                       "container": "l3", "shared_name": ""})
            q = tf.FIFOQueue(2, tf.float32)
        c = tf.constant(1.0)
    assert v0.op.get_attr("container") in ("", b"")
    assert v1.op.get_attr("container") in ("l1", b"l1")
    assert v2.op.get_attr("container") in ("l2", b"l2")
    assert own.get_attr("container") in ("l3", b"l3")
    assert q.queue_ref.op.get_attr("container") in ("l2", b"l2")
    assert "container" not in c.op.node_def.attr


def test_same_shared_name_in_two_containers_holds_two_values():
    a = tf.Variable(1.0, name="x")
    with tf.container("other"):
        b = tf.get_default_graph().create_op(
            "VariableV2", [], [tf.float32_ref], name="x_other",
            attrs={"shape": tf.TensorShape([]), "dtype": tf.float32, "shared_name": "x"})
        set_b = tf.assign(b.outputs[0], 7.0)
    with tf.Session() as s:
        s.run(a.initializer)
        s.run(set_b)
        assert s.run(a) == 1.0 and s.run(b.outputs[0]) == 7.0


@pytest.mark.parametrize("use_resource", [False, True])
def test_count_up_to_both_kinds(use_resource):
    v = tf.Variable(tf.constant(0, tf.int64), use_resource=use_resource)
    step = v.count_up_to(2)
    assert step.op.type == ("ResourceCountUpTo" if use_resource else "CountUpTo")
    with tf.Session() as s:
        s.run(v.initializer)
        assert [s.run(step), s.run(step)] == [0, 1]
        with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 2"):
            s.run(step)
        assert s.run(v) == 2


def test_resource_variable_reads_on_its_caching_device():
    plain = tf.Variable(2.0, use_resource=True)
    assert plain.value().device == plain.device
    cached = tf.Variable(2.0, caching_device="/job:foo", use_resource=True)
    assert not cached.device.startswith("/job:foo")
    assert cached.value().device.startswith("/job:foo")
    assert cached.value() is cached.value()  # one cached copy, as TF


def test_initial_value_reading_an_uninitialized_variable_is_guarded():
    w = tf.Variable(tf.ones([3]), name="w")
    with tf.variable_scope("outer"):
        v = tf.Variable(w * 2 + 1, name="v")
    names = {op.name for op in tf.get_default_graph().get_operations()}
    # TF 1.15's names for the copies of the initial value's ops.
    assert {"w/read_outer/v", "outer/mul_outer/v", "outer/add_outer/v"} <= names
    with tf.Session() as s:
        s.run(v.initializer)  # w is still uninitialized
        np.testing.assert_array_equal(s.run(v), [3.0, 3.0, 3.0])
        assert not s.run(tf.is_variable_initialized(w))
        s.run(w.assign([5.0, 5.0, 5.0]))
        s.run(v.initializer)
        np.testing.assert_array_equal(s.run(v), [11.0, 11.0, 11.0])


def test_guard_leaves_cycles_and_resource_reads_alone():
    loop = tf.while_loop(lambda i: i < 10, lambda i: i + 1, (tf.constant(0),))
    assert variables._try_guard_against_uninitialized_dependencies("t", loop) is loop
    r = tf.Variable(3.0, name="r", use_resource=True)
    before = len(tf.get_default_graph().get_operations())
    tf.Variable(r.value() * 2, name="u")
    made = [op.name for op in tf.get_default_graph().get_operations()[before:]]
    assert not any("cond" in n for n in made)
    with pytest.raises(TypeError, match="needs to be a Tensor"):
        variables._try_guard_against_uninitialized_dependencies("t", 1.0)


def test_guard_finds_variables_without_scanning_the_collections(monkeypatch):
    """The guard looks a read variable up in an index kept in step with GLOBAL_VARIABLES
    and LOCAL_VARIABLES: each lookup reads no other variable's name."""
    from flowloom import variables as variables_module

    many = [tf.Variable(float(i), name=f"many{i}") for i in range(300)]
    tf.Variable(many[0] * 2.0)  # the index catches up with the collection once
    reads = [0]
    name = variables_module.RefVariable.name

    def counted(self):
        reads[0] += 1
        return name.fget(self)
    monkeypatch.setattr(variables_module.RefVariable, "name", property(counted))
    made = [tf.Variable(many[i] * 2.0 + many[-1 - i]) for i in range(40)]
    # The new variables append themselves (one name read each); a scan would read ~300
    # names for each of the 80 reads.
    assert reads[0] < 4 * len(made)
    with tf.Session() as s:
        s.run([v.initializer for v in made])
        assert s.run(made[3]) == 2.0 * 3 + 296


def test_guard_follows_collection_changes():
    g = tf.get_default_graph()
    w = tf.Variable(1.0, name="w")
    tf.Variable(w * 2.0, name="first")  # indexes GLOBAL_VARIABLES
    local = tf.Variable(4.0, name="l", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    g.get_collection_ref(tf.GraphKeys.GLOBAL_VARIABLES).remove(w)
    plain = tf.Variable(w * 3.0, name="plain")  # w is in no collection now: read as it is
    guarded = tf.Variable(local * 2.0, name="from_local")
    names = {op.name for op in g.get_operations()}
    assert "w/read_plain" not in names and "l/read_from_local" in names
    g.get_collection_ref(tf.GraphKeys.GLOBAL_VARIABLES).append(w)
    tf.Variable(w * 4.0, name="again")
    assert "w/read_again" in {op.name for op in g.get_operations()}
    with tf.Session() as s:
        s.run(guarded.initializer)  # l is uninitialized: its initial value is used
        assert s.run(guarded) == 8.0
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value w"):
            s.run(plain.initializer)  # unguarded: reads w itself
