"""export_meta_graph / import_meta_graph: TF's .meta files import and restore; ours carry
collections as TF serializes them."""

import os

import numpy as np
import pytest
from graphdef_helpers import GRAPHDEF_DATA, graph_def_differences, graphdef_programs

import flowloom as tf
from flowloom.framework.meta_graph import read_meta_graph_file

TF_META = os.path.join(GRAPHDEF_DATA, "tf_ckpt", "model.ckpt-42.meta")
VALUES = graphdef_programs.checkpoint_values()


def test_tensorflow_meta_graph_imports_and_restores():
    saver = tf.train.import_meta_graph(TF_META)
    assert saver.as_saver_def().restore_op_name == "save/restore_all"
    variables = {v.op.name: v for v in tf.global_variables()}
    assert sorted(variables) == sorted(VALUES)
    assert tf.trainable_variables()[0] is variables["weights"]  # one object per variable
    with tf.Session() as sess:
        saver.restore(sess, os.path.join(GRAPHDEF_DATA, "tf_ckpt", "model.ckpt-42"))
        for name, var in variables.items():
            assert np.asarray(sess.run(var)).tolist() == VALUES[name].tolist()
        sess.run(tf.global_variables_initializer())  # the imported initializers run too
        assert sess.run(variables["global_step"]) == 0


def test_collections_and_saver_def_are_serialized_as_tensorflow():
    tf_meta = read_meta_graph_file(TF_META)
    graphdef_programs.build_checkpoint_graph(tf)
    tf.global_variables_initializer()  # as the recording did
    saver = tf.train.Saver(max_to_keep=1, save_relative_paths=True)
    ours = saver.export_meta_graph()
    assert ours.collection_def == tf_meta.collection_def
    assert ours.saver_def == tf_meta.saver_def
    assert graph_def_differences(tf_meta.graph_def, ours.graph_def) == []
    assert [op.name for op in ours.meta_info_def.stripped_op_list.op] == [
        op.name for op in tf_meta.meta_info_def.stripped_op_list.op]


def test_round_trip_with_scope_and_collections(tmp_path):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable(np.ones([2, 1], np.float32), name="w")
    y = tf.matmul(x, w, name="y")
    tf.add_to_collection("outputs", y)
    tf.add_to_collection("train_op", y.op)
    tf.add_to_collection("notes", "hello")
    tf.add_to_collection("counts", 3)
    tf.add_to_collection("rates", 0.5)
    path = str(tmp_path / "graph.meta")
    tf.train.export_meta_graph(path)
    text_path = str(tmp_path / "graph.pbtxt")
    tf.train.export_meta_graph(text_path, as_text=True, clear_devices=True)
    for filename in (path, text_path):
        with tf.Graph().as_default() as g:
            saver = tf.train.import_meta_graph(filename, import_scope="net")
            assert saver is not None
            assert [t.name for t in g.get_collection("outputs")] == ["net/y:0"]
            assert [op.name for op in g.get_collection("train_op")] == ["net/y"]
            assert g.get_collection("notes") == [b"hello"]
            assert g.get_collection("counts") == [3]
            assert g.get_collection("rates") == [0.5]
            (var,) = tf.global_variables()
            assert var.op.name == "net/w" and var.initializer.name == "net/w/Assign"
            with tf.Session() as sess:
                sess.run(var.initializer)
                out = sess.run("net/y:0", {"net/x:0": [[1.0, 2.0]]})
                assert out.tolist() == [[3.0]]


def test_export_scope_and_strip_default_attrs():
    with tf.name_scope("keep"):
        a = tf.constant([[1.0]], name="a")
        tf.matmul(a, a, name="m")
    tf.constant(2.0, name="other")
    meta = tf.train.export_meta_graph(export_scope="keep", strip_default_attrs=True)
    names = [n.name for n in meta.graph_def.node]
    assert "other" not in names and "m" in names and "a" in names
    matmul = next(n for n in meta.graph_def.node if n.op == "MatMul")
    assert "transpose_a" not in matmul.attr and "T" in matmul.attr
    assert meta.meta_info_def.stripped_default_attrs
    with tf.Graph().as_default():
        tf.train.import_meta_graph(meta)
        m = tf.get_default_graph().get_operation_by_name("m")
        assert m.get_attr("transpose_a") is False  # filled back from the op's defaults


def test_missing_or_garbage_file(tmp_path):
    with pytest.raises(OSError, match="does not exist"):
        tf.train.import_meta_graph(str(tmp_path / "missing.meta"))
    bad = tmp_path / "bad.meta"
    bad.write_bytes(b"\xff\xfe garbage {{{")
    with pytest.raises(OSError):
        tf.train.import_meta_graph(str(bad))


def test_resume_training_from_tensorflow_meta_graph_and_checkpoint():
    directory = os.path.join(GRAPHDEF_DATA, "tf_train")
    expected = np.load(os.path.join(directory, "expected.npz"), allow_pickle=False)
    saver = tf.train.import_meta_graph(os.path.join(directory, "model.ckpt-3.meta"))
    train_op = tf.get_collection("train_op")[0]  # minimize() added it too: TF stores it twice
    (loss,) = tf.get_collection("loss")
    feed = {"x:0": expected["xs"], "y:0": expected["ys"]}
    with tf.Session() as sess:
        saver.restore(sess, os.path.join(directory, "model.ckpt-3"))
        assert sess.run(tf.train.get_global_step()) == 3
        losses = [sess.run([train_op, loss], feed)[1] for _ in range(2)]
        np.testing.assert_allclose(losses, expected["losses"], rtol=1e-5)
        np.testing.assert_allclose(sess.run("w:0"), expected["w"], rtol=1e-5)
        np.testing.assert_allclose(sess.run("b:0"), expected["b"], rtol=1e-5, atol=1e-7)
        assert sess.run(tf.train.get_global_step()) == 5


_TF_RESUME = r"""
import json, os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
prefix, xs, ys = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
with tf.Session() as sess:
    saver = tf.train.import_meta_graph(prefix + ".meta")
    saver.restore(sess, prefix)
    train_op, loss = tf.get_collection("train_op")[0], tf.get_collection("loss")[0]
    feed = {"x:0": np.array(xs, np.float32), "y:0": np.array(ys, np.float32)}
    losses = [float(sess.run([train_op, loss], feed)[1]) for _ in range(2)]
    json.dump({"losses": losses, "w": sess.run("w:0").tolist(),
               "step": int(sess.run(tf.train.get_global_step()))}, sys.stdout)
"""


def _tensorflow_python():
    from tests.tf_reference import tensorflow_python

    return tensorflow_python()


@pytest.mark.skipif(_tensorflow_python() is None,
                    reason="FLOWLOOM_TF_PYTHON is not set (a Python with TensorFlow)")
def test_tensorflow_resumes_training_from_flowloom_meta_graph(tmp_path):
    import json
    import subprocess

    rng = np.random.RandomState(5)
    xs = rng.randn(8, 3).astype(np.float32)
    ys = rng.randn(8, 1).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(rng.randn(3, 1).astype(np.float32), name="w")
    b = tf.Variable(np.zeros(1, np.float32), name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y), name="loss")
    step = tf.train.get_or_create_global_step()
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    tf.add_to_collection("train_op", train_op)
    tf.add_to_collection("loss", loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train_op, {x: xs, y: ys})
        prefix = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"), global_step=step)
        ours = [sess.run([train_op, loss], {x: xs, y: ys})[1] for _ in range(2)]
        w_ours = sess.run(w)
    result = subprocess.run(
        [_tensorflow_python(), "-c", _TF_RESUME, prefix, json.dumps(xs.tolist()),
         json.dumps(ys.tolist())], capture_output=True, text=True, timeout=120, check=False,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    assert result.returncode == 0, result.stderr[-3000:]
    theirs = json.loads(result.stdout)
    assert theirs["step"] == 5
    np.testing.assert_allclose(theirs["losses"], ours, rtol=1e-5)
    np.testing.assert_allclose(theirs["w"], w_ours, rtol=1e-5)
