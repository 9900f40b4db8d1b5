"""Records what TensorFlow 1.15 observes for the pipeline, queue-semantics and tower programs.

Run: FLOWLOOM_TF1_PYTHON=/path/to/tf1/python; $FLOWLOOM_TF1_PYTHON tests/data/record_pipelines.py
[pipelines|queue_semantics|towers ...] (any TF 1.x interpreter; all three without arguments).
Writes tests/data/pipelines_tf.json (pipeline_programs.py), queue_semantics_tf.json
(queue_semantics_programs.py) and towers_tf.json (tower_programs.py).
"""

import importlib
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

if hasattr(tf, "compat") and hasattr(tf.compat, "v1") and not hasattr(tf, "FIFOQueue"):
    tf = tf.compat.v1
    tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# recording name -> (programs module, JSON it writes)
RECORDINGS = {
    "pipelines": ("pipeline_programs", "pipelines_tf.json"),
    "queue_semantics": ("queue_semantics_programs", "queue_semantics_tf.json"),
    "towers": ("tower_programs", "towers_tf.json"),
}

for name in sys.argv[1:] or sorted(RECORDINGS):
    module_name, json_name = RECORDINGS[name]
    module = importlib.import_module(module_name)
    results = {}
    for prog in module.PROGRAMS:
        results[prog.__name__] = prog(tf)
        print(prog.__name__, file=sys.stderr)
    with open(os.path.join(HERE, json_name), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True, default=str)
    print("recorded", len(results), "programs into", json_name)
