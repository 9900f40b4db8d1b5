"""Records what TensorFlow 1.15 gives for color_space_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_color_space.py
(writes tests/data/color_space_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import image_ops  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import color_space_programs  # noqa: E402

result = color_space_programs.program(tf, {"pad_v1": image_ops.resize_image_with_pad_v1})
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "color_space_tf.json"),
          "w") as f:
    json.dump(result, f, sort_keys=True)
print("recorded", len(result), "values")
