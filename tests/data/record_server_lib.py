"""Records what TF 1.15 does for tests/distributed_api/server_cases.py (in-process servers,
Session.reset, close cancelling a blocked step, a local cluster of several tasks).

    TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF1_PYTHON tests/data/record_server_lib.py

Writes tests/data/server_lib_tf1.json: {"tensorflow": version, "cases": [[label, outcome]],
"resource_placement": {"ran": {node: "CPU:n"}, "graph": [[op, device, colocation groups]]}}.
"""

import json
import os
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from tests.distributed_api import server_cases  # noqa: E402


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tf_cluster(tf, num_workers, num_ps):
    """TF's in-process local cluster (test_util.create_local_cluster without portpicker)."""
    spec = {"worker": ["localhost:%d" % _free_port() for _ in range(num_workers)],
            "ps": ["localhost:%d" % _free_port() for _ in range(num_ps)]}
    cluster = tf.train.ClusterSpec(spec)
    workers = [tf.train.Server(cluster, job_name="worker", task_index=i)
               for i in range(num_workers)]
    ps = [tf.train.Server(cluster, job_name="ps", task_index=i) for i in range(num_ps)]
    return workers, ps


def main():
    import tensorflow as tf

    record = {"tensorflow": tf.__version__, "cases": server_cases.run(tf, tf_cluster),
              "resource_placement": server_cases.resource_placement(tf)}
    path = os.path.join(HERE, "server_lib_tf1.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=0)
        f.write("\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
