"""tf.train.Saver: TF's checkpoints restore here, ours are byte-identical to TF's and
restore in TF; max_to_keep, the state file, readers and damaged files."""

import json
import os
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import errors
from flowloom.train import saver as saver_module

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
TF_CKPT = os.path.join(DATA, "graphdef", "tf_ckpt")
sys.path.insert(0, DATA)
import graphdef_programs

VALUES = graphdef_programs.checkpoint_values()


def _assert_values(sess, variables):
    for name, var in variables.items():
        got = np.asarray(sess.run(var))
        assert got.dtype == VALUES[name].dtype, name
        assert got.tolist() == VALUES[name].tolist(), name


def test_tensorflow_checkpoint_restores_with_tensorflow_values():
    variables = graphdef_programs.build_checkpoint_graph(tf)
    saver = tf.train.Saver()
    latest = tf.train.latest_checkpoint(TF_CKPT)
    assert latest == os.path.join(TF_CKPT, "model.ckpt-42")
    with tf.Session() as sess:
        saver.restore(sess, latest)
        _assert_values(sess, variables)


def _save_like_the_recording(directory):
    """What record_graphdef.py did with TF: two saves, max_to_keep=1, relative paths."""
    variables = graphdef_programs.build_checkpoint_graph(tf)
    saver = tf.train.Saver(max_to_keep=1, save_relative_paths=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=1)
        for name, var in variables.items():
            var.load(VALUES[name], sess)
        return saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=42)


def test_checkpoint_files_are_byte_identical_to_tensorflow(tmp_path):
    prefix = _save_like_the_recording(str(tmp_path))
    assert prefix == str(tmp_path / "model.ckpt-42")
    assert sorted(os.listdir(tmp_path)) == sorted(os.listdir(TF_CKPT))
    for name in ("checkpoint", "model.ckpt-42.index", "model.ckpt-42.data-00000-of-00001"):
        with open(tmp_path / name, "rb") as ours, open(os.path.join(TF_CKPT, name), "rb") as tfs:
            assert ours.read() == tfs.read(), name


def _tensorflow_python():
    from tests.tf_reference import tensorflow_python

    return tensorflow_python()


_TF_READER = r"""
import json, os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
directory = sys.argv[1]
prefix = tf.train.latest_checkpoint(directory)
out = {"prefix": os.path.basename(prefix)}
with tf.Session() as sess:
    saver = tf.train.import_meta_graph(prefix + ".meta")
    saver.restore(sess, prefix)
    out["restored"] = {v.op.name: sess.run(v).tolist() for v in tf.global_variables()}
    out["restored"]["vocab"] = [b.decode() for b in out["restored"]["vocab"]]
json.dump(out, sys.stdout)
"""


@pytest.mark.skipif(_tensorflow_python() is None,
                    reason="FLOWLOOM_TF_PYTHON is not set (a Python with TensorFlow)")
def test_tensorflow_restores_flowloom_checkpoint_and_meta_graph(tmp_path):
    _save_like_the_recording(str(tmp_path))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    result = subprocess.run([_tensorflow_python(), "-c", _TF_READER, str(tmp_path)],
                            capture_output=True, text=True, timeout=120, env=env, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout)
    assert out["prefix"] == "model.ckpt-42"
    want = {k: (v.tolist() if v.dtype != object else [b.decode() for b in v])
            for k, v in VALUES.items()}
    assert out["restored"] == want


def _small_graph():
    v = tf.Variable([1.0, 2.0], name="v")
    step = tf.Variable(0, dtype=tf.int64, name="step")
    return v, step


def test_max_to_keep_and_state_file(tmp_path):
    _, step = _small_graph()
    saver = tf.train.Saver(max_to_keep=2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(4):
            sess.run(step.assign(i))
            saver.save(sess, str(tmp_path / "m"), global_step=step)
    assert saver.last_checkpoints == [str(tmp_path / "m-2"), str(tmp_path / "m-3")]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == str(tmp_path / "m-3")
    assert list(state.all_model_checkpoint_paths) == saver.last_checkpoints
    assert sorted(p for p in os.listdir(tmp_path) if ".tmp" not in p) == [
        "checkpoint", "m-2.data-00000-of-00001", "m-2.index", "m-2.meta",
        "m-3.data-00000-of-00001", "m-3.index", "m-3.meta"]
    assert tf.train.checkpoint_exists(str(tmp_path / "m-3"))
    assert not tf.train.checkpoint_exists(str(tmp_path / "m-1"))


def test_keep_checkpoint_every_n_hours(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(saver_module, "time", types.SimpleNamespace(time=lambda: clock[0]))
    _small_graph()
    saver = tf.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i, hours in enumerate([0, 0.5, 1.2, 1.5, 2.5]):
            clock[0] = 1000.0 + hours * 3600
            saver.save(sess, str(tmp_path / "m"), global_step=i, write_meta_graph=False)
    kept = sorted(p[:-6] for p in os.listdir(tmp_path) if p.endswith(".index"))
    # m-2 (saved 1.2 h in) passed the first hour mark, m-4 is the latest.
    assert kept == ["m-2", "m-4"]


def test_var_list_as_dict_and_list(tmp_path):
    v, _ = _small_graph()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver({"renamed": v}).save(sess, str(tmp_path / "d"),
                                                   write_meta_graph=False)
    assert tf.train.list_variables(path) == [("renamed", [2])]
    with tf.Graph().as_default():
        w = tf.Variable([0.0, 0.0], name="w")
        with tf.Session() as sess:
            tf.train.Saver({"renamed": w}).restore(sess, path)
            assert sess.run(w).tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="same name"):
        tf.train.Saver([v, v.op.outputs[0]])
    with pytest.raises(TypeError):
        tf.train.Saver([tf.constant(1.0)])


def test_saver_def_round_trip_and_pad_step(tmp_path):
    _small_graph()
    saver = tf.train.Saver(pad_step_number=True, name="mysaver")
    assert saver.as_saver_def().restore_op_name == "mysaver/restore_all"
    again = tf.train.Saver(saver_def=saver.as_saver_def(), pad_step_number=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = again.save(sess, str(tmp_path / "m"), global_step=7, write_state=False)
    assert path.endswith("m-00000007") and not os.path.exists(tmp_path / "checkpoint")


def test_restore_errors(tmp_path):
    _small_graph()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "m"))
        with pytest.raises(ValueError, match="None"):
            saver.restore(sess, None)
        with pytest.raises(ValueError, match="not a valid checkpoint"):
            saver.restore(sess, str(tmp_path / "nothing"))
    with pytest.raises(ValueError, match="Parent directory"), tf.Session() as sess:
        saver.save(sess, str(tmp_path / "no" / "such" / "m"))
    with tf.Graph().as_default():
        tf.Variable([1.0, 2.0], name="v")
        tf.Variable(0.0, name="other")
        with tf.Session() as sess, pytest.raises(errors.NotFoundError, match="other"):
            tf.train.Saver().restore(sess, path)
    with tf.Graph().as_default():
        tf.Variable([1, 2], name="v")
        tf.Variable(0, dtype=tf.int64, name="step")
        with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError, match="dtype"):
            tf.train.Saver().restore(sess, path)
    with tf.Graph().as_default():
        tf.Variable([1.0, 2.0, 3.0], name="v")
        tf.Variable(0, dtype=tf.int64, name="step")
        with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError, match="shape"):
            tf.train.Saver().restore(sess, path)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="No variables to save"):
            tf.train.Saver()
        with tf.Session() as sess:
            assert tf.train.Saver(allow_empty=True).save(sess, str(tmp_path / "e")) is None


@pytest.mark.parametrize("suffix", [".data-00000-of-00001", ".index"])
def test_corrupted_checkpoint_gives_data_loss(tmp_path, suffix):
    _small_graph()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
        with open(path + suffix, "r+b") as f:
            data = bytearray(f.read())
            for position in range(0, len(data), 7):  # flip bits all over the file
                data[position] ^= 0x10
            f.seek(0)
            f.write(data)
        with pytest.raises(errors.DataLossError):
            saver.restore(sess, path)
        with pytest.raises(errors.DataLossError):
            tf.train.load_checkpoint(path).get_tensor("v")


def test_checkpoint_reader_api():
    reader = tf.train.NewCheckpointReader(os.path.join(TF_CKPT, "model.ckpt-42"))
    assert reader.has_tensor("weights") and not reader.has_tensor("nope")
    assert reader.get_variable_to_shape_map()["weights"] == [2, 3]
    assert reader.get_variable_to_dtype_map()["vocab"] == tf.string
    assert reader.get_tensor("global_step") == 42
    with pytest.raises(errors.NotFoundError):
        reader.get_tensor("nope")
    assert tf.compat.v1.train.NewCheckpointReader is tf.train.NewCheckpointReader
    assert tf.train.load_variable(TF_CKPT, "layer/bias:0").tolist() == [0.5, -0.25, 8.0]
    assert [n for n, _ in tf.train.list_variables(TF_CKPT)] == sorted(VALUES)
    with pytest.raises(errors.NotFoundError):
        tf.train.NewCheckpointReader(os.path.join(TF_CKPT, "missing"))


def test_load_checkpoint_of_empty_directory(tmp_path):
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint'"):
        tf.train.load_checkpoint(str(tmp_path))
    assert tf.train.latest_checkpoint(str(tmp_path)) is None


def test_init_from_checkpoint():
    with tf.variable_scope("net"):
        w = tf.get_variable("weights", [2, 3])
        b = tf.get_variable("bias", [3])
    # A scope mapping needs every variable of the scope in the checkpoint (TF 1.15 raises
    # "Tensor layer/weights (weights in layer/) is not found in ... checkpoint").
    with pytest.raises(ValueError, match="layer/weights"):
        tf.train.init_from_checkpoint(TF_CKPT, {"layer/": "net/"})
    tf.train.init_from_checkpoint(TF_CKPT, {"weights": "net/weights", "layer/bias": "net/bias"})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(w).tolist() == VALUES["weights"].tolist()
        assert sess.run(b).tolist() == VALUES["layer/bias"].tolist()


def test_latest_checkpoint_ignores_a_state_file_that_does_not_parse(tmp_path):
    (tmp_path / "checkpoint").write_text("model_checkpoint_path: [broken")
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None
    shutil.copy(os.path.join(TF_CKPT, "checkpoint"), tmp_path / "checkpoint")
    assert tf.train.latest_checkpoint(str(tmp_path)) is None  # names files that are not there


def test_sharded_save_is_byte_identical_to_tensorflow_and_restores(tmp_path):
    g = graphdef_programs.prog_saver_sharded(tf)
    saver = g.saver_for_test
    with g.as_default(), tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        prefix = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=5,
                            write_meta_graph=False, write_state=False)
        assert prefix == str(tmp_path / "model.ckpt-5")
        # The per-shard files and the temporary directory are gone after the merge.
        assert sorted(os.listdir(tmp_path)) == sorted(
            os.listdir(os.path.join(DATA, "graphdef", "tf_ckpt_sharded")))
        for name in os.listdir(tmp_path):
            with open(tmp_path / name, "rb") as ours, open(
                    os.path.join(DATA, "graphdef", "tf_ckpt_sharded", name), "rb") as tfs:
                assert ours.read() == tfs.read(), name
        v = g.get_tensor_by_name("v:0")
        sess.run(tf.assign(v, [0.0, 0.0]))
        saver.restore(sess, prefix)
        assert sess.run(v).tolist() == [1.0, 2.0]


def test_merge_bundles_of_several_shards(tmp_path):
    from flowloom.io import bundle
    from flowloom.io.bundle_merge import merge_bundles

    parts = [str(tmp_path / "m_temp" / f"part-{i:05d}-of-00002") for i in range(2)]
    bundle.write_bundle(parts[0], {"a": np.arange(3, dtype=np.float32)})
    bundle.write_bundle(parts[1], {"b": np.array([b"x"], dtype=object)})
    merge_bundles(parts, str(tmp_path / "m"), delete_old_dirs=True)
    assert sorted(os.listdir(tmp_path)) == ["m.data-00000-of-00002", "m.data-00001-of-00002",
                                            "m.index"]
    values = bundle.read_bundle(str(tmp_path / "m"))
    assert values["a"].tolist() == [0, 1, 2] and values["b"].tolist() == [b"x"]
    bundle.write_bundle(parts[0], {"a": np.zeros(1)})
    bundle.write_bundle(parts[1], {"a": np.zeros(1)})
    with pytest.raises(errors.InvalidArgumentError, match="Duplicate tensor"):
        merge_bundles(parts, str(tmp_path / "dup"))
    with pytest.raises(errors.InvalidArgumentError):
        merge_bundles([str(tmp_path / "missing")], str(tmp_path / "x"))
