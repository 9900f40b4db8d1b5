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
