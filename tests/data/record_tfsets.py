"""Records what TensorFlow 1.15 gives for tfsets_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_tfsets.py (writes tests/data/tfsets_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tfsets_programs  # noqa: E402

result = tfsets_programs.program(tf)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tfsets_tf.json"),
          "w") as f:
    json.dump(result, f, indent=0, sort_keys=True)
print("recorded", sum(len(v) for v in result.values()), "values")
