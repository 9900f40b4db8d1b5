"""A variable whose initial value comes from a function (what tf.get_variable makes) is
built by a short path that changes the block state in place; the general path opens the
blocks themselves. Both must give the same graph: ops, names, attrs, devices, colocation,
user sites, collections, and the same state after the variable (also after an error)."""

import pytest

import flowloom as tf
from flowloom import variables


def _describe(g):
    out = []
    for op in g.get_operations():
        out.append((op.name, op.type, tuple(t.name for t in op.inputs),
                    tuple(c.name for c in op.control_inputs), op.device,
                    tuple(sorted((k, repr(v)) for k, v in op._attrs.items())),
                    op._traceback, tuple(op.traceback[-1:]) if op.traceback else None,
                    repr(sorted(op._colocation_dict.items())), repr(op._device_assignments),
                    tuple((str(t.dtype), str(t.shape)) for t in op.outputs)))
    for k in sorted(g.get_all_collection_keys(), key=str):
        out.append((k, tuple(getattr(v, "name", repr(v)) for v in g.get_collection(k))))
    return out


def _dense():
    h = tf.placeholder(tf.float32, [None, 4])
    for i in range(2):
        with tf.variable_scope("layer%d" % i):
            w = tf.get_variable("weights", [4, 4])
            b = tf.get_variable("biases", [4], initializer=tf.zeros_initializer())
            h = tf.nn.relu(tf.matmul(h, w) + b)


def _reuse():
    with tf.variable_scope("s"):
        a = tf.get_variable("a", [2])
    with tf.variable_scope("s", reuse=tf.AUTO_REUSE):
        assert tf.get_variable("a", [2]) is a
        tf.get_variable("new", [2])


def _device():
    with tf.device("/cpu:0"):
        tf.get_variable("a", [2])
    with tf.device(lambda op: "/cpu:0" if op.type == "VariableV2" else "/cpu:1"):
        tf.get_variable("b", [2, 3])


def _control_and_colocation():
    c = tf.constant(1.0, name="c")
    with tf.control_dependencies([c]):
        tf.get_variable("a", [2])
    with tf.colocate_with(c):
        tf.get_variable("b", [2])


def _name_scope_and_tf_variable():
    with tf.name_scope("ns"):
        tf.get_variable("a", [2])
        tf.Variable(lambda: tf.ones([2]), name="vf")
        tf.Variable(lambda: tf.ones([2]))
        tf.Variable(lambda: tf.ones([2]), shape=[None])


def _options():
    tf.get_variable("i", [2], dtype=tf.int32)
    tf.get_variable("t", [2], trainable=False, collections=["mine"])
    tf.get_local_variable("l", [2])
    tf.get_variable("cls", [2], initializer=tf.ones_initializer)
    tf.get_variable("fn", initializer=lambda: tf.ones([3]))
    tf.get_variable("r", [2], regularizer=tf.reduce_sum, constraint=lambda v: v)
    tf.get_variable("cached", [2], caching_device="/cpu:0")
    tf.get_variable("u", initializer=lambda: tf.ones([2]), validate_shape=False)


def _getters_and_creators():
    def getter(next_getter, name, *args, **kwargs):
        return next_getter(name + "_x", *args, **kwargs)

    def creator(next_creator, **kwargs):
        kwargs["trainable"] = False
        return next_creator(**kwargs)

    with tf.variable_scope("s", custom_getter=getter):
        tf.get_variable("a", [2])
    with tf.variable_creator_scope(creator):
        tf.get_variable("b", [2])
    tf.get_variable("p", [4, 2], partitioner=tf.fixed_size_partitioner(2))


def _inside_cond_and_nested():
    p = tf.placeholder(tf.bool)
    tf.cond(p, lambda: tf.get_variable("a", [2]).value(), lambda: tf.zeros([2]))

    def init(shape, dtype=None, partition_info=None):
        return tf.get_variable("inner", shape) * 2.0

    a = tf.get_variable("outer", [2], initializer=init)
    tf.Variable(lambda: a.initialized_value() + 1.0, name="reads")


def _attr_scope_container_thread_local():
    g = tf.get_default_graph()
    with g._attr_scope({"_foo": 3}):
        tf.get_variable("a", [2])
    with tf.container("ct"):
        tf.get_variable("b", [2])
    g.switch_to_thread_local()
    with tf.device("/cpu:0"):
        tf.get_variable("c", [2])


def _failures():
    def bad(shape, dtype=None, partition_info=None):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        tf.get_variable("a", [2], initializer=bad)
    with pytest.raises(ValueError, match="initial_value must have a shape specified"):
        tf.get_variable("u", initializer=lambda: tf.placeholder(tf.float32, [None]))
    with pytest.raises(ValueError, match="'a b' is not a valid scope name"):
        tf.Variable(lambda: tf.ones([2]), name="a b")
    with pytest.raises(ValueError, match="already exists"):
        tf.get_variable("b", [2])
        tf.get_variable("b", [2])
    # The blocks were left as they were: device, name scope, attrs, colocation, devices.
    g = tf.get_default_graph()
    assert g.get_name_scope() == "" and g._attr_scope_map == {}
    assert g._colocation_stack == [] and g._device_function_stack == []
    with tf.device("/cpu:0"):
        tf.get_variable("c", [2])
    tf.constant(1.0, name="after")


CASES = [_dense, _reuse, _device, _control_and_colocation, _name_scope_and_tf_variable,
         _options, _getters_and_creators, _inside_cond_and_nested,
         _attr_scope_container_thread_local, _failures]


def _build(case, short_path, monkeypatch):
    if not short_path:  # (returns before any op is made: the user sites stay the test's)
        monkeypatch.setattr(variables, "_build_from_fn", lambda *args: False)
    g = tf.Graph()
    with g.as_default():
        case()
    monkeypatch.undo()
    return _describe(g)


def _short_path_answers(case, monkeypatch):
    """What the short path answered for each variable `case` makes (True: it built it)."""
    calls = []
    real = variables._build_from_fn

    def counted(*args):
        calls.append(real(*args))
        return calls[-1]

    monkeypatch.setattr(variables, "_build_from_fn", counted)
    with tf.Graph().as_default():
        case()
    monkeypatch.undo()
    return calls


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_short_path_builds_what_the_blocks_build(case, monkeypatch):
    assert _build(case, True, monkeypatch) == _build(case, False, monkeypatch)
    assert True in _short_path_answers(case, monkeypatch)  # it was taken


def test_short_path_refuses_what_it_cannot_build(monkeypatch):
    # Inside the cond (a control-flow context): the blocks; the nested ones: the short path.
    assert _short_path_answers(_inside_cond_and_nested, monkeypatch) == \
        [False, True, True, True]
    # A name the name-scope check must reject.
    with pytest.raises(ValueError):
        _short_path_answers(lambda: tf.Variable(lambda: tf.ones([2]), name="a b"), monkeypatch)


def test_short_path_in_the_global_default_graph(monkeypatch):
    tf.reset_default_graph()
    try:
        _dense()
        short = _describe(tf.get_default_graph())
        tf.reset_default_graph()
        monkeypatch.setattr(variables, "_build_from_fn", lambda *args: False)
        _dense()
        assert _describe(tf.get_default_graph()) == short
    finally:
        tf.reset_default_graph()


# -- variable_scope("name"): entered in place (the name scope, then the VariableScope) -----
def _scope_state():
    s = tf.get_variable_scope()
    return (s.name, s.original_name_scope, s.reuse, tf.get_default_graph().get_name_scope())


def _scopes():
    seen = []
    with tf.variable_scope("a") as a:
        seen.append(_scope_state())
        with tf.variable_scope("b", reuse=True):
            seen.append(_scope_state())
        with tf.variable_scope("b"):  # name scope b_1, variable scope a/b again
            seen.append(_scope_state())
            tf.get_variable("v", [1])
        with tf.variable_scope(None, default_name="b"):  # b_2 after two opened
            seen.append(_scope_state())
        with tf.variable_scope("c", reuse=tf.AUTO_REUSE):
            tf.get_variable("v", [1])
            tf.get_variable("v", [1])
            seen.append(_scope_state())
    with tf.variable_scope(a):  # the scope object again, below plain scopes
        seen.append(_scope_state())
        with tf.variable_scope("d"):
            seen.append(_scope_state())
    with tf.name_scope("ns"):
        with tf.variable_scope("_under"):  # valid only below a name scope
            seen.append(_scope_state())
        with tf.variable_scope("e", initializer=tf.ones_initializer()):
            tf.get_variable("w", [1])
            seen.append(_scope_state())
    with tf.variable_scope("a", reuse=True):
        tf.get_variable("b/v", [1])
    with tf.variable_scope("a/deep"):
        seen.append(_scope_state())
    with pytest.raises(ValueError, match="not a valid scope name"):
        with tf.variable_scope("a b"):
            pass
    with pytest.raises(RuntimeError, match="boom"):
        with tf.variable_scope("f"):
            raise RuntimeError("boom")
    seen.append(_scope_state())
    outer = tf.variable_scope("g")
    inner = tf.variable_scope("h")
    outer.__enter__()
    inner.__enter__()
    with pytest.raises(RuntimeError, match="Improper nesting"):
        outer.__exit__(None, None, None)
    seen.append(_scope_state())
    return seen


def test_named_scopes_enter_as_the_general_path(monkeypatch):
    g1 = tf.Graph()
    with g1.as_default():
        short = _scopes()
    monkeypatch.setattr(tf.variable_scope, "_enter_named", lambda self: None)
    g2 = tf.Graph()
    with g2.as_default():
        general = _scopes()
    assert short == general
    assert _describe(g1) == _describe(g2)
