"""Records what TensorFlow 1.15 gives for cost_model_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_cost_model.py
(writes tests/data/cost_model_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cost_model_programs  # noqa: E402

result = cost_model_programs.program(tf)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cost_model_tf.json"),
          "w") as f:
    json.dump(result, f, sort_keys=True)
print("recorded", len(result), "cases")
