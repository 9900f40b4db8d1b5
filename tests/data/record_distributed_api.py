"""Records what TensorFlow 1.15 does for the cases of tests/distributed_api (ClusterSpec;
replica_device_setter placements).

    FLOWLOOM_TF1_PYTHON=/path/to/tf1.15/python
    TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF1_PYTHON tests/data/record_distributed_api.py

Writes tests/data/distributed_api_tf1.json: {"cluster_spec": [[label, outcome, text], ...],
"placements": {graph name: [[op name, op type, op.device], ...]}}.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from tests.distributed_api import cluster_spec_cases  # noqa: E402


def main():
    import tensorflow as tf
    from tensorflow.core.protobuf import cluster_pb2

    record = {"tensorflow": tf.__version__,
              "cluster_spec": cluster_spec_cases.run(tf, cluster_pb2)}
    path = os.path.join(HERE, "distributed_api_tf1.json")
    with open(path, "w") as f:
        json.dump(record, f, indent=0, sort_keys=True)
        f.write("\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
