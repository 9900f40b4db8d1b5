"""GraphDefs flowloom writes carry only attrs TensorFlow 1.15 knows (its importer refuses any
other), checked against TF 1.15's op registry recorded by tests/data/record_tf1_op_attrs.py.
Attrs TF added later are left out while they hold their default (framework/tf1_attrs.py)."""

import json
import os
import importlib
import subprocess

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import op_def, tf1_attrs
from flowloom.framework.registry_index import INDEX
from tests import tf_reference

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")

# flowloom's own signatures, with no TF 1.15 form to write: a Dataset.from_generator names a
# Python generator (TF 1.15 wraps it in py_func functions, which no GraphDef can carry either).
OWN_SIGNATURE = {"GeneratorDataset": {"generator"}}


def _tf1_attrs():
    with open(os.path.join(DATA, "tf1_op_attrs.json")) as f:
        return json.load(f)["attrs"]


def _attr_names(od):
    names = set(od.attr_defaults)
    for arg in od.input_args + od.output_args:
        names.update(x for x in (arg.type_attr, arg.number_attr, arg.type_list_attr) if x)
    return names


def test_every_attr_tf1_lacks_is_listed_as_added_later():
    for module in INDEX["op"]:
        importlib.import_module(module)
    tf1 = _tf1_attrs()
    unlisted = {}
    for op_type in op_def.registered_types():
        if op_type not in tf1:
            continue
        extra = _attr_names(op_def.get(op_type)) - set(tf1[op_type])
        extra -= set(tf1_attrs.ADDED_AFTER_TF1.get(op_type, ()))
        extra -= OWN_SIGNATURE.get(op_type, set())
        if extra:
            unlisted[op_type] = sorted(extra)
    assert not unlisted, unlisted
    for op_type, added in tf1_attrs.ADDED_AFTER_TF1.items():
        assert not set(added) & set(tf1[op_type]), op_type


def test_every_tf1_attr_is_declared():
    """A GraphDef TF 1.15 wrote names these attrs; flowloom's op types declare each."""
    for module in INDEX["op"]:
        importlib.import_module(module)
    lacking = {}
    for op_type, names in _tf1_attrs().items():
        od = op_def.get(op_type, load_all=False)
        if od is None or op_type in OWN_SIGNATURE:
            continue
        missing = set(names) - _attr_names(od)
        if missing:
            lacking[op_type] = sorted(missing)
    assert not lacking, lacking


def _graph_with_later_attrs():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 4, 4, 3], name="x")
        y = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        tf.nn.depthwise_conv2d(x, tf.ones([2, 2, 3, 1]), [1, 1, 1, 1], "SAME")
        m = tf.matmul(tf.reshape(y, [2, 12]), tf.ones([12, 5]))
        tf.nn.top_k(m, 2)
        both = tf.concat([m, m], 1)
        tf.gradients(tf.reduce_sum(both), x)  # MaxPoolGrad, ConcatOffset
        scale = tf.ones([3])
        tf.nn.fused_batch_norm(x, scale, tf.zeros([3]), is_training=True)
        w = tf.Variable(tf.ones([12, 5]))
        loss = tf.reduce_sum(tf.matmul(tf.reshape(y, [2, 12]), w))
        tf.train.FtrlOptimizer(0.1).minimize(loss)
    return g


def test_written_nodes_have_only_tf1_attrs_and_read_back_with_defaults():
    tf1 = _tf1_attrs()
    g = _graph_with_later_attrs()
    gd = g.as_graph_def()
    seen = set()
    for node in gd.node:
        if node.op in tf1:
            assert set(node.attr) - {"_class", "_output_shapes"} <= set(tf1[node.op]), node
        seen.add(node.op)
    assert {"MaxPool", "DepthwiseConv2dNative", "MatMul", "TopKV2", "ConcatOffset",
            "MaxPoolGrad", "FusedBatchNormV3", "ApplyFtrl"} <= seen, seen
    with tf.Graph().as_default() as g2:
        tf.import_graph_def(gd, name="")
        pool = next(op for op in g2.get_operations() if op.type == "MaxPool")
        assert list(pool.get_attr("explicit_paddings")) == []
        mm = next(op for op in g2.get_operations() if op.type == "MatMul")
        assert mm.get_attr("grad_a") is False
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run("TopKV2:0", {"x:0": np.ones([2, 4, 4, 3], np.float32)})
            assert out.shape == (2, 2)


def test_non_default_values_are_written():
    assert not tf1_attrs.omitted("MaxPool", "explicit_paddings", [0, 0, 1, 1, 1, 1, 0, 0], [])
    assert tf1_attrs.omitted("MaxPool", "explicit_paddings", [], [])
    assert not tf1_attrs.omitted("MaxPool", "data_format", "NHWC", "NHWC")


@pytest.mark.skipif(tf_reference.tensorflow_python("FLOWLOOM_TF1_PYTHON") is None,
                    reason=tf_reference.skip_reason("FLOWLOOM_TF1_PYTHON"))
def test_tf1_imports_the_graph(tmp_path):
    path = tmp_path / "g.pb"
    path.write_bytes(_graph_with_later_attrs().as_graph_def().SerializeToString())
    script = ("import sys, tensorflow as tf\n"
              "gd = tf.GraphDef(); gd.ParseFromString(open(sys.argv[1], 'rb').read())\n"
              "tf.import_graph_def(gd, name='')\nprint('imported', len(gd.node))\n")
    out = subprocess.run([tf_reference.tensorflow_python("FLOWLOOM_TF1_PYTHON"), "-c", script,
                          str(path)], capture_output=True, text=True, timeout=300)
    assert "imported" in out.stdout, out.stderr[-2000:]
