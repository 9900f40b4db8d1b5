"""Records what TensorFlow 1.15 gives for timeline_analysis_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_timeline_analysis.py
(writes tests/data/timeline_analysis_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
from tensorflow.core.framework import step_stats_pb2  # noqa: E402
from tensorflow.python.client import timeline  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timeline_analysis_programs  # noqa: E402

result = timeline_analysis_programs.program(step_stats_pb2, timeline)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "timeline_analysis_tf.json"),
          "w") as f:
    json.dump(result, f, sort_keys=True, indent=1)
print("recorded", len(result), "cases")
