"""flowloom inspect: every kind of file flowloom reads, and running a SavedModel signature."""

import os
import subprocess
import sys

import numpy as np

import flowloom as tf
from flowloom.cli import inspect

SAVED = os.path.join(os.path.dirname(__file__), "..", "data", "saved_models")


def test_saved_model_signatures_and_variables():
    text = "\n".join(inspect.describe(os.path.join(SAVED, "mlp")))
    assert "MetaGraph with tags ['serve']" in text
    assert "signature 'serving_default' (tensorflow/serving/predict)" in text
    assert "input x: x:0 float32 (-1, 4)" in text
    assert "output probs: probs:0 float32 (-1, 3)" in text
    assert "dense/kernel float32 (4, 8)" in text
    assert "assets: ['vocab.txt']" in "\n".join(inspect.describe(os.path.join(SAVED,
                                                                              "with_assets")))


def test_run_a_signature_from_the_command_line(tmp_path):
    x = np.ones((2, 4), np.float32)
    np.save(tmp_path / "x.npy", x)
    out = subprocess.run([sys.executable, "-m", "flowloom.cli.main", "inspect",
                          os.path.join(SAVED, "mlp"), "--run", "--signature", "serving_default",
                          "--input", f"x={tmp_path / 'x.npy'}"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("classes: array([0, 0])")
    got = inspect.run_signature(os.path.join(SAVED, "mlp"), "serving_default", {"x": x})
    assert got["probs"].shape == (2, 3)
    np.testing.assert_allclose(got["probs"].sum(1), 1.0, rtol=1e-6)


def test_checkpoint_graph_events_and_records(tmp_path):
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="weights")
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.matmul(x, v, name="y")
    tf.summary.scalar("loss", tf.reduce_sum(y))
    merged = tf.summary.merge_all()
    with tf.Session() as sess:
        sess.run(v.initializer)
        prefix = tf.train.Saver().save(sess, str(tmp_path / "model"))
        writer = tf.summary.FileWriter(str(tmp_path / "logs"))
        for step in (1, 2, 5):
            writer.add_summary(sess.run(merged, {x: np.ones((1, 2))}), step)
        writer.close()
    tf.train.write_graph(tf.get_default_graph().as_graph_def(), str(tmp_path), "g.pb",
                         as_text=False)
    text = "\n".join(inspect.describe(prefix, values=True))
    assert "1 variables" in text and "weights float32 (2, 3)" in text and "[[0. 1. 2.]" in text
    assert inspect.detect(str(tmp_path)) == "checkpoint"
    text = "\n".join(inspect.describe(str(tmp_path / "g.pb")))
    assert "input x: float32 (-1, 2)" in text and "MatMul 1" in text
    event_file = next(os.path.join(tmp_path, "logs", f) for f in os.listdir(tmp_path / "logs"))
    text = "\n".join(inspect.describe(event_file))
    assert "loss (simple_value): 3 values, steps 1..5" in text
    records = str(tmp_path / "data.tfrecord")
    with tf.python_io.TFRecordWriter(records) as w:
        for i in range(3):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                "pixels": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5] * 4))}))
            w.write(ex.SerializeToString())
    text = "\n".join(inspect.describe(records))
    assert "3 records" in text and "feature pixels: float_list, in 3 records, 4 values" in text
