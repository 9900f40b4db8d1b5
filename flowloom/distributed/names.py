"""The names flowloom/distributed/ adds to `tf.train` (flowloom/train/__init__.py imports them
with one line); one row per name: the name and the module that defines it."""

import importlib

TRAIN_NAMES = [
    ("ClusterSpec", "flowloom.distributed.cluster_spec"),
    ("ClusterDef", "flowloom.proto.cluster_pb2"),
    ("JobDef", "flowloom.proto.cluster_pb2"),
    ("Server", "flowloom.distributed.server"),
    ("ServerDef", "flowloom.distributed.server"),
]


def train_names():
    """{name: object} of the distributed names of `tf.train`."""
    return {name: getattr(importlib.import_module(module), name)
            for name, module in TRAIN_NAMES}
