"""A partition sent to another task keeps the ops the rewrites made (no Ray needed: the
description is rebuilt on an imported copy of the graph, as a task does)."""

import numpy as np

import flowloom as tf
from flowloom.distributed import remote_plan
from flowloom.framework import importer
from flowloom.runtime import parallel


def _partitions_of(sess, fetch):
    sess.run(fetch)
    (plan,) = sess._plan_cache.values()
    return plan.get_partitioned()


def test_fused_ops_are_rebuilt_as_fused_not_as_the_graph_op_of_their_name():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:1"):
            x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
            y = tf.nn.relu(x * 2.0 + 1.0, name="y")  # one _FusedElementwise named "y"
        with tf.device("/cpu:0"):
            z = tf.reduce_sum(y, name="z")
    sess = tf.Session(graph=g, config=tf.ConfigProto(device_count={"CPU": 2}))
    pplan = _partitions_of(sess, z)
    (part,) = [p for p in pplan.partitions if p.device.name.endswith("CPU:1")]
    descs = remote_plan.describe_partition(part)
    fused = [d for d in descs[2] if d[0] == "op" and d[7] is not None]
    assert fused and fused[0][7][0] == "_FusedElementwise", descs

    copy = tf.Graph()
    with copy.as_default():
        importer.import_graph_def(g.as_graph_def(), name="")
    devices = {part.device.name: part.device}
    rebuilt = remote_plan.rebuild([descs], pplan.num_slots, copy, sess, devices)
    (step,) = [s for s in rebuilt.partitions[0].steps
               if s.kind == "op" and s.op._name == "y"]
    assert step.op._type == "_FusedElementwise" and len(step.ins) == len(step.op._inputs)
    vals = [None] * pplan.num_slots
    ctx = parallel.RunContext(vals, None, parallel.threading.Semaphore(4), None)
    for s in rebuilt.partitions[0].steps:
        if s.kind == "op":
            r = ctx.execute_op(s, [vals[i] for i in s.ins])
            if s.nout == 1:
                vals[s.out] = r
    np.testing.assert_array_equal(vals[step.out],
                                  np.maximum(np.arange(12.0).reshape(3, 4) * 2 + 1, 0))
