"""Records TF 2.21's summary op names and serialized outputs for summary_cases.py.

Run with a TF install: "$FLOWLOOM_TF_PYTHON" tests/data/record_summaries.py
Writes summaries_tf.npz: for each case, `name:<case>` (the tensor name, as uint8 bytes) and
`out:<case>` (the serialized Summary, as uint8 bytes).
"""

import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import summary_cases

cases = summary_cases.build(tf)
with tf.Session() as sess:
    values = sess.run(cases)
record = {}
for key, tensor in cases.items():
    record["name:" + key] = np.frombuffer(tensor.name.encode(), np.uint8)
    record["out:" + key] = np.frombuffer(values[key], np.uint8)
np.savez_compressed(os.path.join(HERE, "summaries_tf.npz"), **record)
print("recorded", len(cases), "summary cases")
