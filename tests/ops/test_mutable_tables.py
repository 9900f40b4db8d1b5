"""MutableHashTable (MutableHashTable*V2 and LookupTable{Insert,Remove,Import}V2 ops) and
its checkpointing through the Saver's SaveableObject protocol, against what TF 1.15 did
with the same program (tests/data/record_mutable_table_ckpt.py -> mutable_table_ckpt/)."""

import json
import os
import shutil
import sys

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework.apply_op import apply_op

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
sys.path.insert(0, DATA)

import mutable_table_program as program  # noqa: E402

with open(os.path.join(DATA, "mutable_table_ckpt", "tf.json")) as f:
    TF = json.load(f)


def _listable(value):
    value = np.asarray(value)
    if value.dtype == object:
        return [v.decode() for v in value.ravel()]
    return value.tolist()


def _filled(sess, ops):
    for name in ("init", "insert_words", "remove_b", "insert_vecs"):
        sess.run(ops[name])


def test_tables_answer_and_save_as_tf(tmp_path):
    prefix = str(tmp_path / "ckpt")
    with tf.Graph().as_default() as graph, tf.Session() as sess:
        ops, queries, saver = program.build(tf)
        _filled(sess, ops)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(ops["bad_insert"])
        assert e.value.message.split("\n")[0] == TF["bad_insert_error"]
        assert {k: _listable(v) for k, v in sess.run(queries).items()} == TF["before"]
        assert program.static_shapes(queries) == TF["static_shapes"]
        names = sess.run(graph.get_operation_by_name("save/SaveV2").inputs[1])
        assert _listable(names) == TF["save_tensor_names"]
        saver.save(sess, prefix, write_meta_graph=False, write_state=False)
    reader = tf.train.NewCheckpointReader(prefix)
    assert {k: list(v) for k, v in reader.get_variable_to_shape_map().items()} == TF["shapes"]
    for table in ("words", "vecs"):
        keys = _listable(reader.get_tensor(table + "-keys"))
        values = _listable(reader.get_tensor(table + "-values"))
        assert sorted([k, v] for k, v in zip(keys, values)) == TF["entries"][table]


def test_tables_restore_from_tfs_checkpoint(tmp_path):
    prefix = str(tmp_path / "ckpt")
    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copy(os.path.join(DATA, "mutable_table_ckpt", "ckpt" + suffix), prefix + suffix)
    with tf.Graph().as_default(), tf.Session() as sess:
        ops, queries, saver = program.build(tf)
        fresh = {k: q for k, q in queries.items() if k != "v"}
        assert {k: _listable(v) for k, v in sess.run(fresh).items()} == TF["fresh"]
        sess.run(ops["insert_words"])  # a restore replaces what was there
        saver.restore(sess, prefix)
        assert {k: _listable(v) for k, v in sess.run(queries).items()} == TF["restored"]


def test_a_custom_saveable_object_saves_its_specs(tmp_path):
    prefix = str(tmp_path / "custom")
    restored = {}

    from flowloom.train.saver import BaseSaverBuilder

    class Pair(BaseSaverBuilder.SaveableObject):
        def __init__(self, a, b, name):
            specs = [BaseSaverBuilder.SaveSpec(a.value(), "", name + "-a"),
                     BaseSaverBuilder.SaveSpec(b.value(), "", name + "-b")]
            super().__init__((a, b), specs, name)

        def restore(self, restored_tensors, restored_shapes):
            restored["shapes"] = restored_shapes
            return tf.group(tf.assign(self.op[0], restored_tensors[1]),
                            tf.assign(self.op[1], restored_tensors[0]))

    with tf.Graph().as_default(), tf.Session() as sess:
        a, b = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b")
        saver = tf.train.Saver([Pair(a, b, "pair")])
        sess.run(tf.global_variables_initializer())
        saver.save(sess, prefix, write_meta_graph=False, write_state=False)
        saver.restore(sess, prefix)
        assert sess.run([a, b]) == [2.0, 1.0]  # swapped by the custom restore
    assert restored["shapes"] is None
    reader = tf.train.NewCheckpointReader(prefix)
    assert reader.get_variable_to_shape_map() == {"pair-a": [], "pair-b": []}


def test_a_saver_builder_subclass_makes_the_restore_ops(tmp_path):
    from flowloom.train.saver import BaseSaverBuilder

    calls = []

    class OnePerSaveable(BaseSaverBuilder):
        def restore_op(self, filename_tensor, saveable, preferred_shard):
            calls.append(saveable.name)
            return super().restore_op(filename_tensor, saveable, preferred_shard)

    with tf.Graph().as_default() as graph, tf.Session() as sess:
        v = tf.Variable([3.0], name="v")
        w = tf.Variable([4.0], name="w")
        saver = tf.train.Saver(builder=OnePerSaveable())
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
        sess.run([v.assign([0.0]), w.assign([0.0])])
        saver.restore(sess, path)
        assert sess.run([v, w]) == [[3.0], [4.0]]
        restores = [op.name for op in graph.get_operations() if op.type == "RestoreV2"]
    assert calls == ["v", "w"]
    assert restores == ["save/RestoreV2", "save/RestoreV2_1"]


def test_a_deferred_saver_must_be_built_before_save(tmp_path):
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.Variable(1.0)
        saver = tf.train.Saver(defer_build=True)
        with pytest.raises(RuntimeError, match="build"):
            saver.save(sess, str(tmp_path / "m"))


def test_static_tables_refuse_insert():
    with tf.Graph().as_default(), tf.Session() as sess:
        table = tf.contrib.lookup.HashTable(
            tf.contrib.lookup.KeyValueTensorInitializer(["a"], [1]), -1)
        insert = apply_op("LookupTableInsertV2", (table.resource_handle, tf.constant(["b"]),
                                                  tf.constant([2])))
        sess.run(table.initializer)
        with pytest.raises(tf.errors.UnimplementedError):
            sess.run(insert)
