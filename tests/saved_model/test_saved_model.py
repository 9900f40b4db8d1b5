"""SavedModels: TF-written ones load and serve TF's outputs; flowloom's load back (and in TF)."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import flowloom as tf
from tests import tf_reference

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
sys.path.insert(0, DATA)
import saved_model_programs as programs  # noqa: E402

SAVED = os.path.join(DATA, "saved_models")
EXPECTED = np.load(os.path.join(SAVED, "expected.npz"))


def _feed(name):
    prefix = f"{name}/feed/"
    return {k[len(prefix):]: EXPECTED[k] for k in EXPECTED.files if k.startswith(prefix)}


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_tf_written_saved_model_serves_tfs_outputs(name):
    got = programs.load_and_run(tf, os.path.join(SAVED, name), _feed(name))
    for key, value in got.items():
        np.testing.assert_allclose(value, EXPECTED[f"{name}/{key}"], rtol=1e-5, atol=1e-6)


def test_tf_written_assets_are_fed_to_the_main_op(tmp_path):
    export = tmp_path / "m"
    shutil.copytree(os.path.join(SAVED, "with_assets"), export)
    got = programs.load_and_run(tf, str(export), _feed("with_assets"))
    np.testing.assert_allclose(got["y"], EXPECTED["with_assets/y"])
    assert got["path"].decode() == os.path.join(str(export), "assets", "vocab.txt")


@pytest.mark.parametrize("name", sorted(programs.PROGRAMS))
def test_flowloom_saved_model_round_trip(tmp_path, name):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("apple\nbanana\n")
    export = str(tmp_path / "export")
    values, feed = programs.build_and_save(tf, name, export, str(vocab))
    assert sorted(os.listdir(export))[:2] == (["assets", "saved_model.pb"] if
                                              name == "with_assets" else
                                              ["saved_model.pb", "variables"])
    got = programs.load_and_run(tf, export, feed)
    for key, value in values.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-6)
    # Same program, same weights: flowloom's outputs are TF's.
    for key, value in got.items():
        if key != "path":
            np.testing.assert_allclose(value, EXPECTED[f"{name}/{key}"], rtol=1e-5, atol=1e-6)
    if name == "with_assets":
        assert got["path"].decode() == os.path.join(export, "assets", "vocab.txt")


def test_builder_and_loader_errors(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("x")
    with pytest.raises(AssertionError, match="Export directory already exists"):
        tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "full"))
    b = tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "new"))
    with pytest.raises(AssertionError, match="has not been saved yet"):
        b.add_meta_graph(["serve"])
    with pytest.raises(IOError, match="SavedModel file does not exist at"):
        with tf.Session(graph=tf.Graph()) as sess:
            tf.saved_model.loader.load(sess, ["serve"], str(tmp_path / "nothing"))
    with pytest.raises(RuntimeError, match="could not be found in SavedModel"):
        with tf.Session(graph=tf.Graph()) as sess:
            tf.saved_model.loader.load(sess, ["train"], os.path.join(SAVED, "mlp"))
    assert tf.saved_model.maybe_saved_model_directory(os.path.join(SAVED, "mlp"))
    assert not tf.saved_model.contains_saved_model(str(tmp_path))


def test_signature_def_utils():
    x = tf.placeholder(tf.string, [None], name="examples")
    scores = tf.placeholder(tf.float32, [None, 3], name="scores")
    classes = tf.placeholder(tf.string, [None, 3], name="classes")
    sig = tf.saved_model.classification_signature_def(x, classes, scores)
    assert sig.method_name == "tensorflow/serving/classify"
    assert sorted(sig.outputs) == ["classes", "scores"]
    assert tf.saved_model.is_valid_signature(sig)
    reg = tf.saved_model.regression_signature_def(x, tf.reduce_sum(scores, 1))
    assert tf.saved_model.is_valid_signature(reg) and reg.inputs["inputs"].name == "examples:0"
    with pytest.raises(ValueError, match="Classification scores must be a float Tensor."):
        tf.saved_model.classification_signature_def(x, None, classes)
    with pytest.raises(ValueError, match="Prediction inputs cannot be None or empty."):
        tf.saved_model.predict_signature_def({}, {"s": scores})
    info = tf.saved_model.build_tensor_info(scores)
    assert info.name == "scores:0" and info.dtype == tf.float32.as_datatype_enum
    assert [d.size for d in info.tensor_shape.dim] == [-1, 3]
    assert tf.saved_model.get_tensor_from_tensor_info(info) is scores
    sp = tf.SparseTensor([[0, 1]], [1.0], [2, 3])
    sinfo = tf.saved_model.build_tensor_info(sp)
    back = tf.saved_model.get_tensor_from_tensor_info(sinfo)
    assert back.values is sp.values and sinfo.coo_sparse.indices_tensor_name == sp.indices.name


def test_simple_save_and_text_format(tmp_path):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0], [2.0]], name="w")
    y = tf.matmul(x, w, name="y")
    with tf.Session() as sess:
        sess.run(w.initializer)
        tf.saved_model.simple_save(sess, str(tmp_path / "s"), {"x": x}, {"y": y})
        b = tf.saved_model.Builder(str(tmp_path / "t"))
        b.add_meta_graph_and_variables(sess, ["serve", "gpu"])
        assert b.save(as_text=True).endswith(b"saved_model.pbtxt")
    got = programs.load_and_run(tf, str(tmp_path / "s"), {"x": np.ones((1, 2), np.float32)})
    assert got["y"].tolist() == [[3.0]]
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["gpu", "serve"], str(tmp_path / "t"))
        assert sorted(meta.meta_info_def.tags) == ["gpu", "serve"]
        assert sess.run("w:0").tolist() == [[1.0], [2.0]]


TF_PYTHON = tf_reference.tensorflow_python()
LIVE = """
import sys, json, numpy as np
import tensorflow as tf2
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
export, feed_path = sys.argv[1], sys.argv[2]
feed = dict(np.load(feed_path))
with tf.Session(graph=tf.Graph()) as sess:
    meta = tf.saved_model.loader.load(sess, ["serve"], export)
    sig = meta.signature_def["serving_default"]
    out = sess.run({k: v.name for k, v in sig.outputs.items()},
                   {sig.inputs[k].name: v for k, v in feed.items()})
print(json.dumps({k: np.asarray(v).tolist() for k, v in out.items()}))
"""

# TF 2's own loader (eager), which serves a TF1 SavedModel through its signatures.
LIVE_V2 = """
import sys, json, numpy as np
import tensorflow as tf
export, feed_path = sys.argv[1], sys.argv[2]
feed = dict(np.load(feed_path))
fn = tf.saved_model.load(export).signatures["serving_default"]
out = fn(**{k: tf.constant(v) for k, v in feed.items()})
print(json.dumps({k: v.numpy().tolist() for k, v in out.items()}))
"""


@pytest.mark.skipif(TF_PYTHON is None, reason="no reference TensorFlow (FLOWLOOM_TF_PYTHON)")
@pytest.mark.parametrize("loader", ["compat.v1", "v2"])
@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_tensorflow_loads_flowlooms_saved_model(tmp_path, name, loader):
    import json

    export = str(tmp_path / "export")
    values, feed = programs.build_and_save(tf, name, export)
    np.savez(tmp_path / "feed.npz", **feed)
    script = LIVE if loader == "compat.v1" else LIVE_V2
    out = subprocess.run([TF_PYTHON, "-c", script, export, str(tmp_path / "feed.npz")],
                         capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    for key, value in values.items():
        np.testing.assert_allclose(np.asarray(got[key]), value, rtol=1e-5, atol=1e-6)
