"""Records what TensorFlow observes for hardening_cases.py and hardening_threads.py into
hardening_tf.json.

Run with the reference TensorFlow named by FLOWLOOM_TF_PYTHON:
  TF_CPP_MIN_LOG_LEVEL=3 "$FLOWLOOM_TF_PYTHON" tests/data/record_hardening.py
"""

import json
import os
import sys
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
import tensorflow.compat.v1 as tf  # noqa: E402
from tensorflow.python.framework import ops  # noqa: E402

tf.disable_v2_behavior()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hardening_cases  # noqa: E402
import hardening_threads  # noqa: E402

lib = types.SimpleNamespace(strip_name_scope=ops.strip_name_scope)
results = {}
for name, fn in hardening_cases.CASES:
    results[name] = fn(tf, lib)
    print(name, results[name], flush=True)
for name, fn in hardening_threads.CASES:
    results[name] = fn(tf)
    print(name, results[name], flush=True)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "hardening_tf.json"), "w") as f:
    json.dump(results, f, indent=1, sort_keys=True)
print("recorded", len(results), "cases")
