"""import_graph_def rules TF 1.15 follows (its framework/importer_test.py checks the same):
name uniquification, input_map key use, versions, colocation names, malformed names."""

import pytest
from google.protobuf import text_format

import flowloom as tf
from flowloom.framework import device as device_lib
from flowloom.framework.graph_def import GRAPH_DEF_VERSION


def _gd(text, producer=None, min_consumer=None):
    gd = text_format.Parse(text, tf.GraphDef())
    if producer is not None:
        gd.versions.producer = producer
    if min_consumer is not None:
        gd.versions.min_consumer = min_consumer
    return gd


PAIR = """node { name: 'A' op: 'Placeholder' attr { key: 'dtype' value { type: DT_INT32 } } }
          node { name: 'B' op: 'Identity' input: 'A:0' attr { key: 'T' value { type: DT_INT32 } } }"""


def _import(gd, name, **kw):
    return [x.name for x in tf.import_graph_def(gd, return_elements=["A", "B"], name=name, **kw)]


def test_imported_names_are_made_unique_as_tf_does():
    gd = _gd(PAIR)
    with tf.Graph().as_default() as g:
        assert _import(gd, "") == ["A", "B"]
        assert _import(gd, "") == ["A_1", "B_1"]
        assert _import(gd, "") == ["A_2", "B_2"]
        assert _import(gd, "A") == ["A_3/A", "A_3/B"]
        assert _import(gd, "A/") == ["A/A", "A/B"]
        assert _import(gd, "A/") == ["A/A_1", "A/B_1"]
        assert [t.name for t in g.get_operation_by_name("B_1").inputs] == ["A_1:0"]
        with tf.name_scope("foo"):
            tf.constant(1)
        foo, = tf.import_graph_def(_gd("node { name: 'foo' op: 'NoOp' }"),
                                   return_elements=["foo"], name="")
        assert foo.name == "foo_1"  # a scope's name counts as used


def test_colocation_names_follow_renamed_nodes_and_must_exist():
    gd = _gd("""node { name: 'A' op: 'NoOp' }
                node { name: 'B' op: 'NoOp' attr { key: '_class' value { list { s: 'loc:@A' } } } }""")
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        a1, b1 = tf.import_graph_def(gd, return_elements=["A", "B"], name="")
        assert (a1.name, b1.colocation_groups()) == ("A_1", [b"loc:@A_1"])
    lonely = _gd("node { name: 'B' op: 'NoOp' attr { key: '_class' "
                 "value { list { s: 'loc:@A' } } } }")
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Node 'B' expects to be colocated with unknown "
                                             "node 'A'"):
            tf.import_graph_def(lonely, name="imported_graph")


def test_input_map_keys_bytes_unused_and_missing():
    gd = _gd(PAIR)
    with tf.Graph().as_default():
        feed = tf.constant(5)
        b, = tf.import_graph_def(gd, input_map={b"A:0": feed}, return_elements=[b"B"])
        assert list(b.inputs) == [feed]
        # A mapping of a node that is not in the GraphDef is fine when it replaces an input.
        only_b = _gd("node { name: 'B' op: 'Identity' input: 'A:0' "
                     "attr { key: 'T' value { type: DT_INT32 } } }")
        b, = tf.import_graph_def(only_b, input_map={"A:0": feed}, return_elements=["B"])
        assert list(b.inputs) == [feed]
        # Unused: an error only when the node or its output does not exist.
        tf.import_graph_def(gd, input_map={"B:0": feed})
        with pytest.raises(ValueError, match=r"not found in graph_def: \[A:2\]"):
            tf.import_graph_def(gd, input_map={"A:2": feed})
        with pytest.raises(ValueError, match="requires a non-empty `name`"):
            tf.import_graph_def(gd, input_map={"A:0": tf.Variable(5)}, name="")


def test_malformed_names():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Cannot convert 'a:b:c' to a tensor name\."):
            tf.import_graph_def(_gd(PAIR), return_elements=["a:b:c"])
        bad = _gd("node { name: 'A' op: 'NoOp' } node { name: 'B' op: 'NoOp' input: '^A' "
                  "input: 'A:B:0' }")
        with pytest.raises(ValueError, match="Node 'B': Unknown input node 'A:B:0'"):
            tf.import_graph_def(bad)
        with pytest.raises(ValueError, match="Node 'B': Connecting to invalid output 1 of "
                                             "source node A which has 1 outputs"):
            tf.import_graph_def(_gd(PAIR.replace("'A:0'", "'A:1'")))
        with pytest.raises(TypeError, match=r"^graph_def must be a GraphDef proto\.$"):
            tf.import_graph_def("")


def test_versions_merge_into_the_graph():
    for producer, min_consumer in [(0, 0), (12, 5), (GRAPH_DEF_VERSION, GRAPH_DEF_VERSION)]:
        with tf.Graph().as_default() as g:
            tf.import_graph_def(_gd(PAIR, producer, min_consumer))
            assert (g.graph_def_versions.producer, g.graph_def_versions.min_consumer) == \
                (producer, min_consumer)
            assert g.as_graph_def().versions.producer == producer
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"GraphDef producer version -1 below min "
                                             r"producer 0 supported by TensorFlow \S+\.  "
                                             r"Please regenerate your graph\.$"):
            tf.import_graph_def(_gd("", producer=-1))


def test_input_types_keep_references():
    with tf.Graph().as_default():
        v = tf.Variable(1)
        assign = tf.assign(v, 2)
        add = v + 1
    assert assign.op._input_types == [tf.int32._as_ref, tf.int32]
    assert add.op._input_types[0] == tf.int32


def test_device_spec_errors_merge_device_and_v2():
    with pytest.raises(ValueError, match="invalid literal for int"):
        device_lib.check_valid("/job:j/replica:foo")
    with pytest.raises(ValueError, match=r"^Unknown attribute: 'bar' in '/bar:muu/baz:2'$"):
        device_lib.check_valid("/bar:muu/baz:2")
    with pytest.raises(ValueError, match="Cannot specify multiple device types"):
        device_lib.check_valid("/cpu:0/device:GPU:2")
    with tf.Graph().as_default():
        with tf.device(device_lib.merge_device("/device:GPU:0")):
            with tf.device(device_lib.merge_device("/job:worker")):
                assert tf.constant(1).op.device == "/job:worker/device:GPU:0"
    spec = device_lib.DeviceSpecV2.from_string("/job:muu/task:1/device:MyFunnyDevice:2")
    assert spec.to_string() == "/job:muu/task:1/device:MyFunnyDevice:2"
    assert spec.replace(job="w").to_string() == "/job:w/task:1/device:MyFunnyDevice:2"
    with pytest.raises(AttributeError):
        spec.job = "x"


def test_imported_devices_merge_with_device_functions_and_colocation():
    with tf.Graph().as_default() as g:
        tf.constant(3.0, name="a")
        with tf.device("/cpu:0"):
            tf.constant(4.0, name="b")
        with tf.device("/job:worker"):
            tf.constant(5.0, name="c")
    gd = g.as_graph_def()
    with tf.Graph().as_default():
        with tf.device(device_lib.merge_device("/task:0")):
            a, b, c = tf.import_graph_def(gd, return_elements=["a", "b", "c"])
    assert (a.device, b.device, c.device) == ("/task:0", "/task:0/device:CPU:0",
                                              "/job:worker/task:0")
    with tf.Graph().as_default():
        with tf.device(device_lib.merge_device("/job:ps")):
            c, = tf.import_graph_def(gd, return_elements=["c"])
    assert c.device == "/job:worker"  # the NodeDef's device is the inner scope
    coloc = _gd("""node { name: 'A' op: 'NoOp' device: '/device:CPU:0'
                          attr { key: '_class' value { list { s: 'loc:@A' } } } }
                   node { name: 'B' op: 'NoOp' device: '/device:GPU:0'
                          attr { key: '_class' value { list { s: 'loc:@A' } } } }""")
    with tf.Graph().as_default():
        a, b = tf.import_graph_def(coloc, return_elements=["A", "B"], name="")
    assert (a.device, b.device) == ("/device:CPU:0", "/device:CPU:0")  # B takes A's
    calls = []

    def count(op):
        calls.append(op.name)
        return "/device:CPU:0"

    with tf.Graph().as_default():
        with tf.device(count):
            tf.import_graph_def(_gd(PAIR))
    assert calls == ["import/A", "import/B"]  # each device function runs once per op


_PLACEHOLDER = "node { name: 'A' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }"


def _shapes_attr(dims):
    return ("attr { key: '_output_shapes' value { list { shape { %s } } } }"
            % " ".join("dim { size: %d }" % d for d in dims))


@pytest.mark.parametrize("node, message", [
    # (TF 1.15.5's messages for the same GraphDefs)
    ("node { name: 'B' op: 'L2Loss' input: 'A:0' attr { key: 'T' value { type: DT_FLOAT } } "
     + _shapes_attr([43]) + " }",
     "Node 'import/B' has an _output_shapes attribute inconsistent with the GraphDef for "
     "output #0: Shapes must be equal rank, but are 0 and 1"),
    ("node { name: 'B' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: "
     "'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 } "
     "} } " + _shapes_attr([3]) + " }",
     "Node 'import/B' has an _output_shapes attribute inconsistent with the GraphDef for "
     "output #0: Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and "
     "[3]."),
])
def test_output_shapes_that_contradict_the_shape_function_fail(node, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as e:
            tf.import_graph_def(_gd(_PLACEHOLDER + node), name="import")
    assert str(e.value) == message


def test_output_shapes_refine_unknown_shapes_and_whitelisted_types_pass():
    with tf.Graph().as_default():
        ident, = tf.import_graph_def(_gd(
            _PLACEHOLDER + "node { name: 'C' op: 'Identity' input: 'A:0' attr { key: 'T' value "
            "{ type: DT_FLOAT } } " + _shapes_attr([43]) + " }"), return_elements=["C:0"])
        assert ident.shape.as_list() == [43]  # TF 1.15 also takes the listed shape
        assert "_output_shapes" not in ident.op.node_def.attr
        # ConditionalAccumulator is on TF's whitelist: its listed shape is not checked.
        acc, = tf.import_graph_def(_gd(
            "node { name: 'Q' op: 'ConditionalAccumulator' attr { key: 'dtype' value { type: "
            "DT_FLOAT } } attr { key: 'shape' value { shape { } } } " + _shapes_attr([3])
            + " }"), return_elements=["Q"])
        assert acc.type == "ConditionalAccumulator"
