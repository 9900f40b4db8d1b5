"""Records what TensorFlow 1.15 gives for temporary_variable_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_temporary_variable.py
(writes tests/data/temporary_variable_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import gen_state_ops  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import temporary_variable_programs  # noqa: E402

result = temporary_variable_programs.program(tf, gen_state_ops)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "temporary_variable_tf.json"),
          "w") as f:
    json.dump(result, f, sort_keys=True, indent=1)
print("recorded", len(result), "values")
