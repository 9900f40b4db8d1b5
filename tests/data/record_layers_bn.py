"""Records what TensorFlow 1.15 gives for layers_bn_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_layers_bn.py   (writes tests/data/layers_bn_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layers_bn_programs  # noqa: E402

result = layers_bn_programs.program(tf)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "layers_bn_tf.json"),
          "w") as f:
    json.dump(result, f, sort_keys=True)
print("recorded", len(result), "values")
