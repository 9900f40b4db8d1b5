"""Records TF's values for compat_crash_cases.py: compat_crashes_tf.json.

Run: $FLOWLOOM_TF_PYTHON tests/data/record_compat_crashes.py   (TF 2.21 compat.v1)
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
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compat_crash_cases  # noqa: E402


def run(source):
    tf.reset_default_graph()
    scope = {"tf": tf, "np": np}
    exec(source, scope)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(scope["fetch"], scope["feeds"])
    return [None if v is None else np.asarray(v, dtype=np.float64).tolist() for v in values]


out = {name: run(src) for name, src in compat_crash_cases.CASES.items()}
with open(os.path.join(HERE, "compat_crashes_tf.json"), "w") as f:
    json.dump({"version": tf_root.__version__, "cases": out}, f, indent=1, sort_keys=True)
print(json.dumps(out))
