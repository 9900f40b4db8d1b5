"""Records what TensorFlow 1.15 gives for tfmath_kernels_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_tfmath_kernels.py (writes
tests/data/tfmath_kernels_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tfmath_kernels_programs  # noqa: E402

result = tfmath_kernels_programs.program(tf)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tfmath_kernels_tf.json"),
          "w") as f:
    json.dump(result, f, indent=0, sort_keys=True)
print("recorded", sum(len(v) for v in result.values()), "values")
