"""Records TF 2.21's results for parsing_cases.py (run with a TF install).

  "$FLOWLOOM_TF_PYTHON" tests/data/record_parsing.py

Writes parsing_tf.npz (values: `<case>/<key>` for dense results, `<case>/<key>/indices`,
`/values`, `/dense_shape` for sparse ones; strings as fixed-width bytes arrays) and
parsing_tf.json ({case: {"names": {key: tensor name}, "error": [class, message]}}).
"""

import json
import os
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import parsing_cases


def core_message(message):
    """The kernel's own message, without TF's 'Graph execution error' wrapping."""
    body = message.split("\n\t [[")[0]
    marker = body.find("\nNode: ")
    if marker >= 0:
        body = body[body.index("\n", marker + 1) + 1:]
    return body.strip()


def store(arrays, key, value):
    value = np.asarray(value)
    if value.dtype == object:
        value = value.astype(bytes) if value.size else np.zeros(value.shape, "S1")
    arrays[key] = value


# The file case_tfrecord_file_written_by_tf reads: TF's own TFRecord writer, GZIP.
with tf.io.TFRecordWriter(parsing_cases.TFRECORD, tf.io.TFRecordOptions("GZIP")) as writer:
    for record in parsing_cases._batch(tf):
        writer.write(record)

arrays, meta = {}, {}
for name, case in parsing_cases.CASES:
    tf.reset_default_graph()
    fetches, feed = case(tf)
    info = {"names": {}}
    for key, t in fetches.items():
        if isinstance(t, tf.SparseTensor):
            info["names"][key] = [t.indices.name, t.values.name, t.dense_shape.name,
                                  str(t.indices.shape), str(t.values.shape),
                                  str(t.dense_shape.shape)]
        else:
            info["names"][key] = [t.name, str(t.shape)]
    try:
        with tf.Session() as sess:
            values = sess.run(fetches, feed)
    except tf.errors.OpError as e:
        info["error"] = [type(e).__name__, core_message(e.message)]
        values = {}
    for key, value in values.items():
        if isinstance(value, tf.SparseTensorValue):
            for part in ("indices", "values", "dense_shape"):
                store(arrays, f"{name}/{key}/{part}", getattr(value, part))
        else:
            store(arrays, f"{name}/{key}", value)
    meta[name] = info
np.savez_compressed(os.path.join(HERE, "parsing_tf.npz"), **arrays)
with open(os.path.join(HERE, "parsing_tf.json"), "w") as f:
    json.dump(meta, f, indent=1, sort_keys=True)
print("recorded", len(meta), "parsing cases")
