"""The graph behind tests/data/partitioned_ckpt/: partitioned variables saved by a Saver.

`build(tf)` runs unchanged on TF 1.15 (the recorder) and on flowloom (the tests), so both
sides write a checkpoint of the same variables with the same values.

Variables (values are `np.arange` of the full shape, so any slice can be checked):
  emb   float32 [10, 3]  fixed_size_partitioner(3) on axis 0: parts of 4, 3, 3 rows
  wide  int64   [4, 5]   fixed_size_partitioner(2, axis=1): parts of 3 and 2 columns
  tok   string  [5]      fixed_size_partitioner(2): parts of 3 and 2
  bias  float32 [3]      not partitioned
  res   float64 [6, 2]   a resource variable in 3 parts
  big   int8    [16500]  2 parts: an offset (8250) whose slice key takes a 3-byte number
"""

import numpy as np

VARIABLES = {
    "emb": ("float32", [10, 3]),
    "wide": ("int64", [4, 5]),
    "tok": ("string", [5]),
    "bias": ("float32", [3]),
    "res": ("float64", [6, 2]),
    "big": ("int8", [16500]),
}


def full_value(name):
    """The full value of variable `name` (what every checkpoint of the program holds)."""
    dtype, shape = VARIABLES[name]
    count = int(np.prod(shape))
    if dtype == "string":
        return np.array([("t%d" % i).encode() for i in range(count)], dtype=object).reshape(
            shape)
    return ((np.arange(count) + 1) % 100).astype(dtype).reshape(shape)


def build(tf, parts=None):
    """Builds the variables; returns {name: variable}. `parts` overrides the number of pieces
    of each partitioned variable (restoring into a different partitioning)."""
    parts = parts or {}
    out = {}
    with tf.variable_scope("model"):
        out["emb"] = tf.get_variable(
            "emb", initializer=tf.constant(full_value("emb")),
            partitioner=tf.fixed_size_partitioner(parts.get("emb", 3)))
        out["wide"] = tf.get_variable(
            "wide", initializer=tf.constant(full_value("wide")),
            partitioner=tf.fixed_size_partitioner(parts.get("wide", 2), axis=1))
        out["tok"] = tf.get_variable(
            "tok", initializer=tf.constant(full_value("tok")),
            partitioner=tf.fixed_size_partitioner(parts.get("tok", 2)))
        out["bias"] = tf.get_variable("bias", initializer=tf.constant(full_value("bias")))
        out["res"] = tf.get_variable(
            "res", initializer=tf.constant(full_value("res")), use_resource=True,
            partitioner=tf.fixed_size_partitioner(parts.get("res", 3)))
        out["big"] = tf.get_variable(
            "big", initializer=tf.constant(full_value("big")),
            partitioner=tf.fixed_size_partitioner(parts.get("big", 2)))
    return out
