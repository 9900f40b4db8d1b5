"""Records what TensorFlow 1.15 observes for sparse_batch_programs.py.

Run: FLOWLOOM_TF1_PYTHON=/path/to/tf1/python; $FLOWLOOM_TF1_PYTHON tests/data/record_sparse_batch.py
(writes tests/data/sparse_batch_tf.json).
"""

import json
import os
import sys
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import sparse_ops  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparse_batch_programs  # noqa: E402

sparse_map = types.SimpleNamespace(
    add_sparse_to_tensors_map=sparse_ops._add_sparse_to_tensors_map,
    add_many_sparse_to_tensors_map=sparse_ops._add_many_sparse_to_tensors_map,
    take_many_sparse_from_tensors_map=sparse_ops._take_many_sparse_from_tensors_map)
results = {}
for prog in sparse_batch_programs.PROGRAMS:
    results[prog.__name__] = prog(tf, sparse_map)
    print(prog.__name__, file=sys.stderr)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sparse_batch_tf.json"),
          "w") as f:
    json.dump(results, f, indent=1, sort_keys=True)
print("recorded", len(results), "programs")
