"""Records the reference files in this folder with real TensorFlow.

Not part of the test run. Regenerate with a TF install (TF 2.21 was used):
  "$FLOWLOOM_TF_PYTHON" tests/io/data/make_reference_data.py
The values written here are repeated in the tests that read the files.
"""

import os
import shutil

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))


def reference_tensors():
    """The tensors of tf_savev2/ckpt, also defined in tests/io/test_bundle.py."""
    return {
        "a/float": np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
        "b/int64": np.array([1, -2, 3 << 40], dtype=np.int64),
        "c/string": np.array([[b"hello", b""], [b"\x00\xff", b"world" * 3]], dtype=object),
        "d/scalar_double": np.array(2.5, dtype=np.float64),
        "e/bool": np.array([True, False, True]),
        "f/int32": np.array([7], dtype=np.int32),
        "g/uint8_empty": np.zeros([0, 4], dtype=np.uint8),
    }


def save_v2_bundle():
    # SaveV2 with sorted names is BundleWriter with no Saver around it.
    tensors = reference_tensors()
    names = sorted(tensors)
    directory = os.path.join(HERE, "tf_savev2")
    shutil.rmtree(directory, ignore_errors=True)
    with tf.Graph().as_default(), tf.Session() as sess:
        consts = [tf.constant(tensors[n]) for n in names]
        sess.run(
            tf.raw_ops.SaveV2(
                prefix=os.path.join(directory, "ckpt"),
                tensor_names=names,
                shape_and_slices=[""] * len(names),
                tensors=consts,
            )
        )


def saver_checkpoint():
    directory = os.path.join(HERE, "tf_saver")
    shutil.rmtree(directory, ignore_errors=True)
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.Variable([[1.0, 2.0], [3.0, 4.5]], name="weights")
        tf.Variable(42, dtype=tf.int64, name="global_step")
        tf.Variable([b"alpha", b"beta"], name="vocab")
        with tf.variable_scope("layer"):
            tf.get_variable("bias", initializer=np.array([0.5, -0.25, 8.0], np.float32))
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().save(sess, os.path.join(directory, "model.ckpt"))


def records():
    payloads = [b"", b"first", b"x" * 300, bytes(range(256))]
    for name, compression in [
        ("plain.tfrecord", ""),
        ("gzip.tfrecord", "GZIP"),
        ("zlib.tfrecord", "ZLIB"),
    ]:
        options = tf.io.TFRecordOptions(compression_type=compression)
        with tf.io.TFRecordWriter(os.path.join(HERE, name), options) as writer:
            for payload in payloads:
                writer.write(payload)


def events():
    directory = os.path.join(HERE, "tf_events")
    shutil.rmtree(directory, ignore_errors=True)
    with tf.Graph().as_default() as graph:
        tf.constant(1.0, name="c")
        writer = tf.summary.FileWriter(directory)
        for step in range(3):
            summary = tf.Summary(
                value=[tf.Summary.Value(tag="loss", simple_value=1.0 / (step + 1))]
            )
            writer.add_summary(summary, global_step=step)
        writer.add_graph(graph)
        writer.close()


def protos():
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(np.ones([3, 2], np.float32), name="w")
        tf.nn.relu(tf.matmul(x, w), name="y")
        tf.train.Saver()
        with open(os.path.join(HERE, "graph_def.pb"), "wb") as f:
            f.write(graph.as_graph_def().SerializeToString(deterministic=True))
        meta = tf.train.export_meta_graph()
        with open(os.path.join(HERE, "meta_graph.pb"), "wb") as f:
            f.write(meta.SerializeToString(deterministic=True))
    example = tf.train.Example(
        features=tf.train.Features(
            feature={
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, -5])),
                "weight": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5])),
                "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"cat"])),
            }
        )
    )
    with open(os.path.join(HERE, "example.pb"), "wb") as f:
        f.write(example.SerializeToString(deterministic=True))
    config = tf.ConfigProto(
        device_count={"CPU": 2},
        inter_op_parallelism_threads=2,
        allow_soft_placement=True,
        log_device_placement=True,
    )
    config.gpu_options.allow_growth = True
    config.graph_options.optimizer_options.opt_level = tf.OptimizerOptions.L0
    with open(os.path.join(HERE, "config.pb"), "wb") as f:
        f.write(config.SerializeToString(deterministic=True))
    with open(os.path.join(HERE, "config.pbtxt"), "w") as f:
        f.write(str(config))


if __name__ == "__main__":
    save_v2_bundle()
    saver_checkpoint()
    records()
    events()
    protos()
