"""Under FLOWLOOM_SEED_RULES=1 flowloom builds TF 1.15's ops, op for op (names, types, order),
for the gradients whose op counts TF 1.15's default op seeds depend on (recorded with
tests/data/record_tf1_graphs.py; the cases are in tests/ops/tf1_graph_cases.py)."""

import json
import os

import numpy as np
import pytest

import flowloom as tf
from tests.ops import tf1_graph_cases

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "tf1_graphs.json")

with open(DATA) as f:
    RECORDED = json.load(f)["graphs"]


# Cases whose ops agree with TF's in number and order but not all in name: the op counts
# (what TF 1.15's default op seeds depend on) are compared, and the names elsewhere.
NAME_GAPS = {
    "array_ops_grad": "an IndexedSlices converted for Transpose is named transpose/x in TF",
}
_RANDOM = {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}


@pytest.mark.parametrize("case", sorted(tf1_graph_cases.CASES))
def test_ops_are_tf_1_15s(case, monkeypatch):
    monkeypatch.setenv("FLOWLOOM_SEED_RULES", "1")
    got = tf1_graph_cases.op_list(tf, tf1_graph_cases.CASES[case])
    want = RECORDED[case]
    if case in NAME_GAPS:
        assert len(got) == len(want)
        assert [i for i, (_, t) in enumerate(got) if t in _RANDOM] == \
            [i for i, (_, t) in enumerate(want) if t in _RANDOM]
        differ = [(g, w) for g, w in zip(got, want) if g != w]
        assert len(differ) <= 1, differ
    else:
        assert got == want


@pytest.mark.parametrize("rules", ["1", "2"])
def test_gradients_of_broadcasting_ops_with_unknown_shapes(rules, monkeypatch):
    monkeypatch.setenv("FLOWLOOM_SEED_RULES", rules)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, None)
        b = tf.constant([1.0, 2.0, 3.0])
        loss = tf.reduce_sum(x * y) + tf.reduce_mean(tf.reduce_sum(x - y, 1)) + \
            tf.reduce_sum(tf.reduce_max(x + b, 1, keepdims=True))
        grads = tf.gradients(loss, [x, y, b])
        others = tf.gradients(tf.reduce_sum(tf.maximum(x, b) + tf.squared_difference(x, b) +
                                            tf.pow(x + 1.0, b) + x / b), [x, b])
        xv = np.array([[1.0, 5.0, 2.0], [4.0, 0.0, 6.0]], np.float32)
        yv = np.array([2.0, 3.0, 4.0], np.float32)
        with tf.Session() as sess:
            gx, gy, gb = sess.run(grads, {x: xv, y: yv})
            ox, ob = sess.run(others, {x: xv})
    arg = np.argmax(xv + [1.0, 2.0, 3.0], 1)
    onehot = np.eye(3, dtype=np.float32)[arg]
    np.testing.assert_allclose(gx, np.broadcast_to(yv, (2, 3)) + 0.5 + onehot)
    np.testing.assert_allclose(gy, xv.sum(0) - 0.5 * 2)
    np.testing.assert_allclose(gb, onehot.sum(0))
    bv = np.array([1.0, 2.0, 3.0])
    x1 = xv + 1.0
    want_x = (xv >= bv) + 2 * (xv - bv) + bv * x1 ** (bv - 1) + 1 / bv
    want_b = ((xv < bv) - 2 * (xv - bv) + x1 ** bv * np.log(x1) - xv / bv ** 2).sum(0)
    np.testing.assert_allclose(ox, want_x, rtol=1e-5)
    np.testing.assert_allclose(ob, want_b, rtol=1e-5)
