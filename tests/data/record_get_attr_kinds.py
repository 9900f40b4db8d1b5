"""Records what TensorFlow 1.15 gives for get_attr_kinds_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_get_attr_kinds.py
(writes tests/data/get_attr_kinds_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework import function  # noqa: E402
from tensorflow.python.ops import gen_functional_ops  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import get_attr_kinds_programs  # noqa: E402

result = get_attr_kinds_programs.program(
    tf, lambda args, tout, f: gen_functional_ops.partitioned_call(args, tout, f),
    function.Defun)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "get_attr_kinds_tf.json"),
          "w") as f:
    json.dump(result, f, sort_keys=True, indent=1)
print("recorded", len(result), "values")
