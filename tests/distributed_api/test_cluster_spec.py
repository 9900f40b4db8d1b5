"""tf.train.ClusterSpec against TF 1.15's recorded behaviour (tests/data/distributed_api_tf1.json)
and a few properties of its own."""

import json
import os

import pytest

import flowloom as tf
from flowloom.proto import cluster_pb2
from tests.distributed_api import cluster_spec_cases

RECORD = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data",
                      "distributed_api_tf1.json")


def test_cases_match_tf1():
    with open(RECORD) as f:
        expected = json.load(f)["cluster_spec"]
    got = cluster_spec_cases.run(tf, cluster_pb2)
    assert [c[0] for c in got] == [c[0] for c in expected]
    mismatches = [(e, g) for e, g in zip(expected, got) if e != g]
    assert not mismatches


def test_cluster_def_round_trip_wire():
    spec = tf.train.ClusterSpec({"ps": ["ps0:1"], "worker": {2: "w2:1"}})
    wire = spec.as_cluster_def().SerializeToString()
    back = tf.train.ClusterSpec(cluster_pb2.ClusterDef.FromString(wire))
    assert back == spec
    assert back.as_dict() == {"ps": ["ps0:1"], "worker": {2: "w2:1"}}
    assert tf.train.ClusterDef is cluster_pb2.ClusterDef


def test_config_proto_carries_cluster_def():
    spec = tf.train.ClusterSpec({"worker": ["a:1", "b:1"]})
    config = tf.ConfigProto(cluster_def=spec.as_cluster_def())
    assert tf.train.ClusterSpec(config.cluster_def).job_tasks("worker") == ["a:1", "b:1"]


def test_bad_task_address_type():
    with pytest.raises(TypeError, match="Task address 3 must be bytes or unicode"):
        tf.train.ClusterSpec({"worker": [3]})
