"""Records a TF 2.21 graph with summary and parse_example ops, and its outputs.

  "$FLOWLOOM_TF_PYTHON" tests/data/record_summary_graph.py

Writes summary_graph_tf.pb (the GraphDef) and summary_graph_tf.npz (inputs and outputs);
tests/summary/test_imported_graph.py imports the graph into flowloom and compares.
"""

import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
x = tf.placeholder(tf.float32, [None, 3, 3, 1], name="x")
tf.summary.image("img", x, max_outputs=2)
tf.summary.histogram("h", x)
tf.summary.scalar("s", tf.reduce_mean(x))
tf.summary.audio("a", tf.reshape(x, [-1, 9]), 100)
tf.summary.text("t", tf.constant("txt"))
m = tf.summary.merge_all(name="merged")
s = tf.placeholder(tf.string, [None], name="serialized")
p = tf.parse_example(
    s,
    {
        "a": tf.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0]),
        "v": tf.VarLenFeature(tf.int64),
        "q": tf.FixedLenSequenceFeature([1], tf.string, allow_missing=True),
    },
)
tf.identity(p["a"], name="pa")
tf.identity(p["v"].values, name="pv")
tf.identity(p["q"], name="pq")
with open(os.path.join(HERE, "summary_graph_tf.pb"), "wb") as f:
    f.write(tf.get_default_graph().as_graph_def().SerializeToString())
ex = tf.train.Example(
    features=tf.train.Features(
        feature={
            "v": tf.train.Feature(int64_list=tf.train.Int64List(value=[4, 5])),
            "q": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"z"])),
        }
    )
).SerializeToString()
xv = np.linspace(-1, 2, 18, dtype=np.float32).reshape(2, 3, 3, 1)
with tf.Session() as sess:
    out = sess.run([m.name, "pa:0", "pv:0", "pq:0"], {x: xv, s: [ex, ex]})
np.savez_compressed(
    os.path.join(HERE, "summary_graph_tf.npz"),
    merged=np.frombuffer(out[0], np.uint8),
    pa=out[1],
    pv=out[2],
    pq=out[3].astype(bytes),
    x=xv,
    ex=np.frombuffer(ex, np.uint8),
)
print("recorded", m.name)
