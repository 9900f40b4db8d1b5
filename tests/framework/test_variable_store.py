"""EagerVariableStore in graph mode, get_local_variable's signature, and tf_inspect."""

import functools

import pytest

import flowloom as tf
from flowloom.variable_store import EagerVariableStore, _VariableStore
from flowloom.framework import tf_inspect


def test_eager_variable_store_holds_its_own_variables():
    with tf.Graph().as_default():
        store = EagerVariableStore()
        with store.as_default():
            trainable = tf.get_variable("v1", [], trainable=True)
            frozen = tf.get_variable("v2", [], trainable=False)
            concat = tf.get_variable("v3", [], collections=[tf.GraphKeys.CONCATENATED_VARIABLES])
            assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES) == [trainable, frozen]
            assert tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES) == [trainable, concat]
        assert store.variables() == [trainable, frozen, concat]
        assert store.trainable_variables() == [trainable, concat]
        assert store.non_trainable_variables() == [frozen]
        # Outside the block the graph's own store is back: "v1" is new there.
        outside = tf.get_variable("v1", [])
        assert outside is not trainable and outside.name == "v1_1:0"
        with store.as_default(), tf.variable_scope("", reuse=True):
            assert tf.get_variable("v1", []) is trainable


def test_eager_variable_store_copy_has_new_variables_with_the_values():
    with tf.Graph().as_default():
        store = EagerVariableStore()
        with store.as_default():
            v = tf.get_variable("w", initializer=tf.constant([1.0, 2.0]))
        copy = store.copy()
        (w2,) = copy.variables()
        assert w2 is not v and w2.trainable
        with tf.Session() as s:
            s.run(v.initializer)
            s.run(w2.initializer)
            assert list(s.run(w2)) == [1.0, 2.0]
        with pytest.raises(ValueError, match="does not hold eager variables"):
            EagerVariableStore(_VariableStore())


def test_get_local_variable_takes_get_variables_arguments():
    assert tf_inspect.getargspec(tf.get_variable).args == \
        tf_inspect.getargspec(tf.get_local_variable).args
    with tf.Graph().as_default():
        v = tf.get_local_variable("loc", [2], collections=["extra"], trainable=True)
        assert v in tf.get_collection(tf.GraphKeys.LOCAL_VARIABLES)
        assert v in tf.get_collection("extra")
        assert v not in tf.trainable_variables()


def test_tf_inspect_sees_through_wraps_and_refuses_keyword_only():
    def f(a, b=2, *rest, **kw):
        return a

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)

    spec = tf_inspect.getargspec(wrapper)
    assert spec == tf_inspect.ArgSpec(["a", "b"], "rest", "kw", (2,))
    assert tf_inspect.getcallargs(wrapper, 1) == {"a": 1, "b": 2, "rest": (), "kw": {}}

    def g(a, *, b):
        return a

    with pytest.raises(ValueError, match="keyword-only"):
        tf_inspect.getargspec(g)
    assert tf_inspect.getfullargspec(g).kwonlyargs == ["b"]
