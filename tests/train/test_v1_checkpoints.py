"""V1 checkpoints (Saver(write_version=SaverDef.V1): SaveSlices into one tensor-slice table
file, read back by RestoreV2 / Restore / RestoreSlice and NewCheckpointReader), against TF
1.15's file and reader for the same program (tests/data/record_v1_ckpt.py -> v1_ckpt/)."""

import json
import logging
import os
import shutil
import sys

import numpy as np
import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
sys.path.insert(0, DATA)

import v1_ckpt_program as program  # noqa: E402

TF_FILE = os.path.join(DATA, "v1_ckpt", "ckpt")
with open(os.path.join(DATA, "v1_ckpt", "tf.json")) as f:
    TF = json.load(f)


def _listable(value):
    value = np.asarray(value)
    if value.dtype == object:
        return [v.hex() for v in value.ravel()]
    if value.dtype.kind == "c":
        return [[v.real, v.imag] for v in value.ravel().tolist()]
    return value.tolist()


def _zeros():
    return {k: np.array([b"?"] * v.size, object).reshape(v.shape) if v.dtype == object
            else np.zeros_like(v) for k, v in program.VALUES.items()}


def test_the_file_is_byte_identical_to_tfs(tmp_path, caplog):
    with tf.Graph().as_default(), tf.Session() as sess:
        _, saver = program.build(tf)
        sess.run(tf.global_variables_initializer())
        with caplog.at_level(logging.WARNING, logger="tensorflow"):
            path = saver.save(sess, str(tmp_path / "ckpt"), write_meta_graph=False,
                              write_state=False)
    assert os.path.basename(path) == TF["saved_path"]
    assert sorted(os.listdir(tmp_path)) == TF["files"]
    assert "V1 checkpoint format has been deprecated" in caplog.text
    with open(path, "rb") as ours, open(TF_FILE, "rb") as theirs:
        assert ours.read() == theirs.read()


def test_the_reader_reads_tfs_file():
    reader = tf.train.NewCheckpointReader(TF_FILE)
    assert {k: list(v) for k, v in reader.get_variable_to_shape_map().items()} == TF["shapes"]
    assert {k: v.name for k, v in reader.get_variable_to_dtype_map().items()} == TF["dtypes"]
    # TF lists the tensors in its hash order; flowloom sorts them.
    assert sorted(reader.debug_string().decode().splitlines()) == \
        sorted(TF["debug_string"].splitlines())
    for name, value in TF["values"].items():
        assert _listable(reader.get_tensor(name)) == value, name
    # TF 1.15's V1 reader refuses these (UnimplementedError); flowloom reads them, and
    # they equal what TF's restore op gives.
    assert _listable(reader.get_tensor("model/part")) == TF["restored"]["part"]
    for name in ("flags", "half", "z"):
        assert _listable(reader.get_tensor(name)) == TF["restored"][name]
    with pytest.raises(tf.errors.NotFoundError) as e:
        reader.get_tensor("nope")
    assert str(e.value.message) == TF["missing_error"]


def test_a_saver_restores_tfs_file(tmp_path):
    prefix = str(tmp_path / "ckpt")
    shutil.copy(TF_FILE, prefix)
    with tf.Graph().as_default(), tf.Session() as sess:
        variables, saver = program.build(tf, _zeros())
        saver.restore(sess, prefix)
        got = {k: _listable(sess.run(v)) for k, v in variables.items() if k != "part"}
        got["part"] = _listable(sess.run(variables["part"].as_tensor()))
    assert got == TF["restored"]


def test_v1_restore_ops_and_their_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        from flowloom.ops.state import save_restore_v1_ops as v1

        whole = v1.restore(TF_FILE, "v0", tf.float32)
        part = v1.restore_slice(TF_FILE, "model/part", "4 2 1,2:-", tf.float32)
        assert sess.run(whole).tolist() == TF["values"]["v0"]
        assert sess.run(part).tolist() == TF["restored"]["part"][1:3]
        with pytest.raises(tf.errors.NotFoundError, match='Tensor name "nope" not found'):
            sess.run(v1.restore(TF_FILE, "nope", tf.float32))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expected to restore a tensor "
                           "of type float, got a tensor of type int64"):
            sess.run(v1.restore(TF_FILE, "count", tf.float32))
        with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
            sess.run(v1.restore(TF_FILE + "-missing", "v0", tf.float32))


def test_a_file_that_is_no_table_is_data_loss(tmp_path):
    bad = tmp_path / "bad"
    bad.write_bytes(b"not a checkpoint at all" * 4)
    with pytest.raises(tf.errors.DataLossError, match="Unable to open table file"):
        tf.train.NewCheckpointReader(str(bad))


def test_sharded_v1_saves_one_file_per_device_and_keeps_max_to_keep(tmp_path):
    prefix = str(tmp_path / "model")
    with tf.Graph().as_default(), tf.Session(config=tf.ConfigProto(
            device_count={"CPU": 2})) as sess:
        with tf.device("/cpu:0"):
            a = tf.Variable([1.0, 2.0], name="a")
        with tf.device("/cpu:1"):
            b = tf.Variable([3], name="b")
        saver = tf.train.Saver(sharded=True, write_version=tf.train.SaverDef.V1, max_to_keep=1)
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, prefix, global_step=1)
        assert first == prefix + "-1-?????-of-00002"
        assert sorted(f for f in os.listdir(tmp_path) if f.startswith("model-1-")) == \
            ["model-1-00000-of-00002", "model-1-00001-of-00002"]
        second = saver.save(sess, prefix, global_step=2)
        assert not [f for f in os.listdir(tmp_path) if f.startswith("model-1")]
        sess.run([a.assign([0.0, 0.0]), b.assign([0])])
        saver.restore(sess, second)
        assert sess.run(a).tolist() == [1.0, 2.0] and sess.run(b).tolist() == [3]
        assert tf.train.latest_checkpoint(str(tmp_path)) == second


def test_restore_ops_know_the_static_shapes_of_slices():
    from flowloom.ops.state import save_restore_ops, save_restore_v1_ops

    with tf.Graph().as_default():
        whole, part = save_restore_ops.restore_v2("model", ["a", "b"], ["", "3 4 0,1:-"],
                                                  [tf.float32, tf.float32])
        assert whole.shape.ndims is None and part.shape.as_list() == [1, 4]
        with pytest.raises(ValueError):
            save_restore_ops.restore_v2("model", ["a", "b", "c"], ["", "3 4 0,1:-"],
                                        [tf.float32, tf.float32])
        one = save_restore_v1_ops.restore_slice("model", "a", "3 4 0,1:-", tf.float32)
        assert one.shape.as_list() == [1, 4]
