"""Summary programs that run unchanged on TensorFlow and on flowloom.

`build(tf)` adds summary ops to the default graph and returns {case name: summary tensor};
`record_summaries.py` runs it on TF 2.21 (compat.v1) and stores each op's name and
serialized output in summaries_tf.npz; tests/summary/test_summary_ops.py compares flowloom's.
Inputs come from seeded numpy generators, identical on both sides.
"""

import numpy as np


def inputs():
    rng = np.random.RandomState(1234)
    img_u8 = rng.randint(0, 256, size=(3, 6, 5, 3)).astype(np.uint8)
    img_pos = rng.uniform(0, 3, size=(2, 7, 4, 1)).astype(np.float32)
    img_neg = rng.normal(0, 2, size=(2, 5, 6, 4)).astype(np.float32)
    img_bad = rng.uniform(-1, 1, size=(1, 4, 4, 3)).astype(np.float32)
    img_bad[0, 1, 2, 0] = np.nan
    img_bad[0, 3, 0, 2] = np.inf
    return {
        "normal": rng.normal(0, 1, size=1000).astype(np.float32),
        "ints": np.array([-5, -1, 0, 0, 3, 1000000, 7], dtype=np.int32),
        "wide": np.concatenate([rng.uniform(-1e6, 1e6, 50), [1e-13, -1e-13, 0.0]]),
        "img_u8": img_u8,
        "img_pos": img_pos,
        "img_neg": img_neg,
        "img_bad": img_bad,
        "img_f64": rng.uniform(-0.5, 4, size=(1, 3, 3, 3)).astype(np.float64),
        "img_f16": rng.uniform(0, 1, size=(1, 4, 3, 3)).astype(np.float16),
        "img_zero": np.zeros((1, 2, 2, 1), np.float32),
        "audio2": rng.uniform(-1.2, 1.2, size=(2, 50)).astype(np.float32),
        "audio3": rng.uniform(-1, 1, size=(1, 30, 2)).astype(np.float32),
    }


def build(tf):
    x = inputs()
    out = {}
    out["scalar_f32"] = tf.summary.scalar("loss", tf.constant(1.5))
    out["scalar_again"] = tf.summary.scalar("loss", tf.constant(-2.25, tf.float64))
    out["scalar_int"] = tf.summary.scalar("count", tf.constant(7))
    with tf.name_scope("layer"):
        out["scalar_scoped"] = tf.summary.scalar("acc", tf.constant(0.1))
        out["hist_normal"] = tf.summary.histogram("weights", tf.constant(x["normal"]))
    out["scalar_family"] = tf.summary.scalar("lr", tf.constant(0.01), family="train")
    out["scalar_clean"] = tf.summary.scalar("bad name!", tf.constant(3.0))
    out["hist_ints"] = tf.summary.histogram("ints", tf.constant(x["ints"]))
    out["hist_wide"] = tf.summary.histogram("wide", tf.constant(x["wide"]))
    out["hist_empty"] = tf.summary.histogram("empty", tf.zeros([0]))
    out["hist_one"] = tf.summary.histogram("one", tf.constant(2.5))
    out["img_u8"] = tf.summary.image("u8", tf.constant(x["img_u8"]), max_outputs=2)
    out["img_pos"] = tf.summary.image("pos", tf.constant(x["img_pos"]))
    out["img_neg"] = tf.summary.image("neg", tf.constant(x["img_neg"]), max_outputs=1)
    out["img_bad"] = tf.summary.image("bad", tf.constant(x["img_bad"]))
    out["img_f64"] = tf.summary.image("f64", tf.constant(x["img_f64"]))
    out["img_f16"] = tf.summary.image("f16", tf.constant(x["img_f16"]))
    out["img_zero"] = tf.summary.image("zero", tf.constant(x["img_zero"]))
    out["audio2"] = tf.summary.audio("snd", tf.constant(x["audio2"]), 8000)
    out["audio3"] = tf.summary.audio("stereo", tf.constant(x["audio3"]), 44100.5,
                                     max_outputs=1)
    out["text"] = tf.summary.text("note", tf.constant("hello *world*"))
    out["text_vec"] = tf.summary.text("notes", tf.constant([["a", "b"], ["c", "d"]]))
    out["tensor_int"] = tf.summary.tensor_summary("t_int", tf.constant([[1, 2, 3]]))
    out["tensor_f64"] = tf.summary.tensor_summary(
        "t_f64", tf.constant([0.5, -1.0], tf.float64), summary_description="two numbers",
        display_name="Two")
    out["tensor_bool"] = tf.summary.tensor_summary("t_bool", tf.constant([True, False]))
    out["merge"] = tf.summary.merge([out["scalar_f32"], out["hist_ints"], out["text"]])
    out["merge_named"] = tf.summary.merge([out["scalar_int"]], name="merged")
    out["merge_all"] = tf.summary.merge_all()
    return out
