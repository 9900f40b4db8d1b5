"""Records what TensorFlow does for the cases of tests/distributed_api (ClusterSpec;
replica_device_setter placements).

    TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF1_PYTHON tests/data/record_distributed_api.py
    TF_USE_LEGACY_KERAS=1 TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF_PYTHON \
        tests/data/record_distributed_api.py

Under TF 1.15 it writes tests/data/distributed_api_tf1.json; under TF 2.x (compat.v1, whose
graphs are built op for op as flowloom builds them) distributed_api_tf2.json with the
placements of the graphs that need no tf.contrib.

Writes tests/data/distributed_api_tf1.json: {"cluster_spec": [[label, outcome, text], ...],
"none_setters": [...], "accumulators": [...],
"placements": {graph name: [[op name, op type, op.device], ...]}}.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from tests.distributed_api import accumulator_cases, cluster_spec_cases  # noqa: E402
from tests.distributed_api import placement_graphs  # noqa: E402


def main():
    import tensorflow

    if tensorflow.__version__.startswith("2."):
        tf = tensorflow.compat.v1
        tf.disable_v2_behavior()
        record = {"tensorflow": tensorflow.__version__, "placements": {
            name: placement_graphs.placements(placement_graphs.GRAPHS[name](tf))
            for name in placement_graphs.TF2_GRAPHS}}
        _write(record, "distributed_api_tf2.json")
        return
    import tensorflow as tf
    from tensorflow.core.protobuf import cluster_pb2

    record = {"tensorflow": tf.__version__,
              "cluster_spec": cluster_spec_cases.run(tf, cluster_pb2),
              "none_setters": placement_graphs.none_setters(tf),
              "accumulators": accumulator_cases.run(tf),
              "device_specs": placement_graphs.device_specs(tf),
              "placements": {name: placement_graphs.placements(build(tf))
                             for name, build in placement_graphs.GRAPHS.items()}}
    _write(record, "distributed_api_tf1.json")


def _write(record, name):
    path = os.path.join(HERE, name)
    with open(path, "w") as f:
        json.dump(record, f, indent=0, sort_keys=True)
        f.write("\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
