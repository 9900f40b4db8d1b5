"""Records what TensorFlow 1.15 observes for estimator_programs.py.

Run: $FLOWLOOM_TF1_PYTHON tests/data/record_estimator.py (a TF 1.15 interpreter with
tf.estimator; writes tests/data/estimator_tf.json).
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import estimator_programs  # noqa: E402

only = sys.argv[1:]
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "estimator_tf.json")
results = {}
if only and os.path.exists(path):
    with open(path) as f:
        results = json.load(f)
for prog in estimator_programs.PROGRAMS + estimator_programs.PANDAS_PROGRAMS:
    if only and prog.__name__ not in only:
        continue
    results[prog.__name__] = prog(tf)
    print(prog.__name__, file=sys.stderr)
if not only or "namespace_names" in only:
    results["namespace_names"] = estimator_programs.namespace_names(tf)
with open(path, "w") as f:
    json.dump(results, f, indent=1, sort_keys=True, default=str)
print("recorded", len(results), "programs")
