"""Partitioned variables: partitioners, get_variable(partitioner=) / variable_scope(partitioner=),
create_partitioned_variables and PartitionedVariable, checked against TF 1.15's choices
(tests/data/partitioned_ckpt/tf.json, recorded by tests/data/record_partitioned_ckpt.py)."""

import json
import os

import numpy as np
import pytest

import flowloom as tf
from flowloom.partitioned_variables import PartitionedVariable, _PartitionInfo
from flowloom.variables import Variable

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
with open(os.path.join(DATA, "partitioned_ckpt", "tf.json")) as _f:
    TF = json.load(_f)

# The recorder's PARTITIONER_CASES (kept in step with tests/data/record_partitioned_ckpt.py).
CASES = [
    ("fixed_size_partitioner", [3], [10, 4], "float32"),
    ("fixed_size_partitioner", [5, 1], [4, 3], "float32"),
    ("fixed_size_partitioner", [16], [7], "int64"),
    ("variable_axis_size_partitioner", [64], [40, 3], "float32"),
    ("variable_axis_size_partitioner", [100, 1, 16, 2], [5, 30], "float64"),
    ("variable_axis_size_partitioner", [1000], [4, 9], "string"),
    ("min_max_variable_partitioner", [8, 0, 64], [100, 2], "float32"),
    ("min_max_variable_partitioner", [3, 1, 16], [2, 50], "int32"),
    ("min_max_variable_partitioner", [50, 0, 1 << 10], [7, 3], "float32"),
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_partitioners_and_parts_are_tf_s(index):
    fn, args, shape, dtype = CASES[index]
    expected = TF["partitioners"][index]
    with tf.Graph().as_default():
        partitioner = getattr(tf, fn)(*args)
        dtype = tf.as_dtype(dtype)
        assert list(partitioner(shape=tf.TensorShape(shape), dtype=dtype)) == \
            expected["partitions"]
        var = tf.get_variable("v%d" % index, shape=shape, dtype=dtype, partitioner=partitioner)
        assert isinstance(var, PartitionedVariable)
        assert [v.name for v in var] == expected["names"]
        assert [v._save_slice_info.spec for v in var] == expected["specs"]


def test_partitioned_variable_reads_concatenated_and_reuses():
    with tf.Graph().as_default(), tf.Session() as sess:
        init = np.arange(20, dtype=np.float32).reshape(10, 2)
        with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(3)):
            v = tf.get_variable("w", initializer=tf.constant(init))
        with tf.variable_scope("s", reuse=True):
            assert tf.get_variable("w") is v  # no partitioner needed to reuse
        with pytest.raises(ValueError, match="already exists"):
            with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(3)):
                tf.get_variable("w", initializer=tf.constant(init))
        with pytest.raises(ValueError, match="specified partitions"):
            with tf.variable_scope("s", reuse=True, partitioner=tf.fixed_size_partitioner(2)):
                tf.get_variable("w", [10, 2])
        with pytest.raises(ValueError, match="partitioned version"):
            tf.get_variable("s/w", [10, 2])
        with pytest.raises(ValueError, match="fully defined"):
            tf.get_variable("u", [None, 2], partitioner=tf.fixed_size_partitioner(2))
        scalar = tf.get_variable("scalar", [], partitioner=tf.fixed_size_partitioner(2))
        assert isinstance(scalar, Variable)  # a scalar ignores the partitioner, as in TF
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(v)), init)
        assert [p.get_shape().as_list() for p in v] == [[4, 2], [3, 2], [3, 2]]
        assert len(v) == 3 and v.get_shape().as_list() == [10, 2]
        assert [x.name for x in tf.global_variables()][:3] == \
            ["s/w/part_0:0", "s/w/part_1:0", "s/w/part_2:0"]


def test_initializers_see_the_partition_info():
    seen = []

    def init(shape, dtype=None, partition_info=None):
        seen.append((list(shape), partition_info.full_shape, partition_info.var_offset))
        return tf.zeros(shape, dtype)

    with tf.Graph().as_default():
        tf.get_variable("v", [5, 3], initializer=init,
                        partitioner=tf.fixed_size_partitioner(2))
    assert seen == [([3, 3], [5, 3], [0, 0]), ([2, 3], [5, 3], [3, 0])]
    info = _PartitionInfo([5, 3], [3, 0])
    assert info.single_offset([2, 3]) == 3 and _PartitionInfo([5, 3], [0, 0]).single_slice_dim(
        [5, 3]) is None
    with pytest.raises(ValueError):
        _PartitionInfo([5, 3], [5, 0])
    with pytest.raises(TypeError):
        _PartitionInfo("53", [0, 0])


def test_create_partitioned_variables_names_and_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        value = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8]])
        with tf.variable_scope("hi"):
            a = tf.create_partitioned_variables([2, 4], [1, 2], value)
            b = tf.create_partitioned_variables([2, 4], [1, 2], value)
        assert [v.name for v in a + b] == [
            "hi/PartitionedVariable/part_0:0", "hi/PartitionedVariable/part_1:0",
            "hi/PartitionedVariable_1/part_0:0", "hi/PartitionedVariable_1/part_1:0"]
        assert [v._save_slice_info.spec for v in a] == ["2 4 0,2:0,2", "2 4 0,2:2,2"]
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(tf.concat(a, 1)), sess.run(value))
        for shape, slicing in (([2], [1, 1]), ([2, 4], [3, 1]), ([2, 4], [2, 2])):
            with pytest.raises(ValueError):
                tf.create_partitioned_variables(shape, slicing, value)


def test_assign_reads_and_control_dependencies():
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.get_variable("v", initializer=tf.constant([1.0, 2.0, 3.0]),
                            partitioner=tf.fixed_size_partitioner(2))
        c = tf.constant(0.0)
        g = tf.get_default_graph()
        with tf.control_dependencies([c]):
            before = set(g.get_operations())
            whole = v.as_tensor()  # a read: no control inputs
            read_ops = set(g.get_operations()) - before
            v._concat()
            concat_ops = set(g.get_operations()) - before - read_ops
        assert read_ops and all(not op.control_inputs for op in read_ops)
        assert any(c.op in op.control_inputs for op in concat_ops)
        sess.run(tf.global_variables_initializer())
        sess.run(v.assign_add(tf.constant([10.0, 20.0, 30.0])))
        np.testing.assert_array_equal(sess.run(whole), [11.0, 22.0, 33.0])
        sess.run(v.assign([tf.constant([0.0, 1.0]), tf.constant([2.0])]))
        np.testing.assert_array_equal(sess.run(v.as_tensor()), [0.0, 1.0, 2.0])
        with pytest.raises(NotImplementedError, match="reference"):
            tf.assign(v, [1.0, 2.0, 3.0])


def test_partitioned_variable_checks_its_parts():
    with tf.Graph().as_default():
        v0 = tf.Variable([0])
        with pytest.raises(ValueError, match="empty"):
            PartitionedVariable("x", [2], tf.int32, [], [])
        with pytest.raises(ValueError, match="save_slice_info"):
            PartitionedVariable("x", [1], tf.int32, [v0], [1])
        v0._set_save_slice_info(Variable.SaveSliceInfo("x", [2], [0], [1]))
        with pytest.raises(ValueError, match="full shapes must match"):
            PartitionedVariable("x", [3], tf.int32, [v0], [1])
        with pytest.raises(ValueError, match="must be positive"):
            PartitionedVariable("x", [2], tf.int32, [v0], [0])


def test_meta_graph_keeps_slice_info_and_saver_restores(tmp_path):
    prefix = str(tmp_path / "ckpt")
    with tf.Graph().as_default() as g, tf.Session() as sess:
        with tf.variable_scope("root", partitioner=tf.fixed_size_partitioner(5)):
            v = tf.get_variable("v0", [10, 10])
        g.add_to_collection("partvar", v)
        saver = tf.train.Saver()
        sess.run(tf.global_variables_initializer())
        saver.save(sess, prefix)
        before = sess.run(g.get_tensor_by_name("root/v0:0"))
    with tf.Graph().as_default() as g, tf.Session() as sess:
        saver = tf.train.import_meta_graph(prefix + ".meta")
        saver.restore(sess, prefix)
        parts = tf.global_variables()
        assert [p._save_slice_info.spec for p in parts][:2] == ["10 10 0,2:0,10",
                                                                "10 10 2,2:0,10"]
        assert parts[0]._save_slice_info.full_name == "root/v0"
        np.testing.assert_array_equal(sess.run(g.get_tensor_by_name("root/v0:0")), before)


def test_optimizer_slots_are_slices_and_never_partitioned(tmp_path):
    with tf.Graph().as_default(), tf.Session() as sess:
        with tf.variable_scope("m", partitioner=tf.fixed_size_partitioner(2)):
            w = tf.get_variable("w", initializer=tf.constant([[1.0], [2.0], [3.0]]))
            train = tf.train.AdagradOptimizer(0.1).minimize(tf.reduce_sum(
                tf.convert_to_tensor(w) ** 2))
        slots = [v for v in tf.global_variables() if "Adagrad" in v.name]
        assert [v.name for v in slots] == ["m/m/w/part_0/Adagrad:0", "m/m/w/part_1/Adagrad:0"]
        # TF's slot_creator cuts the slot's name at the length of its primary's name (TF 1.15
        # gives these very names).
        assert [(v._save_slice_info.full_name, v._save_slice_info.spec) for v in slots] == [
            ("m/w/0/Adagrad", "3 1 0,2:0,1"), ("m/w/1/Adagrad", "3 1 2,1:0,1")]
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        saver = tf.train.Saver()
        prefix = saver.save(sess, str(tmp_path / "ckpt"))
        before = sess.run(tf.convert_to_tensor(w))
        sess.run(w.assign(tf.zeros([3, 1])))
        saver.restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(w)), before)
    names = [n for n, _ in tf.train.list_variables(str(tmp_path))]
    assert names == ["m/w", "m/w/0/Adagrad", "m/w/1/Adagrad"]
