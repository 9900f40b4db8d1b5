"""tf.data pipelines survive a GraphDef: dataset functions are written into the graph's
function library (TF keeps them there), TensorDataset/TensorSliceDataset carry TF's attrs,
iterator string handles are TF's serialized ResourceHandleProto, and a GraphDef TensorFlow 1.15
wrote (OptimizeDataset/ModelDataset wrappers, a one-shot iterator's `dataset_factory`) runs.

The expected values were checked by running the GraphDef flowloom writes in TensorFlow 1.15.5
and 2.21 (both print [2, 6, 2, 6] for `_nested_pipeline`)."""

import json
import os
import subprocess

import pytest

import flowloom as tf
from flowloom.proto import resource_handle_pb2
from tests import tf_reference

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def _nested_pipeline():
    k = tf.constant(3, tf.int64, name="k")
    ds = tf.data.Dataset.range(4).flat_map(
        lambda x: tf.data.Dataset.range(x).map(lambda y: y * k + x))
    ds = ds.filter(lambda v: tf.equal(v % 2, 0))
    return ds.interleave(lambda v: tf.data.Dataset.from_tensors(v).repeat(2), cycle_length=2)


def _drain(sess, fetch):
    out = []
    try:
        while True:
            out.append(int(sess.run(fetch)))
    except tf.errors.OutOfRangeError:
        return out


def test_dataset_functions_are_in_the_graphs_library():
    with tf.Graph().as_default() as g:
        it = tf.data.make_initializable_iterator(_nested_pipeline())
        tf.identity(it.get_next(), name="output")
        gd = g.as_graph_def()
    names = sorted(f.signature.name for f in gd.library.function)
    assert len(names) == 4 and all(n.startswith("__flowloom_") for n in names)
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            sess.run("make_initializer/MakeIterator")
            assert _drain(sess, "output:0") == [2, 6, 2, 6]


def test_meta_graph_with_a_one_shot_pipeline_imports_under_a_scope():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10).map(lambda x: x * x)
        tf.identity(tf.data.make_one_shot_iterator(ds).get_next(), name="output")
        meta = tf.train.export_meta_graph()
    with tf.Session(graph=tf.Graph()) as sess:
        tf.train.import_meta_graph(meta, import_scope="new_model")
        assert _drain(sess, "new_model/output:0") == [i * i for i in range(10)]


def test_a_function_missing_from_the_library_is_not_found():
    with tf.Graph().as_default() as g:
        it = tf.data.make_initializable_iterator(tf.data.Dataset.range(3).map(lambda x: x + 1))
        it.get_next()
        gd = g.as_graph_def()
    del gd.library.function[:]
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            with pytest.raises(tf.errors.NotFoundError, match="__flowloom_map_"):
                sess.run("make_initializer/MakeIterator")


def test_tensor_datasets_have_tf_attrs():
    with tf.Graph().as_default() as g:
        tf.data.Dataset.from_tensors(tf.constant([1.0, 2.0]))
        tf.data.Dataset.from_tensor_slices(tf.constant([1, 2]))
        nodes = {n.op: n for n in g.as_graph_def().node}
    for op in ("TensorDataset", "TensorSliceDataset"):
        assert sorted(nodes[op].attr) == ["Toutput_types", "output_shapes"]


def test_string_handles_are_resource_handle_protos():
    with tf.Graph().as_default():
        private = tf.data.Iterator.from_structure((tf.float32,))
        shared = tf.data.Iterator.from_structure((tf.float32,), shared_name="shared_it")
        assert private._handle.op.get_attr("shared_name") in (b"", "")
        with tf.Session() as sess:
            protos = []
            for it in (private, shared):
                p = resource_handle_pb2.ResourceHandleProto()
                p.ParseFromString(sess.run(it.string_handle()))
                protos.append(p)
    assert protos[0].name.startswith("_") and protos[0].name.endswith("_IteratorV2")
    assert protos[1].name == "shared_it"
    for p in protos:
        assert p.device == "/job:localhost/replica:0/task:0/device:CPU:0"
        assert p.container == "localhost"
        assert p.maybe_type_name == "N10tensorflow4data16IteratorResourceE"


def test_feedable_iterator_round_trip_and_bad_handle():
    with tf.Graph().as_default():
        a = tf.data.make_initializable_iterator(tf.data.Dataset.range(3))
        handle = tf.placeholder(tf.string, [])
        it = tf.data.Iterator.from_string_handle(handle, a.output_types, a.output_shapes)
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(a.initializer)
            h = sess.run(a.string_handle())
            assert [int(sess.run(nxt, {handle: h})) for _ in range(3)] == [0, 1, 2]
            with pytest.raises(tf.errors.InvalidArgumentError, match="string handle"):
                sess.run(nxt, {handle: b"no such iterator"})


def test_graphdef_written_by_tf1_runs():
    """tests/data/record_dataset_graphdef.py made the GraphDef and the values with TF 1.15."""
    with open(os.path.join(DATA, "dataset_graphdef_tf1.json")) as f:
        want = json.load(f)
    gd = tf.GraphDef()
    with open(os.path.join(DATA, "dataset_graphdef_tf1.pb"), "rb") as f:
        gd.ParseFromString(f.read())
    assert any(n.op == "OneShotIterator" and not n.input for n in gd.node)
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            sess.run(want["initializer"])
            assert [sess.run("output:0").tolist() for _ in range(2)] == want["output"]
            assert [float(sess.run("output2:0")) for _ in range(3)] == want["output2"]
            for name in ("output:0", "output2:0"):
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(name)


def _shuffled_products():
    ds = tf.data.Dataset.from_tensor_slices(([1.0, 2.0, 3.0], [4, 5, 6])).map(
        lambda a, b: a * tf.cast(b, tf.float32)).shuffle(3, seed=1).batch(2)
    return ds.make_one_shot_iterator()


def test_one_shot_iterator_is_written_as_tfs_dataset_factory():
    """TF 1.15 fetches [10, 18] then [4] for this pipeline; it imports flowloom's GraphDef
    (checked live below) and fetches the same."""
    with tf.Graph().as_default() as g:
        it = _shuffled_products()
        nxt = it.get_next()
        node = it._handle.op.node_def
        assert not node.input and node.attr["dataset_factory"].func.name.startswith(
            "_make_dataset_")
        with tf.Session() as sess:
            assert [sess.run(nxt).tolist() for _ in range(2)] == [[10.0, 18.0], [4.0]]
        gd = g.as_graph_def()
    assert "N" not in node.attr and "N" not in next(
        n for n in gd.node if n.op == "OneShotIterator").attr
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        with tf.Session() as sess:
            got = [sess.run("IteratorGetNext:0").tolist() for _ in range(2)]
            assert got == [[10.0, 18.0], [4.0]]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run("IteratorGetNext:0")


def test_one_shot_iterator_of_a_fed_or_generated_dataset_takes_it_as_an_input():
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int64, [])
        fed = tf.data.Dataset.range(n).make_one_shot_iterator()
        gen = tf.data.Dataset.from_generator(lambda: iter([1, 2]), tf.int64)
        generated = gen.make_one_shot_iterator()
        for it in (fed, generated):
            assert len(it._handle.op.inputs) == 1
        with tf.Session() as sess:
            assert [int(sess.run(fed.get_next(), {n: 3})) for _ in range(3)] == [0, 1, 2]
            assert int(sess.run(generated.get_next())) == 1


@pytest.mark.skipif(tf_reference.tensorflow_python("FLOWLOOM_TF1_PYTHON") is None,
                    reason=tf_reference.skip_reason("FLOWLOOM_TF1_PYTHON"))
def test_tf1_runs_flowloom_dataset_graphdefs(tmp_path):
    with tf.Graph().as_default() as g:
        _shuffled_products().get_next()
        it = tf.data.make_initializable_iterator(_nested_pipeline())
        tf.identity(it.get_next(), name="output")
        (tmp_path / "g.pb").write_bytes(g.as_graph_def().SerializeToString())
    script = (
        "import sys, tensorflow as tf\n"
        "gd = tf.GraphDef(); gd.ParseFromString(open(sys.argv[1], 'rb').read())\n"
        "tf.import_graph_def(gd, name='')\n"
        "with tf.Session() as s:\n"
        "    print([s.run('IteratorGetNext:0').tolist() for _ in range(2)])\n"
        "    s.run('make_initializer/MakeIterator')\n"
        "    print([int(s.run('output:0')) for _ in range(4)])\n")
    out = subprocess.run([tf_reference.tensorflow_python("FLOWLOOM_TF1_PYTHON"), "-c", script,
                          str(tmp_path / "g.pb")], capture_output=True, text=True, timeout=300)
    assert out.stdout.split("\n")[:2] == ["[[10.0, 18.0], [4.0]]", "[2, 6, 2, 6]"], \
        out.stderr[-2000:]
