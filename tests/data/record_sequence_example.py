"""Records what TensorFlow 1.15 gives for sequence_example_programs.py.

Run: FLOWLOOM_TF1_PYTHON=/path/to/tf1/python; $FLOWLOOM_TF1_PYTHON tests/data/record_sequence_example.py
(writes tests/data/sequence_example_tf.json).
"""

import json
import os
import sys
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.core.example import example_pb2, feature_pb2  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sequence_example_programs  # noqa: E402

pb = types.SimpleNamespace(**{n: getattr(feature_pb2, n) for n in (
    "Feature", "Features", "FeatureList", "FeatureLists", "FloatList", "Int64List",
    "BytesList")}, SequenceExample=example_pb2.SequenceExample)
result = sequence_example_programs.program(tf, pb)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sequence_example_tf.json"),
          "w") as f:
    json.dump(result, f, indent=1, sort_keys=True)
print("recorded", len(result), "values")
