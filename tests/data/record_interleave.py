"""Records TF 1.15's parallel_interleave orders and tf.contrib.data names: interleave_tf1.json.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_interleave.py
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import interleave_cases  # noqa: E402

result = {"interleave": interleave_cases.observe(tf, tf.data.experimental),
          "contrib": interleave_cases.observe_contrib(tf)}
with open(os.path.join(HERE, "interleave_tf1.json"), "w") as f:
    json.dump({"version": tf.__version__, "cases": result}, f, indent=1, sort_keys=True)
