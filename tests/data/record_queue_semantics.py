"""Records what TensorFlow 1.15 observes for queue_semantics_programs.py.

Run: FLOWLOOM_TF1_PYTHON=/path/to/tf1/python; $FLOWLOOM_TF1_PYTHON tests/data/record_queue_semantics.py
(any TF 1.x interpreter; writes tests/data/queue_semantics_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

if hasattr(tf, "compat") and hasattr(tf.compat, "v1") and not hasattr(tf, "FIFOQueue"):
    tf = tf.compat.v1
    tf.disable_v2_behavior()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import queue_semantics_programs  # noqa: E402

results = {}
for prog in queue_semantics_programs.PROGRAMS:
    results[prog.__name__] = prog(tf)
    print(prog.__name__, file=sys.stderr)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "queue_semantics_tf.json"),
          "w") as f:
    json.dump(results, f, indent=1, sort_keys=True, default=str)
print("recorded", len(results), "programs")
