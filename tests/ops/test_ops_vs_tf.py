"""flowloom against values, gradients, names and error classes recorded from real TF."""

import json
import os

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import errors

from tests.ops import op_cases

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
VALUES = np.load(os.path.join(DATA, "ops_values.npz"), allow_pickle=False)
META = json.load(open(os.path.join(DATA, "ops_meta.json")))


# Cases whose output names differ from TF's for a stated reason (values are still compared).
NAMES_DIFFER = {
    "depthwise_valid_dilated": "TF builds dilated depthwise convolution with SpaceToBatchND; "
                               "flowloom's kernel takes the dilations attr directly",
}


def _dense(v):
    if hasattr(v, "indices"):
        out = np.zeros(v.dense_shape, v.values.dtype)
        np.add.at(out, v.indices, v.values)
        return out
    return v


def _tol(dtype):
    return (2e-5, 2e-5) if np.dtype(dtype) == np.float64 else (2e-4, 2e-4)


@pytest.mark.parametrize("name", sorted(META["cases"]))
def test_values_and_gradients(name):
    spec = op_cases.CASES[name](tf)
    outs, xs = spec["out"], spec.get("xs", [])
    meta = META["cases"][name]
    if name not in NAMES_DIFFER:
        assert [t.name for t in outs] == meta["names"]
    assert [t.dtype.name for t in outs] == meta["dtypes"]
    for t, shape in zip(outs, meta["shapes"]):
        assert (t.shape.as_list() if t.shape.ndims is not None else None) == shape, t.name
    if name in op_cases.RANDOM_CASES:
        return  # values: see test_random_ops.py
    with tf.Session() as sess:
        got = sess.run(list(outs))
        if xs:
            w = tf.constant(op_cases.grad_weights(name, np.shape(got[0])).astype(
                outs[0].dtype.as_numpy_dtype))
            got += [_dense(g) for g in sess.run(tf.gradients(outs[0], xs, grad_ys=w))]
    for i, value in enumerate(got):
        kind, idx = ("out", i) if i < len(outs) else ("grad", i - len(outs))
        want = VALUES[f"{name}/{kind}{idx}"]
        value = np.asarray(value)
        assert value.shape == want.shape, f"{kind}{idx}"
        assert value.dtype == want.dtype, f"{kind}{idx}"
        if want.dtype.kind == "f":
            rtol, atol = _tol(want.dtype)
            np.testing.assert_allclose(value, want, rtol=rtol, atol=atol,
                                       err_msg=f"{name} {kind}{idx}")
        else:
            np.testing.assert_array_equal(value, want, err_msg=f"{name} {kind}{idx}")


@pytest.mark.parametrize("name", sorted(META["errors"]))
def test_error_classes(name):
    want = META["errors"][name]
    cls = getattr(errors, want["class"], None) or {"ValueError": ValueError,
                                                   "TypeError": TypeError}[want["class"]]
    if want["at"] == "build":
        with pytest.raises(cls):
            op_cases.ERROR_CASES[name](tf)
        return
    t = op_cases.ERROR_CASES[name](tf)
    with tf.Session() as sess:
        with pytest.raises(cls):
            sess.run(t)
