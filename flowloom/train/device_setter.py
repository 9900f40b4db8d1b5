"""`tf.train.replica_device_setter`: the device function of between-graph replication.

Variables (and the other ops of `STANDARD_PS_OPS`) go to the ps job, one task per op chosen by
a strategy (round-robin unless told otherwise); every other op goes to the worker device. The
device that inner `tf.device` scopes already gave an op wins field by field (merging).
"""

import logging

from flowloom.framework.device import DeviceSpec

_log = logging.getLogger("flowloom")

# The op types placed on the ps job by default (TF 1.15's list).
STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable",
                   "MutableHashTableV2", "MutableHashTableOfTensors",
                   "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp",
                   "BoostedTreesEnsembleResourceHandleOp",
                   "BoostedTreesQuantileStreamResourceHandleOp",
                   "ResourceConditionalAccumulator")


class _RoundRobinStrategy:
    """Returns the ps tasks 0, 1, ..., num_tasks - 1, 0, ... in turn."""

    def __init__(self, num_tasks):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op):
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


class _ReplicaDeviceChooser:
    """Chooses the device of each op created under `replica_device_setter`."""

    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op):
        """Returns the device string of `op` (an Operation or NodeDef)."""
        if not self._merge_devices and op.device:
            return op.device
        current = DeviceSpec.from_string(op.device or "")
        op_type = op.type if hasattr(op, "type") else op.op  # an Operation or a NodeDef
        if self._ps_tasks and self._ps_device and op_type in self._ps_ops:
            ps_device = DeviceSpec.from_string(self._ps_device)
            # The strategy picks the task only when the ps job survives the merge with the
            # device the op already has.
            if ps_device.job and (not current.job or current.job == ps_device.job):
                ps_device = ps_device.replace(task=self._ps_strategy(op))
            return ps_device.make_merged_spec(current).to_string()
        worker_device = DeviceSpec.from_string(self._worker_device or "")
        return worker_device.make_merged_spec(current).to_string()


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker",
                          merge_devices=True, cluster=None, ps_ops=None, ps_strategy=None):
    """Returns a device function to use when building a graph for replicas.

    Under `with tf.device(replica_device_setter(...))`, ops whose type is in `ps_ops`
    (variables by default) are placed on `ps_device` with the task chosen by `ps_strategy`,
    all other ops on `worker_device`. Devices set by inner `tf.device` scopes are kept: the
    setter only fills the fields they leave unset.

    ```python
    cluster_spec = {"ps": ["ps0:2222", "ps1:2222"],
                    "worker": ["worker0:2222", "worker1:2222", "worker2:2222"]}
    with tf.device(tf.train.replica_device_setter(cluster=cluster_spec)):
      v1 = tf.Variable(...)  # assigned to /job:ps/task:0
      v2 = tf.Variable(...)  # assigned to /job:ps/task:1
      v3 = tf.Variable(...)  # assigned to /job:ps/task:0
    ```

    Args:
      ps_tasks: number of tasks in the ps job; ignored when `cluster` is given.
      ps_device: device of the ps job; empty: no ps job is used.
      worker_device: device of the worker job; empty: no worker job is used.
      merge_devices: if True, merge the device fields set by inner scopes; if False, an op
        that already has a device keeps it unchanged.
      cluster: a `ClusterSpec` or a dictionary describing the cluster; the number of ps
        tasks is that of the job named in `ps_device`.
      ps_ops: op types to place on the ps job (default `STANDARD_PS_OPS`).
      ps_strategy: a callable `op -> task index` (default: round-robin), such as
        `tf.contrib.training.GreedyLoadBalancingStrategy`.

    Returns:
      A function to pass to `tf.device()`, or None when there are no ps tasks.

    Raises:
      TypeError: `ps_strategy` is not callable.
    """
    if cluster is not None:
        from flowloom.distributed.cluster_spec import ClusterSpec

        if isinstance(cluster, ClusterSpec):
            cluster_spec = cluster.as_dict()
        else:
            cluster_spec = ClusterSpec(cluster).as_dict()
        ps_job_name = DeviceSpec.from_string(ps_device).job
        if ps_job_name not in cluster_spec or cluster_spec[ps_job_name] is None:
            return None
        ps_tasks = len(cluster_spec[ps_job_name])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        _log.warning("DEPRECATION: It is recommended to set merge_devices=true in "
                     "replica_device_setter")
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    chooser = _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops,
                                    ps_strategy)
    return chooser.device_function
