"""flowloom against values, names, dtypes, shapes and error classes recorded from TF 1.15
(tests/data/record_api.py) for the case modules of tests/api."""

import importlib
import json
import os

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import errors

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
MODULES = [m for m in ("math", "nn", "layers", "metrics")
           if os.path.exists(os.path.join(DATA, f"api_{m}.json"))]


def _load(module):
    registry = importlib.import_module(f"tests.api.{module}_cases").R
    meta = json.load(open(os.path.join(DATA, f"api_{module}.json")))
    values = np.load(os.path.join(DATA, f"api_{module}.npz"), allow_pickle=False)
    return registry, meta, values


LOADED = {m: _load(m) for m in MODULES}
CASES = [(m, n) for m in MODULES for n in sorted(LOADED[m][1]["cases"])]
ERRORS = [(m, n) for m in MODULES for n in sorted(LOADED[m][1]["errors"])]


def _tol(dtype):
    return (1e-6, 1e-6) if np.dtype(dtype) == np.float64 else (2e-4, 2e-4)


@pytest.mark.parametrize("module,name", CASES, ids=[f"{m}-{n}" for m, n in CASES])
def test_case_matches_tf(module, name):
    from tests.data.record_api import run_case

    registry, meta, values = LOADED[module]
    want = meta["cases"][name]
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        got, outs = run_case(tf, name, registry.cases[name])
    if name not in registry.names_differ:
        assert [t.name for t in outs] == want["names"]
    assert [t.dtype.name for t in outs] == want["dtypes"]
    for t, shape in zip(outs, want["shapes"]):
        assert (t.shape.as_list() if t.shape.ndims is not None else None) == shape, t.name
    assert len(got) == len([k for k in values.files if k.startswith(name + "/")])
    for i, value in enumerate(got):
        expected = values[f"{name}/{i}"]
        assert value.shape == expected.shape, f"{name} value {i}"
        assert value.dtype == expected.dtype, f"{name} value {i}"
        if expected.dtype.kind == "f":
            rtol, atol = _tol(expected.dtype)
            np.testing.assert_allclose(value, expected, rtol=rtol, atol=atol,
                                       err_msg=f"{name} value {i}")
        else:
            np.testing.assert_array_equal(value, expected, err_msg=f"{name} value {i}")


@pytest.mark.parametrize("module,name", ERRORS, ids=[f"{m}-{n}" for m, n in ERRORS])
def test_error_class_matches_tf(module, name):
    registry, meta, _ = LOADED[module]
    want = meta["errors"][name]
    assert want is not None, f"{name} did not fail under TF"
    cls = getattr(errors, want["class"], None) or {"ValueError": ValueError,
                                                   "TypeError": TypeError}[want["class"]]
    with tf.Graph().as_default():
        if want["at"] == "build":
            with pytest.raises(cls):
                registry.errors[name](tf)
            return
        t = registry.errors[name](tf)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            with pytest.raises(cls):
                sess.run(t)
