"""Records TF 1.15's function inlining (Grappler's function optimizer) on the programs of
grappler_inline_programs.py.

  $FLOWLOOM_TF1_PYTHON tests/data/record_grappler_inline.py   -> grappler_inline_tf1.json
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf import config_pb2, meta_graph_pb2  # noqa: E402
from tensorflow.python.framework import function, graph_util  # noqa: E402
from tensorflow.python.grappler import tf_optimizer  # noqa: E402
from tensorflow.python.training.saver import export_meta_graph  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import grappler_inline_programs as programs  # noqa: E402

modules = (tf_optimizer, meta_graph_pb2, config_pb2, export_meta_graph)
record = {"version": tf.__version__, "programs": {}}
for name, program in programs.PROGRAMS.items():
    with tf.Graph().as_default():
        fetch, feeds, evaluate = program(tf, function)
        before = tf.get_default_graph().as_graph_def()
        with tf.Session() as sess:
            expected = [float(v) for v in sess.run(evaluate, feeds)]
        inlined = programs.inline(tf, function, *modules, fetch)
    with tf.Graph().as_default():
        tf.import_graph_def(inlined, name="")
        with tf.Session() as sess:
            after = [float(v) for v in sess.run(evaluate, feeds)]
    assert after == expected, (name, after, expected)
    record["programs"][name] = dict(programs.summary(inlined), values=after,
                                    functions_before=len(before.library.function))
ops, value = programs.freeze(tf, function, *modules, graph_util)
record["freeze"] = {"ops": ops, "value": value}
path = os.path.join(os.path.dirname(__file__), "grappler_inline_tf1.json")
with open(path, "w") as f:
    json.dump(record, f, indent=1, sort_keys=True)
print("recorded", len(record["programs"]), "programs into", path)
