"""tf.get_variable's ways to a variable: direct, through a custom getter, through a
variable creator, with a regularizer; the same ops and attrs on each, as TF 1.15 makes
them (the facts below were read from TF 1.15.5)."""

import inspect

import flowloom as tf
from flowloom.variable_scope import VariableScope
from flowloom.variable_store import _get_default_variable_store, _VariableStore


def _node_list(g):
    """(name, type, inputs, attrs without random seeds and values) of every op."""
    out = []
    for n in g.as_graph_def().node:
        attrs = {k: str(v) for k, v in n.attr.items() if k not in ("seed", "seed2", "value")}
        out.append((n.name, n.op, tuple(n.input), n.device, tuple(sorted(attrs.items()))))
    return out


def _dense(wrap=None):
    g = tf.Graph()
    with g.as_default():
        h = tf.placeholder(tf.float32, [None, 4])
        with tf.variable_scope("layer", custom_getter=wrap):
            w = tf.get_variable("weights", [4, 4])
            b = tf.get_variable("biases", [4], initializer=tf.zeros_initializer())
            tf.nn.relu(tf.matmul(h, w) + b)
    return g


def test_custom_getter_and_creator_paths_build_the_direct_paths_ops():
    direct = _node_list(_dense())
    assert [n[0] for n in direct[:9]] == [
        "Placeholder", "layer/weights/Initializer/random_uniform/shape",
        "layer/weights/Initializer/random_uniform/min",
        "layer/weights/Initializer/random_uniform/max",
        "layer/weights/Initializer/random_uniform/RandomUniform",
        "layer/weights/Initializer/random_uniform/sub",
        "layer/weights/Initializer/random_uniform/mul",
        "layer/weights/Initializer/random_uniform", "layer/weights"]
    assert [n[1] for n in direct[5:8]] == ["Sub", "Mul", "Add"]  # TF 1.15's scaling ops
    seen = []

    def getter(next_getter, name, *args, **kwargs):
        seen.append(name)
        return next_getter(name, *args, **kwargs)

    assert _node_list(_dense(getter)) == direct
    assert seen == ["layer/weights", "layer/biases"]

    created = []

    def creator(next_creator, **kwargs):
        created.append(kwargs["name"])
        return next_creator(**kwargs)

    g = tf.Graph()
    with g.as_default(), tf.variable_creator_scope(creator):
        h = tf.placeholder(tf.float32, [None, 4])
        with tf.variable_scope("layer"):
            w = tf.get_variable("weights", [4, 4])
            b = tf.get_variable("biases", [4], initializer=tf.zeros_initializer())
            tf.nn.relu(tf.matmul(h, w) + b)
    assert created == ["layer/weights", "layer/biases"]
    assert _node_list(g) == direct


def test_regularizer_ops_are_colocated_with_the_variable_outside_control_dependencies():
    # TF 1.15: every Regularizer op has `_class: loc:@v`, no control inputs, and the
    # device scope's device.
    g = tf.Graph()
    with g.as_default():
        c = tf.no_op(name="c")
        with tf.control_dependencies([c]), tf.device("/cpu:0"):
            tf.get_variable("v", [2], regularizer=lambda x: tf.nn.l2_loss(x) * 2.0)
        (loss,) = g.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        assert loss.name == "v/Regularizer/mul:0"
        ops = [op for op in g.get_operations() if "Regularizer" in op.name]
        assert [op.name for op in ops] == ["v/Regularizer/L2Loss", "v/Regularizer/mul/y",
                                           "v/Regularizer/mul"]
        for op in ops:
            assert op.colocation_groups() == [b"loc:@v"]
            assert op.control_inputs == []
            assert op.device == "/device:CPU:0"


def test_a_regularizer_returning_none_adds_no_loss():
    with tf.Graph().as_default() as g:
        tf.get_variable("v", [2], regularizer=lambda x: None)
        assert g.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == []


def test_get_variable_signatures_are_tfs():
    # TF 1.15's parameter lists (keyword callers of either may pass any of them).
    assert list(inspect.signature(VariableScope.get_variable).parameters) == [
        "self", "var_store", "name", "shape", "dtype", "initializer", "regularizer", "reuse",
        "trainable", "collections", "caching_device", "partitioner", "validate_shape",
        "use_resource", "custom_getter", "constraint", "synchronization", "aggregation"]
    assert list(inspect.signature(_VariableStore.get_variable).parameters) == [
        "self", "name", "shape", "dtype", "initializer", "regularizer", "reuse", "trainable",
        "collections", "caching_device", "partitioner", "validate_shape", "use_resource",
        "custom_getter", "constraint", "synchronization", "aggregation"]
    with tf.Graph().as_default():
        v = tf.get_variable_scope().get_variable(
            _get_default_variable_store(), "x", [1],
            synchronization=tf.VariableSynchronization.AUTO,
            aggregation=tf.VariableAggregation.NONE)
        assert v.name == "x:0"


def test_reuse_error_names_the_users_line_through_a_custom_getter():
    def getter(next_getter, *args, **kwargs):
        return next_getter(*args, **kwargs)

    with tf.Graph().as_default():
        with tf.variable_scope("s", custom_getter=getter):
            tf.get_variable("w", [1])  # the line the error names
        try:
            with tf.variable_scope("s"):
                tf.get_variable("w", [1])
        except ValueError as e:
            message = str(e)
        else:
            raise AssertionError("no reuse error")
    assert "Variable s/w already exists" in message
    assert "test_get_variable_paths.py" in message and "the line the error names" in message
