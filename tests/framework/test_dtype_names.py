"""dtype arguments as TF reads them: names ("float", "double", ...), NumPy and Python types.

Checked against tests/data/dtypes_tf2.json (TF 2.21 compat.v1) and dtypes_tf1.json (TF 1.15),
recorded by tests/data/record_dtypes.py from tests/data/dtype_cases.py.
"""

import json
import os
import sys

import numpy as np
import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
sys.path.insert(0, DATA)
import dtype_cases  # noqa: E402

TF2 = json.load(open(os.path.join(DATA, "dtypes_tf2.json")))
TF1 = json.load(open(os.path.join(DATA, "dtypes_tf1.json")))


def _as_dtype(expr):
    try:
        return {"name": tf.as_dtype(eval(expr, {"np": np})).name}
    except Exception as e:
        return {"error": type(e).__name__}


@pytest.mark.parametrize("expr", dtype_cases.AS_DTYPE)
def test_as_dtype_matches_tensorflow(expr):
    want = TF2["as_dtype"][expr]
    if want.get("name", "").startswith("float8"):
        # A dtype TF 2.x added after TF1 (float8_*): flowloom follows TF 1.15 and refuses it.
        want = TF1["as_dtype"][expr]
    assert _as_dtype(expr) == want


@pytest.mark.parametrize("case", sorted(dtype_cases.API_CASES))
def test_functions_take_dtype_names(case):
    want = TF2["api"][case]
    scope = {"tf": tf, "np": np}
    exec(dtype_cases.API_CASES[case], scope)
    t = scope["result"]
    assert t.dtype.name == want["dtype"]
    assert (t.shape.as_list() if t.shape.ndims is not None else None) == want["shape"]
    if scope["run"]:
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            v = np.asarray(sess.run(t))
        if v.dtype.kind in "OS":
            v = v.astype(str)
        got = v.tolist() if v.dtype.kind != "c" else [[z.real, z.imag] for z in
                                                      v.ravel().tolist()]
        assert got == want["value"]


def test_quantized_dtypes_exist_as_in_tf():
    assert tf.qint8.is_quantized and not tf.qint8.is_integer
    assert tf.as_dtype("quint8").as_datatype_enum == 12
    assert tf.as_dtype(np.dtype([("qint32", np.int32)])) is tf.qint32
    assert not tf.float32.is_quantized


def test_dtype_equality_with_names():
    assert tf.float32 == "float" and tf.float64 == "double" and tf.float16 == "half"
    assert tf.float32 != "int32"
    assert tf.float32 != "not a dtype"
