"""tf.train.Server's pure parts (no Ray needed): ServerDef, defaults, targets, placement over
a cluster's devices, the cluster token, and a clear error for an unreachable cluster."""

import os
import subprocess
import sys

import pytest

import flowloom as tf
from flowloom.distributed import cluster as cluster_lib
from flowloom.distributed.server import _make_server_def
from flowloom.distributed.session_runtime import ClusterPlacer
from flowloom.distributed.task_service import task_devices

CLUSTER = {"ps": ["localhost:2222"], "worker": ["localhost:2223", "localhost:2224"]}


def test_server_def_fields_match_tf():
    sd = _make_server_def(tf.train.ClusterSpec(CLUSTER), "worker", 1, None, None)
    assert isinstance(sd, tf.train.ServerDef)
    assert sd.job_name == "worker" and sd.task_index == 1 and sd.protocol == "grpc"
    assert tf.train.ClusterSpec(sd.cluster).as_dict() == CLUSTER
    # TF's field numbers: cluster=1, job_name=2, task_index=3, protocol=5.
    wire = tf.train.ServerDef(job_name="ps", task_index=3, protocol="grpc").SerializeToString()
    assert wire == b"\x12\x02ps\x18\x03\x2a\x04grpc"


def test_server_def_defaults_and_errors():
    sd = _make_server_def({"local": ["localhost:1"]}, None, None, None, None)
    assert (sd.job_name, sd.task_index) == ("local", 0)
    with pytest.raises(ValueError, match="job_name"):
        _make_server_def(CLUSTER, None, None, None, None)
    with pytest.raises(ValueError, match="task_index"):
        _make_server_def(CLUSTER, "worker", None, None, None)
    with pytest.raises(ValueError, match="not in the cluster"):
        tf.train.Server(CLUSTER, job_name="worker", task_index=5, start=False)
    with pytest.raises(tf.errors.NotFoundError, match="protocol"):
        tf.train.Server(CLUSTER, job_name="ps", task_index=0, protocol="mpi", start=False)
    config = tf.ConfigProto(device_count={"CPU": 2})
    sd = _make_server_def(sd, "local", 0, None, config)
    assert sd.default_session_config.device_count["CPU"] == 2


def test_target_and_cluster_identity():
    server = tf.train.Server(CLUSTER, job_name="worker", task_index=1, start=False)
    assert server.target == "grpc://localhost:2224"
    assert server.server_def.task_index == 1
    info = cluster_lib.ClusterInfo(CLUSTER)
    assert info.is_local() and info.head_port() == 2222
    assert info.task_for_target("grpc://127.0.0.1:2223") == "/job:worker/replica:0/task:0"
    other = cluster_lib.ClusterInfo({"ps": ["localhost:2222"], "worker": ["localhost:9"]})
    assert other.cluster_id != info.cluster_id
    with pytest.raises(tf.errors.PermissionDeniedError, match="not a task of cluster"):
        info.check(other.token, "RegisterGraph")
    info.check(info.token, "RegisterGraph")


def test_cluster_placer_places_by_job_task_device():
    own = task_devices("/job:worker/replica:0/task:1")
    remote = (task_devices("/job:ps/replica:0/task:0", remote=True) +
              task_devices("/job:worker/replica:0/task:0", remote=True))
    placer = ClusterPlacer(own + remote)
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps"):
            v = tf.Variable(1.0, name="v")
        with tf.device("/job:worker/task:0/cpu:0"):
            a = v + 1.0
        b = v * 2.0
        with tf.device("/cpu:0"):
            c = b + 1.0
    placement = placer.place_graph(g)
    assert placement[v.op].name == "/job:ps/replica:0/task:0/device:CPU:0"
    assert placement[v.initializer].name == "/job:ps/replica:0/task:0/device:CPU:0"
    assert placement[a.op].name == "/job:worker/replica:0/task:0/device:CPU:0"
    assert placement[b.op] is own[0]  # no device: the session's own task
    assert placement[c.op] is own[0]
    with g.as_default():
        with tf.device("/job:ps/task:3"):
            tf.constant(1.0, name="nowhere")
    with pytest.raises(tf.errors.InvalidArgumentError, match="nowhere"):
        placer.place_graph(g)


def test_unreachable_cluster_names_the_address():
    pytest.importorskip("ray", reason="needs the optional extra flowloom[distributed] (ray)")
    code = ("import flowloom as tf\n"
            "try:\n"
            "    tf.train.Server({'ps': ['localhost:2222'], 'worker': ['localhost:2223']}, 'ps', 0)\n"
            "except tf.errors.UnavailableError as e:\n"
            "    print('UNAVAILABLE', e.message)\n")
    env = dict(os.environ, RAY_ADDRESS="127.0.0.1:9", FLOWLOOM_DISTRIBUTED_CONNECT_TIMEOUT="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=60)
    assert "UNAVAILABLE" in out.stdout, out.stdout + out.stderr
    assert "127.0.0.1:9" in out.stdout


def test_server_default_session_config_merges_into_sessions():
    from flowloom.distributed.session_runtime import with_server_defaults

    defaults = tf.ConfigProto(operation_timeout_in_ms=1000, log_device_placement=True)
    merged = with_server_defaults(None, defaults)  # a session without a config: the server's
    assert merged.operation_timeout_in_ms == 1000 and merged.log_device_placement
    own = tf.ConfigProto(allow_soft_placement=True, operation_timeout_in_ms=5)
    merged = with_server_defaults(own, defaults)  # as TF's master: the defaults merged in
    assert merged.allow_soft_placement and merged.operation_timeout_in_ms == 1000
    assert own.operation_timeout_in_ms == 5  # the caller's proto is left alone
    assert with_server_defaults(own, tf.ConfigProto()) is own
