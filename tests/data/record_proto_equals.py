"""Records what TensorFlow 1.15 gives for proto_equals_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_proto_equals.py
(writes tests/data/proto_equals_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
from google.protobuf import text_format  # noqa: E402
from tensorflow.core.framework import summary_pb2  # noqa: E402
from tensorflow.python.framework import test_util  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import proto_equals_programs  # noqa: E402

result = proto_equals_programs.program(test_util.TensorFlowTestCase, summary_pb2, text_format)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "proto_equals_tf.json"),
          "w") as f:
    json.dump(result, f, sort_keys=True, indent=1)
print(result)
