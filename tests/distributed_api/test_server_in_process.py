"""In-process servers and clusters against TF 1.15's recorded behaviour
(tests/data/server_lib_tf1.json, made by tests/data/record_server_lib.py): several
`create_local_server()`s in one process, resources shared by a server's sessions (and isolated
with isolate_session_state), Session.reset of containers, a session's close cancelling its
blocked step, and `tf.Session(target)` of a local cluster's task. No Ray is needed."""

import json
import os

import flowloom as tf
from flowloom.test import create_local_cluster
from tests.distributed_api import server_cases

RECORD = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "server_lib_tf1.json")


def _cluster(tf_module, num_workers, num_ps):
    return create_local_cluster(num_workers, num_ps)


def test_cases_match_tf1():
    with open(RECORD) as f:
        expected = json.load(f)["cases"]
    got = server_cases.run(tf, _cluster)
    assert [c[0] for c in got] == [c[0] for c in expected]
    assert [g for g, e in zip(got, expected) if g != e] == []


def test_one_task_servers_are_served_in_process():
    server = tf.train.Server.create_local_server()
    assert server._actor is None  # nobody else can reach a one-task cluster: no Ray actor
    other = tf.train.Server.create_local_server(start=False)
    assert other.target != server.target
    other.start()
    other.start()  # idempotent
    assert tf.train.Server.create_local_server().target not in (server.target, other.target)


def test_local_cluster_tasks_have_devices_of_their_own_names():
    # As TF's in-process servers: each task's devices carry its job and task (what step
    # stats report), with the CPU count of its config.
    workers, _ = create_local_cluster(2, 1, worker_config=tf.ConfigProto(
        device_count={"CPU": 2}))
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(3.0)
        with tf.device("/job:worker/task:1/cpu:1"):
            y = v * 2.0
        sess = tf.Session(workers[0].target)
        names = [d.name for d in sess.list_devices()]
        assert names[0] == "/job:worker/replica:0/task:0/device:CPU:0"
        assert "/job:worker/replica:0/task:1/device:CPU:1" in names
        assert "/job:ps/replica:0/task:0/device:CPU:0" in names
        sess.run(v.initializer)
        meta = tf.RunMetadata()
        assert sess.run(y, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                        run_metadata=meta) == 6.0
        ran = {n.node_name: d.device for d in meta.step_stats.dev_stats for n in d.node_stats}
        assert ran[y.op.name] == "/job:worker/replica:0/task:1/device:CPU:1"
        assert ran[v.op.name] == "/job:ps/replica:0/task:0/device:CPU:0"


def test_resource_consumers_run_where_their_resource_lives_as_in_tf1():
    # A TensorArray is placed from its first write; ops using a resource or writing through a
    # reference follow it, their own device ignored (TF's placer).
    with open(RECORD) as f:
        expected = json.load(f)["resource_placement"]
    got = server_cases.resource_placement(tf)
    assert got["graph"] == expected["graph"]
    assert got["ran"] == expected["ran"]
