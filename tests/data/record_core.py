"""Records what real TensorFlow observes for core_programs.py (run with a TF install)."""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
sys.path.insert(0, os.path.dirname(__file__))
import core_programs  # noqa: E402

results = {}
for prog in core_programs.PROGRAMS:
    tf.reset_default_graph()
    results[prog.__name__] = prog(tf)
with open(os.path.join(os.path.dirname(__file__), "core_expected.json"), "w") as f:
    json.dump(results, f, indent=1, sort_keys=True, default=str)
print("recorded", len(results), "programs")
