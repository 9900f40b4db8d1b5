"""flowloom's protobuf schemas live in flowloom's own descriptor pool, so flowloom and
TensorFlow can be imported in one process; the bytes stay TF's."""

import os
import subprocess
import sysconfig

import pytest
from google.protobuf import descriptor_pool

import flowloom as tf
from flowloom.proto import _pool
from tests.tf_reference import tensorflow_python

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_schemas_are_not_in_the_default_pool():
    assert tf.GraphDef.DESCRIPTOR.file.pool is _pool.POOL
    with pytest.raises(KeyError):
        descriptor_pool.Default().FindMessageTypeByName("tensorflow.GraphDef")
    assert _pool.POOL.FindMessageTypeByName("tensorflow.MetaGraphDef").name == "MetaGraphDef"


def test_any_fields_pack_flowloom_messages():
    gd = tf.GraphDef()
    gd.node.add(name="a", op="NoOp")
    meta = tf.MetaGraphDef()
    meta.collection_def["graphs"].any_list.value.add().Pack(gd)
    back = tf.GraphDef()
    assert meta.collection_def["graphs"].any_list.value[0].Unpack(back) and back == gd
    assert tf.MetaGraphDef.FromString(meta.SerializeToString()) == meta


_BOTH = r"""
import sys
sys.path.insert(0, {repo!r})
sys.path.append({site!r})  # flowloom's own dependencies TF's environment may lack
first = {first!r}
if first == "tensorflow":
    import tensorflow as tf_root
    import flowloom as fl
else:
    import flowloom as fl
    import tensorflow as tf_root
tf = tf_root.compat.v1
tf.disable_v2_behavior()

g = fl.Graph()
with g.as_default():
    x = fl.placeholder(fl.float32, [2], name="x")
    fl.identity(x * 3.0 + 1.0, name="y")
tf_graph_def = tf.GraphDef.FromString(g.as_graph_def().SerializeToString())
with tf.Graph().as_default():
    tf.import_graph_def(tf_graph_def, name="")
    with tf.Session() as sess:
        print("tf runs flowloom's graph", sess.run("y:0", {{"x:0": [1.0, 2.0]}}).tolist())

with tf.Graph().as_default() as tg:
    a = tf.constant([1.0, 2.0])
    tf.identity(tf.square(a) + 1.0, name="out")
    tf_bytes = tg.as_graph_def().SerializeToString()
fl_graph_def = fl.GraphDef.FromString(tf_bytes)
assert fl_graph_def.SerializeToString() == tf_bytes
with fl.Graph().as_default():
    fl.import_graph_def(fl_graph_def, name="")
    with fl.Session() as sess:
        print("flowloom runs tf's graph", sess.run("out:0").tolist())
"""


@pytest.mark.parametrize("first", ["flowloom", "tensorflow"])
def test_flowloom_and_tensorflow_in_one_process(first):
    python = tensorflow_python()
    if python is None:
        pytest.skip("FLOWLOOM_TF_PYTHON is not set (a Python with TensorFlow)")
    code = _BOTH.format(repo=REPO, site=sysconfig.get_paths()["purelib"], first=first)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    p = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env,
                       timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "tf runs flowloom's graph [4.0, 7.0]" in p.stdout
    assert "flowloom runs tf's graph [2.0, 5.0]" in p.stdout
