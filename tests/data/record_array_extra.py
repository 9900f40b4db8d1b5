"""Records what TensorFlow 1.15 gives for array_extra_programs.py.

Run: FLOWLOOM_TF1_PYTHON=/path/to/tf1/python; $FLOWLOOM_TF1_PYTHON tests/data/record_array_extra.py
(writes tests/data/array_extra_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import math_ops  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import array_extra_programs  # noqa: E402

result = array_extra_programs.program(tf, math_ops.reduced_shape)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "array_extra_tf.json"),
          "w") as f:
    json.dump(result, f, indent=1, sort_keys=True)
print("recorded", len(result), "values")
