"""Records what TensorFlow 1.15 gives for barrier_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_barrier.py
(writes tests/data/barrier_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import data_flow_ops  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import barrier_programs  # noqa: E402

result = barrier_programs.program(tf, data_flow_ops.Barrier)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "barrier_tf.json"),
          "w") as f:
    json.dump(result, f, sort_keys=True)
for k, v in sorted(result.items()):
    print(k, v)
