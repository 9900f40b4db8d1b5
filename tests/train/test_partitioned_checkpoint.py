"""Checkpoints of partitioned variables, checked against TF 1.15's (recorded by
tests/data/record_partitioned_ckpt.py): flowloom writes the same bytes, reads TF's files into
any partitioning, and (with FLOWLOOM_TF1_PYTHON set) TF 1.15 restores flowloom's files."""

import filecmp
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import errors
from flowloom.ops.state import save_restore_ops

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
RECORDED = os.path.join(DATA, "partitioned_ckpt")
sys.path.insert(0, DATA)

import partitioned_ckpt_program as program  # noqa: E402

with open(os.path.join(RECORDED, "tf.json")) as _f:
    TF = json.load(_f)


def _two_devices(op):
    return "/cpu:1" if "model/emb/part_1" in op.name or "model/emb/part_2" in op.name \
        else "/cpu:0"


def _save(tmp_path, sharded=False):
    graph = tf.Graph()
    config = tf.ConfigProto(device_count={"CPU": 2}) if sharded else None
    with graph.as_default(), tf.Session(graph=graph, config=config) as sess:
        with tf.device(_two_devices if sharded else None):
            program.build(tf)
        saver = tf.train.Saver(sharded=sharded)
        sess.run(tf.global_variables_initializer())
        prefix = saver.save(sess, str(tmp_path / "ckpt"), write_meta_graph=False,
                            write_state=False)
        save_op = graph.get_operation_by_name("save/SaveV2") if not sharded else None
        names = specs = None
        if save_op is not None:
            names, specs = sess.run([save_op.inputs[1], save_op.inputs[2]])
    return prefix, names, specs


def _restored(prefix, parts):
    graph = tf.Graph()
    with graph.as_default(), tf.Session(graph=graph) as sess:
        variables = program.build(tf, parts)
        tf.train.Saver().restore(sess, prefix)
        return {name: sess.run(tf.convert_to_tensor(v)) for name, v in variables.items()}


def test_saver_writes_tf_s_bytes_and_slice_specs(tmp_path):
    prefix, names, specs = _save(tmp_path)
    assert [n.decode() for n in names] == TF["plain"]["tensor_names"]
    assert [s.decode() for s in specs] == TF["plain"]["shape_and_slices"]
    for name in ("ckpt.index", "ckpt.data-00000-of-00001"):
        assert filecmp.cmp(str(tmp_path / name), os.path.join(RECORDED, "plain", name),
                           shallow=False), name


def test_sharded_save_merges_slices_of_one_tensor_as_tf(tmp_path):
    _save(tmp_path, sharded=True)
    assert sorted(os.listdir(tmp_path)) == TF["sharded_files"]
    for name in TF["sharded_files"]:
        assert filecmp.cmp(str(tmp_path / name), os.path.join(RECORDED, "sharded", name),
                           shallow=False), name


@pytest.mark.parametrize("kind", ["plain", "sharded"])
@pytest.mark.parametrize("parts", [None, {"emb": 4, "wide": 1, "tok": 5, "res": 2, "big": 3}])
def test_restores_tf_s_checkpoint_into_any_partitioning(kind, parts):
    values = _restored(os.path.join(RECORDED, kind, "ckpt"), parts)
    for name, value in values.items():
        np.testing.assert_array_equal(value, program.full_value(name))


def test_reader_lists_full_tensors_and_assembles_them():
    reader = tf.train.NewCheckpointReader(os.path.join(RECORDED, "plain", "ckpt"))
    assert {k: list(v) for k, v in reader.get_variable_to_shape_map().items()} == \
        TF["plain"]["shape_map"]
    for name, flat in TF["plain"]["full_values"].items():
        np.testing.assert_array_equal(reader.get_tensor(name).ravel(), flat)
    np.testing.assert_array_equal(reader.get_tensor("model/tok"), program.full_value("tok"))


def _restore_op(prefix, name, spec, dtype):
    with tf.Graph().as_default(), tf.Session() as sess:
        out = save_restore_ops.restore_v2(tf.constant(prefix), [name], [spec], [dtype])
        return sess.run(out[0])


def test_restore_v2_reads_any_slice_and_checks_the_spec():
    prefix = os.path.join(RECORDED, "plain", "ckpt")
    emb = program.full_value("emb")
    # A slice across two stored slices, and one of a whole-saved tensor.
    np.testing.assert_array_equal(_restore_op(prefix, "model/emb", "10 3 3,3:1,2", tf.float32),
                                  emb[3:6, 1:3])
    np.testing.assert_array_equal(_restore_op(prefix, "model/bias", "3 1,2", tf.float32),
                                  program.full_value("bias")[1:])
    np.testing.assert_array_equal(_restore_op(prefix, "model/emb", "10 3 -:2,1", tf.float32),
                                  emb[:, 2:])
    with pytest.raises(errors.InvalidArgumentError, match="does not match the shape stored"):
        _restore_op(prefix, "model/emb", "10 4 0,2:0,4", tf.float32)
    # A constant spec is checked when the op is built, with TF 1.15's classes.
    with pytest.raises(errors.InternalError, match="out of bounds"):
        _restore_op(prefix, "model/emb", "10 3 8,4:0,3", tf.float32)
    with pytest.raises(ValueError, match="Expected a pair of numbers"):
        _restore_op(prefix, "model/emb", "10 3 0,x:0,3", tf.float32)


def test_restore_v2_fails_when_slices_do_not_cover_the_request(tmp_path):
    prefix = str(tmp_path / "part")
    with tf.Graph().as_default(), tf.Session() as sess:
        sess.run(save_restore_ops.save_v2(tf.constant(prefix), ["t"], ["4 0,2"],
                                          [tf.constant([1.0, 2.0])]))
        with pytest.raises(errors.InvalidArgumentError, match="Slice in shape_and_slice"):
            sess.run(save_restore_ops.save_v2(tf.constant(prefix + "2"), ["t"], ["4 0,3"],
                                              [tf.constant([1.0, 2.0])]))
    np.testing.assert_array_equal(_restore_op(prefix, "t", "4 1,1", tf.float32), [2.0])
    with pytest.raises(errors.InvalidArgumentError, match="sufficient slices"):
        _restore_op(prefix, "t", "4 1,2", tf.float32)


def test_tf_1_15_restores_flowloom_s_checkpoint(tmp_path):
    python = os.environ.get("FLOWLOOM_TF1_PYTHON")
    if not python:
        pytest.skip("FLOWLOOM_TF1_PYTHON is not set (TF 1.15 restoring flowloom's files)")
    prefix, _, _ = _save(tmp_path, sharded=True)
    # TF 1.15 cannot re-slice string tensors ("Dtype string not supported"): tok keeps its 2.
    parts = {"emb": 2, "wide": 5, "tok": 2, "res": 6, "big": 4}
    out = subprocess.run([python, os.path.join(DATA, "record_partitioned_ckpt.py"), "--restore",
                          prefix, json.dumps(parts)], capture_output=True, text=True,
                         timeout=300, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    assert out.returncode == 0, out.stderr[-2000:]
    values = json.loads(out.stdout.strip().splitlines()[-1])
    for name, flat in values.items():
        expected = program.full_value(name).ravel()
        if expected.dtype == object:
            expected = [e.decode() for e in expected]
        np.testing.assert_array_equal(flat, expected)
