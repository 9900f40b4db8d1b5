"""The schemas parse TF's serialized messages and serialize them back byte for byte."""

import importlib
import pathlib

import pytest
from google.protobuf import text_format

from flowloom.proto import config_pb2, example_pb2, graph_pb2, meta_graph_pb2

PROTO_DIR = pathlib.Path(__file__).resolve().parents[2] / "flowloom" / "proto"


def test_every_generated_module_imports():
    names = sorted(p.stem for p in PROTO_DIR.glob("*_pb2.py"))
    assert len(names) == len(list(PROTO_DIR.glob("*.proto")))
    for name in names:
        module = importlib.import_module(f"flowloom.proto.{name}")
        # TF's packages: `tensorflow`, and `tensorflow.error` for the error-code enum.
        assert module.DESCRIPTOR.package in ("tensorflow", "tensorflow.error")
        # gen_protos.py strips the stamp that would demand a newer protobuf runtime.
        assert "_runtime_version" not in (PROTO_DIR / f"{name}.py").read_text()


@pytest.mark.parametrize(
    "file_name,message_class",
    [
        ("graph_def.pb", graph_pb2.GraphDef),
        ("meta_graph.pb", meta_graph_pb2.MetaGraphDef),
        ("example.pb", example_pb2.Example),
        ("config.pb", config_pb2.ConfigProto),
    ],
)
def test_tf_bytes_round_trip(data_path, file_name, message_class):
    with open(data_path(file_name), "rb") as f:
        tf_bytes = f.read()
    message = message_class.FromString(tf_bytes)
    # Both sides serialize deterministically (map entries sorted by key).
    assert message.SerializeToString(deterministic=True) == tf_bytes
    # Nothing was carried as an unknown field (that would also round-trip).
    unknown_fields = pytest.importorskip("google.protobuf.unknown_fields")
    assert len(unknown_fields.UnknownFieldSet(message)) == 0


def test_tf_graph_def_content(data_path):
    with open(data_path("graph_def.pb"), "rb") as f:
        graph = graph_pb2.GraphDef.FromString(f.read())
    nodes = {node.name: node for node in graph.node}
    assert nodes["x"].op == "Placeholder"
    assert nodes["x"].attr["shape"].shape.dim[1].size == 3
    assert nodes["y"].op == "Relu"
    assert graph.versions.producer > 0


def test_config_text_format_matches_tf(data_path):
    with open(data_path("config.pb"), "rb") as f:
        config = config_pb2.ConfigProto.FromString(f.read())
    with open(data_path("config.pbtxt")) as f:
        assert text_format.MessageToString(config) == f.read()
    assert config.device_count["CPU"] == 2
    assert config.allow_soft_placement and config.log_device_placement
    assert config.gpu_options.allow_growth
    assert config.graph_options.optimizer_options.opt_level == config_pb2.OptimizerOptions.L0


def test_meta_graph_collections_and_saver(data_path):
    with open(data_path("meta_graph.pb"), "rb") as f:
        meta = meta_graph_pb2.MetaGraphDef.FromString(f.read())
    assert "variables" in meta.collection_def
    assert {node.name for node in meta.graph_def.node} >= {"x", "w", "y"}
    assert meta.meta_info_def.stripped_op_list.op


def test_any_type_url_uses_tensorflow_package():
    meta = meta_graph_pb2.MetaGraphDef()
    meta.meta_info_def.any_info.Pack(graph_pb2.GraphDef())
    assert meta.meta_info_def.any_info.type_url == "type.googleapis.com/tensorflow.GraphDef"
