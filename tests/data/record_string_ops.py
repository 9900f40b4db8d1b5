"""Records what TensorFlow 1.15 gives for string_ops_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_string_ops.py
(writes tests/data/string_ops_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import string_ops_programs  # noqa: E402

result = string_ops_programs.program(tf)
result["tf_version"] = tf.__version__
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "string_ops_tf.json"),
          "w") as f:
    json.dump(result, f, sort_keys=True, indent=0, ensure_ascii=True)
print("recorded", sum(len(v) for v in result.values() if isinstance(v, dict)), "cases")
