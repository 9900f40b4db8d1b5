"""Records how real TensorFlow reads dtype arguments (tests/data/dtype_cases.py).

Run with the reference Pythons (their paths in FLOWLOOM_TF_PYTHON / FLOWLOOM_TF1_PYTHON):
  $FLOWLOOM_TF_PYTHON tests/data/record_dtypes.py    -> dtypes_tf2.json (TF 2.21 compat.v1)
  $FLOWLOOM_TF1_PYTHON tests/data/record_dtypes.py   -> dtypes_tf1.json (TF 1.15)
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import numpy as np  # noqa: E402
import tensorflow as tf_root  # noqa: E402

tf = tf_root.compat.v1
tf.disable_v2_behavior()
sys.path.insert(0, os.path.dirname(__file__))
import dtype_cases  # noqa: E402


def as_dtype_result(expr):
    try:
        return {"name": tf.as_dtype(eval(expr, {"np": np})).name}
    except Exception as e:  # the class TF raises is what is recorded
        return {"error": type(e).__name__}


def api_result(source):
    tf.reset_default_graph()
    scope = {"tf": tf, "np": np}
    try:
        exec(source, scope)
    except Exception as e:  # some TF functions refuse a dtype name: the class is recorded
        return {"error": type(e).__name__}
    t = scope["result"]
    out = {"dtype": t.dtype.name, "shape": t.shape.as_list() if t.shape.ndims is not None
           else None}
    if scope["run"]:
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            v = np.asarray(sess.run(t))
        if v.dtype.kind in "OS":
            v = v.astype(str)
        out["value"] = v.tolist() if v.dtype.kind != "c" else [[z.real, z.imag] for z in
                                                               v.ravel().tolist()]
    return out


major = tf_root.__version__.split(".")[0]
record = {"version": tf_root.__version__,
          "as_dtype": {e: as_dtype_result(e) for e in dtype_cases.AS_DTYPE},
          "api": {k: api_result(s) for k, s in dtype_cases.API_CASES.items()}}
path = os.path.join(os.path.dirname(__file__), f"dtypes_tf{major}.json")
with open(path, "w") as f:
    json.dump(record, f, indent=1, sort_keys=True)
print("recorded", len(record["as_dtype"]), "as_dtype values and", len(record["api"]),
      "programs into", path)
