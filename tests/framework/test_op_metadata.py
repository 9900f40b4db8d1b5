"""Creation-site metadata, op deprecation by GraphDef version, mistyped edges and TF 1.15's
shape-error wording (each as TF 1.15.5 behaves)."""

import os
import sys

import pytest

import flowloom as tf
from flowloom.framework import op_def
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph_def import GRAPH_DEF_VERSION
from flowloom.test.test_util import set_producer_version


def _line():
    return sys._getframe(1).f_lineno


def _device_func(op):
    return "/cpu:*"


def test_device_assignments_record_each_device_block_and_its_line():
    with tf.Graph().as_default() as g:
        zero = tf.constant([0.0], name="zero")
        first = _line() + 1
        with tf.device("/cpu"):
            one = tf.constant([1.0], name="one")
            with g.device("/cpu:0"):
                two = tf.constant([2.0], name="two")
        with tf.device(_device_func):
            three = tf.constant(3.0, name="three")
    assert zero.op._device_assignments == []
    (a,) = one.op._device_assignments
    assert (a.obj, os.path.basename(a.filename), a.lineno) == \
        ("/cpu", "test_op_metadata.py", first)
    assert [(t.obj, t.lineno) for t in two.op._device_assignments] == \
        [("/cpu", first), ("/cpu:0", first + 2)]
    (f,) = three.op._device_assignments
    assert f.obj == f"_device_func<{__file__}, {_device_func.__code__.co_firstlineno}>"


def test_colocation_dict_names_the_op_and_the_block_line():
    with tf.Graph().as_default():
        zero = tf.constant(0.0, name="zero")
        two = tf.constant([2.0], name="two")
        line = _line() + 1
        with tf.colocate_with(two.op):
            three = tf.constant(3.0, name="three")
            with tf.colocate_with(zero, ignore_existing=True):
                four = tf.constant(4.0)
    meta = three.op._colocation_dict
    assert list(meta) == ["two"] and meta["two"].obj is None
    assert (meta["two"].filename, meta["two"].lineno) == (__file__, line)
    assert list(four.op._colocation_dict) == ["zero"]  # ignore_existing drops the outer one
    assert two.op._colocation_dict == {}


@pytest.fixture
def retired_op_type():
    """An op type removed at GraphDef version 8 (as TF's test op `Old`), registered for the
    test only."""
    opdef = op_def.defop("FlowloomTestRetired", outputs=["y: float32"])
    opdef.deprecated(8, "For reasons").shape(lambda op: [tf.TensorShape([])])
    yield "FlowloomTestRetired"
    del op_def._REGISTRY["FlowloomTestRetired"]
    op_def._COMPLETE.pop("FlowloomTestRetired", None)


def test_deprecated_op_type_refused_from_its_version(retired_op_type):
    with tf.Graph().as_default():
        with pytest.raises(NotImplementedError,
                           match=rf"^Op FlowloomTestRetired is not available in GraphDef "
                                 rf"version {GRAPH_DEF_VERSION}\. It has been removed in "
                                 rf"version 8\. For reasons\.$"):
            apply_op(retired_op_type)
    with tf.Graph().as_default() as g:
        set_producer_version(g, 7)
        assert g.graph_def_versions.producer == 7
        op = apply_op(retired_op_type)
        assert op.type == retired_op_type
        assert (op.op_def.deprecation.version, op.op_def.deprecation.explanation) == \
            (8, "For reasons")


def test_mistyped_edge_is_refused_when_run():
    g = tf.Graph()
    with g.as_default():
        w = tf.constant(0)
        x = tf.constant("")
        y = tf.constant(1)
        z = y + w
        z.op._update_input(0, x)  # accepted at build time, as in TF
    with tf.Session(graph=g) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Input 0 of node add was passed string from Const_1:0 "
                                 "incompatible with expected int32"):
            sess.run(z)
        z.op._update_input(0, y)  # mended: runs again
        assert sess.run(z) == 1


def test_shape_error_message_is_tf_1_15s():
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as e:
            tf.ones([1, 2, 3]) + tf.ones([4, 5, 6])
    assert str(e.value) == ("Dimensions must be equal, but are 2 and 5 for 'add' (op: 'AddV2') "
                            "with input shapes: [1,2,3], [4,5,6].")


def test_control_dependencies_write_no_tf2_attr():
    with tf.Graph().as_default() as g:
        a = tf.constant(1.0)
        with tf.control_dependencies([a]):
            tf.identity(a)
    assert all("_has_manual_control_dependencies" not in n.attr for n in g.as_graph_def().node)
