"""The shortcuts graph construction takes (issue 13) give what the general paths give.

Each shortcut (tf.constant of Python scalars, TensorShape of int tuples, conversion
functions looked up per type, variable-scope counts reset per subtree, the apply_op fast
path) is checked against the general computation it stands for.
"""

import random

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import dtypes
from flowloom.framework.tensor_conversion import (infer_dtype, register_tensor_conversion_function,
                                                  tensor_value_to_numpy)
from flowloom.framework.tensor_shape import Dimension, TensorShape
from flowloom.ops.array import array_ops
from flowloom.variable_scope import _VariableScopeStore

VALUES = [1.5, 3, 0, -2 ** 31, 2 ** 31 - 1, 2 ** 31, -2 ** 31 - 1, [64, 64], (1, 2, 3), [1, 2.0],
          [True], [], [2 ** 40], True, 1e300, -0.0, [0], [-5, 7]]
DTYPES = [None, tf.float32, tf.float64, tf.float16, tf.int32, tf.int64, tf.bool, tf.uint8,
          tf.int8, tf.complex64, tf.string]


def _general(value, dtype):
    dtype = infer_dtype(value) if dtype is None else dtype
    return tensor_value_to_numpy(value, dtype), dtype


@pytest.mark.filterwarnings("ignore:overflow encountered")
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_constant_shortcut_matches_the_general_conversion(value):
    for dtype in DTYPES:
        fast = array_ops._scalar_array(value, dtype)
        if fast is None:
            continue  # the general path handles it
        arr, dt = fast
        want, want_dt = _general(value, dtype)
        assert dt is want_dt and arr.dtype == want.dtype and arr.shape == want.shape
        np.testing.assert_array_equal(arr, want)
        assert not arr.flags.writeable


def test_constant_shortcut_takes_scalars_and_int_lists_only():
    assert array_ops._scalar_array(1.0, None)[1] is dtypes.float32
    assert array_ops._scalar_array(7, None)[1] is dtypes.int32
    assert array_ops._scalar_array([2, 3], tf.int64)[1] is dtypes.int64
    for value, dtype in [(2 ** 31, None), (True, None), (1.5, tf.int32), ([1, 2.0], None),
                         ([], None), ([1, 2], tf.float32), (3, tf.bool), ("a", None)]:
        assert array_ops._scalar_array(value, dtype) is None, (value, dtype)
    with tf.Graph().as_default():
        assert tf.constant(2 ** 31).dtype == tf.int64  # TF widens, through the general path
        with pytest.raises(TypeError):
            tf.constant(1.5, dtype=tf.int32)


def test_tensor_shape_of_int_tuples_equals_the_dimension_path():
    for dims in [(), (0,), (64, 64), [None, 3], (1, None, 2), [5]]:
        general = TensorShape([Dimension(d) for d in dims])
        # (== as TF: an unknown dimension equals only itself, so compare the dims held)
        assert TensorShape(dims)._dims == general._dims
        assert TensorShape(dims) == general or None in dims
    assert TensorShape((True, 2)).as_list() == [1, 2]  # not ints: converted as Dimensions
    assert TensorShape([np.int64(4)]).as_list() == [4]
    with pytest.raises(ValueError):
        TensorShape((3, -1))


def test_conversion_functions_registered_later_apply_to_types_seen_before():
    class Celsius(float):
        pass

    with tf.Graph().as_default():
        assert tf.convert_to_tensor(Celsius(1.0)).op.type == "Const"  # cached: no function
        register_tensor_conversion_function(
            Celsius, lambda v, dtype=None, name=None, as_ref=False:
            tf.identity(tf.constant(float(v)), name="from_celsius"))
        assert tf.convert_to_tensor(Celsius(1.0)).op.name == "from_celsius"


def _reference_close(counts, scope_name):
    prefix = scope_name + "/" if scope_name else ""
    for k in list(counts):
        if not scope_name or k.startswith(prefix):
            counts[k] = 0


def test_variable_scope_counts_match_resetting_every_matching_name():
    rng = random.Random(0)
    parts = ["a", "b", "a/b", "c_1", "x/y/z"]
    for _ in range(20):
        store, ref = _VariableScopeStore(), {}
        for _ in range(200):
            name = "/".join(rng.choice(parts) for _ in range(rng.randint(0, 3)))
            if rng.random() < 0.6:
                store.open_variable_scope(name)
                ref[name] = ref.get(name, 0) + 1
            else:
                store.close_variable_subscopes(name)
                _reference_close(ref, name)
            assert {k: v for k, v in store.variable_scopes_count.items() if v} == \
                {k: v for k, v in ref.items() if v}


def test_scope_names_are_still_made_unique_per_parent():
    with tf.Graph().as_default():
        names = []
        for _ in range(2):
            with tf.variable_scope(None, default_name="block"):
                with tf.variable_scope(None, default_name="dense"):
                    names.append(tf.get_variable("w", [1]).op.name)
                with tf.variable_scope(None, default_name="dense"):
                    names.append(tf.get_variable("w", [1]).op.name)
    assert names == ["block/dense/w", "block/dense_1/w", "block_1/dense/w", "block_1/dense_1/w"]


def test_invalid_scope_names_still_raise_after_valid_ones_were_cached():
    with tf.Graph().as_default():
        with tf.name_scope("ok_name"):
            pass
        with pytest.raises(ValueError, match="is not a valid scope name"):
            with tf.name_scope("bad name"):
                pass
        with pytest.raises(ValueError, match="is not a valid scope name"):
            with tf.name_scope("_root"):  # not valid at the root, valid inside a scope
                pass
        with tf.name_scope("outer"):
            with tf.name_scope("_inner") as s:
                assert s == "outer/_inner/"


def test_fast_path_errors_are_the_general_paths():
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        i = tf.constant(1)
        with pytest.raises(TypeError, match="Input 'y' of 'Add' Op has type int32 that does "
                                            "not match type float32 of argument 'x'"):
            tf.add(x, i)
        v = tf.Variable(1.0)
        a = tf.assign(v, 2.0)  # a ref input: colocated with the variable, as in TF
        assert a.op.get_attr("_class") == [b"loc:@Variable"]
        with pytest.raises(TypeError, match="requires that input 'ref' be a mutable tensor"):
            tf.assign(x, 2.0)


def test_control_edges_start_empty_and_grow_on_both_ends():
    with tf.Graph().as_default() as g:
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        assert a.op.control_inputs == [] and a.op._control_outputs == ()
        b.op._add_control_input(a.op)
        b.op._add_control_input(a.op)  # once only
        assert b.op.control_inputs == [a.op] and list(a.op._control_outputs) == [b.op]
        with g.control_dependencies([a]):
            c = tf.identity(b, name="c")
        assert c.op.control_inputs == [a.op] and list(a.op._control_outputs) == [b.op, c.op]
        b.op._remove_all_control_inputs()
        assert b.op.control_inputs == [] and list(a.op._control_outputs) == [c.op]
        with tf.Session() as sess:
            assert sess.run(c) == 2.0


def test_construction_stacks_are_shared_until_switched_to_thread_local():
    import threading

    g = tf.Graph()
    seen = {}
    with g.as_default(), g.device("/cpu:0"):
        g.switch_to_thread_local()

        def build():
            with g.as_default():
                seen["thread"] = tf.constant(1.0).op.device
                with g.device("/cpu:1"):
                    seen["inner"] = tf.constant(1.0).op.device

        t = threading.Thread(target=build)
        t.start()
        t.join()
        seen["main"] = tf.constant(1.0).op.device
    assert seen == {"thread": "/device:CPU:0", "inner": "/device:CPU:1",
                    "main": "/device:CPU:0"}
