"""tf.gradients against real TensorFlow: the same programs, the same names and values.

The programs and TF's results are in tests/data/gradients_tf.json (recorded by
tests/data/record_gradients.py).
"""

import json
import os

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import gradients_impl
from tests.data.gradient_observe import run_gradient_program

with open(os.path.join(os.path.dirname(__file__), "data", "gradients_tf.json")) as f:
    RECORDED = json.load(f)

# Cases whose gradient graphs match TF op for op (name and type of every `gradients*` op).
SAME_OPS = {"broadcast_add_mul", "custom_gradient", "gate_gradients", "gather_indexed_slices",
            "gather_twice_and_dense", "grad_ys_and_multiple_ys", "hessians", "nn_conv_bias_relu",
            "override_map", "second_order", "stop_gradient_and_stop_list", "unconnected_and_int",
            "unknown_shape_broadcast"}
# The others differ in a few ops: TF folds shapes through any constant subgraph (Prod's
# transpose), and strided-slice packing of tensor bounds names its Consts differently.


@pytest.fixture(autouse=True)
def _forget_test_gradients():
    yield
    for name in [n for n in gradients_impl._NAMED_GRADIENTS if n.startswith("FlowloomTest")]:
        del gradients_impl._NAMED_GRADIENTS[name]


def _run(source):
    return run_gradient_program(tf, np, source)


@pytest.mark.parametrize("case", sorted(RECORDED["cases"]))
def test_gradients_match_tensorflow(case):
    want = RECORDED["cases"][case]
    names, ops, values = _run(want["source"])
    assert names == want["names"]
    if case in SAME_OPS:
        assert ops == want["ops"]
    assert len(values) == len(want["values"])
    for got, expected in zip(values, want["values"]):
        if isinstance(expected, dict):
            assert np.allclose(got.values, expected["values"], rtol=1e-5)
            assert got.indices.tolist() == expected["indices"]
            assert got.dense_shape.tolist() == expected["dense_shape"]
        elif isinstance(expected, str):
            assert (got.decode() if isinstance(got, bytes) else got) == expected
        else:
            assert np.allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", sorted(RECORDED["errors"]))
def test_gradient_errors_match_tensorflow(case):
    want = RECORDED["errors"][case]
    with tf.Graph().as_default(), pytest.raises(Exception) as info:
        exec(want["source"], {"tf": tf, "np": np})  # noqa: S102
    assert type(info.value).__name__ == want["error"]
    assert str(info.value).strip('"')[:60] == want["message"].strip('"')[:60]


def test_aggregation_methods_give_the_same_sum():
    x = tf.placeholder(tf.float32, [3])
    y = x * 2.0 + tf.sin(x) + x * x
    tree, = tf.gradients(y, x, aggregation_method=tf.AggregationMethod.EXPERIMENTAL_TREE)
    add_n, = tf.gradients(y, x)
    with pytest.raises(ValueError):
        tf.gradients(y, x, aggregation_method=7)
    with tf.Session() as sess:
        a, b = sess.run([tree, add_n], {x: [0.1, 0.2, 0.3]})
    assert np.allclose(a, b)


def test_unconnected_zero():
    x = tf.placeholder(tf.float32, [2])
    u = tf.placeholder(tf.float32, [2])
    g = tf.gradients(x * 2.0, [u], unconnected_gradients="zero")[0]
    with tf.Session() as sess:
        assert sess.run(g, {u: [1.0, 2.0]}).tolist() == [0.0, 0.0]


def test_indexed_slices_fetch_and_feed():
    values = tf.placeholder(tf.float32, [None, 2])
    indices = tf.placeholder(tf.int32, [None])
    s = tf.IndexedSlices(values, indices, tf.constant([3, 2]))
    dense = tf.convert_to_tensor(s)
    with tf.Session() as sess:
        fetched, d = sess.run([s, dense], {s: ([[1., 2.], [3., 4.]], [2, 2])})
    assert fetched.indices.tolist() == [2, 2]
    assert d.tolist() == [[0, 0], [0, 0], [4, 6]]


def test_hessians_of_a_quadratic_form():
    a = np.array([[2.0, 1.0], [1.0, 3.0]], dtype=np.float32)
    x = tf.placeholder(tf.float32, [2])
    y = 0.5 * tf.reduce_sum(x * tf.squeeze(tf.matmul(tf.constant(a), tf.expand_dims(x, 1))))
    h, = tf.hessians(y, x)
    assert h.shape.as_list() == [2, 2]
    with tf.Session() as sess:
        assert np.allclose(sess.run(h, {x: [0.3, -0.7]}), a)


def test_colocate_gradients_with_ops():
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.device("/cpu:0"):
        y = tf.sin(x, name="y")
    g, = tf.gradients(y, x, colocate_gradients_with_ops=True)
    assert g.op.colocation_groups() == [b"loc:@y"]


def test_grad_ys_of_another_static_shape_is_reduced_to_each_input():
    # TF 1.15: grad_ys of shape [1] for scalar x*y + x gives scalar gradients 6.0 and 3.0
    # (BroadcastGradientArgs at run time, not static axes that would keep the [1]).
    with tf.Graph().as_default():
        x, y = tf.constant(2.0), tf.constant(3.0)
        gx, gy = tf.gradients(x * y + x, [x, y], grad_ys=tf.constant([1.5]))
        assert gx.get_shape().as_list() == [] and gy.get_shape().as_list() == []
        with tf.Session() as sess:
            assert sess.run([gx, gy]) == [6.0, 3.0]


def test_aggregated_gradient_is_colocated_with_its_first_summand():
    # TF 1.15's _MultiDeviceAddN: gradients/AddN [b'loc:@gradients/MatMul_grad/MatMul'].
    with tf.Graph().as_default():
        w = tf.Variable([[1.0]])
        x = tf.constant([[1.0, 2.0]])
        grad = tf.gradients(tf.matmul(w, x) + tf.matmul(w, x * 2), [w])[0]
        assert grad.op.type == "AddN"
        assert grad.op.colocation_groups() == [b"loc:@gradients/MatMul_grad/MatMul"]
