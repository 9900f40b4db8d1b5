"""A TF1 program saved in the V1 checkpoint format (Saver(write_version=SaverDef.V1)), run
by TF 1.15 (tests/data/record_v1_ckpt.py) and by flowloom (tests/train/test_v1_checkpoints.py)."""

import numpy as np

VALUES = {
    "v0": np.array([[1, 2, 3], [4, 5, 6]], np.float32),
    "v1": np.array([[[1], [2]], [[3], [4]], [[5], [6]]], np.float32),
    "count": np.array(7, np.int64),
    "words": np.array([b"ab", b"", b"\x00\xffz"], object),
    "flags": np.array([True, False]),
    "half": np.array([1.5, -2.0], np.float16),
    "small": np.array([[1, -2], [3, 4]], np.int8),
    "z": np.array([1 + 2j, -3j], np.complex64),
    "wide": np.array([2.5, -1e300], np.float64),
}


def build(tf, values=None):
    """Variables of many dtypes and a partitioned one; returns (variables, saver)."""
    values = VALUES if values is None else values
    out = {name: tf.Variable(value, name=name) for name, value in values.items()}
    with tf.variable_scope("model"):
        out["part"] = tf.get_variable(
            "part", initializer=tf.constant(np.arange(8, dtype=np.float32).reshape(4, 2)),
            partitioner=tf.fixed_size_partitioner(2))
    saver = tf.train.Saver(write_version=tf.train.SaverDef.V1)
    return out, saver
