"""A cluster emulated in one process, for tests of multi-task training programs.

Each task of the cluster spec has its own resource container (its variables, queues,
accumulators). A session created for a task (`cluster.session("worker", 1)`, or
`tf.Session(cluster.target("worker", 1))` through SessionManager, MonitoredTrainingSession
and Supervisor) runs every op in this process, but an op's resources live in the container of
the task the op is placed on: `/job:ps/task:0` variables are shared by all sessions, while a
variable on `/job:worker/task:1` exists only for the sessions of that task — as with real
servers, where a ps task's variables are seen by every worker and a worker's are its own.

Ops without a job run on the session's own task. Each task has devices of its own name
(`/job:worker/replica:0/task:1/device:CPU:0`: what placement, step stats and
`log_device_placement` show), all of them in this process; their CPU count is the task's
config's `device_count` (create_local_cluster's worker_config / ps_config), else the
session's.

```python
cluster = InProcessCluster({"ps": ["ps0:2222"], "worker": ["w0:2222", "w1:2222"]})
with tf.device(tf.train.replica_device_setter(cluster=cluster.spec)):
  ...
chief = tf.train.MonitoredTrainingSession(master=cluster.target("worker", 0), is_chief=True)
```
"""

import itertools
import threading
import weakref

from flowloom.distributed.cluster import task_name
from flowloom.distributed.cluster_spec import ClusterSpec
from flowloom.distributed.session_runtime import ClusterPlacer
from flowloom.distributed.task_service import task_devices
from flowloom.framework import errors
from flowloom.framework.device import DeviceSpec
from flowloom.runtime import blocking
from flowloom.runtime.session import Session, register_target_hook

SCHEME = "inproc://"
_clusters = {}
_lock = threading.Lock()
_ids = itertools.count()


class InProcessCluster:
    """The tasks of `cluster` (a ClusterSpec or its dictionary), emulated in this process.

    Args:
      cluster: the cluster spec; every task gets an empty resource container.
      configs: optional {job name: ConfigProto} of the tasks of a job (their device_count).
    """

    def __init__(self, cluster, configs=None):
        self.spec = ClusterSpec(cluster)
        self._configs = dict(configs or {})
        self._containers = {(job, task): {} for job in self.spec.jobs
                            for task in self.spec.task_indices(job)}
        self._sessions = weakref.WeakSet()  # the open sessions of its tasks (Session.reset)
        with _lock:
            self._id = next(_ids)
            _clusters[self._id] = self

    def target(self, job_name, task_index):
        """The session target of task `task_index` of `job_name`: `inproc://<id>/job:J/task:T`.

        Raises:
          ValueError: no such task in the cluster.
        """
        self.spec.task_address(job_name, task_index)
        return f"{SCHEME}{self._id}/job:{job_name}/task:{task_index}"

    def session(self, job_name, task_index, graph=None, config=None):
        """A `tf.Session` of task `task_index` of `job_name`."""
        return InProcessSession(self.target(job_name, task_index), graph=graph, config=config)

    def container(self, job_name, task_index):
        """The resource dict of one task (what its variables hold), for inspection."""
        return self._containers[(job_name, task_index)]

    def reset_task(self, job_name, task_index):
        """Drops a task's resources, as a restarted task comes back empty."""
        self._containers[(job_name, task_index)].clear()


def parse_target(target):
    """(cluster, job, task) of an `inproc://` target, or None for any other target.

    Raises:
      InvalidArgumentError: an `inproc://` target of no cluster of this process.
    """
    if not isinstance(target, str) or not target.startswith(SCHEME):
        return None
    try:
        cluster_id, rest = target[len(SCHEME):].split("/", 1)
        spec = DeviceSpec.from_string("/" + rest)
        cluster = _clusters[int(cluster_id)]
    except (ValueError, KeyError):
        raise errors.InvalidArgumentError(
            None, None, f"No in-process cluster for target {target!r}") from None
    return cluster, spec.job, spec.task


class _TaskPlacer(ClusterPlacer):
    """Places by job, task and device over the cluster's tasks' devices (the session's own
    task's first: ops without a device go there)."""

    def _place_group(self, members):
        try:
            return super()._place_group(members)
        except errors.InvalidArgumentError as e:
            op = e.op
            if op is None or not op._device:
                raise
            spec = DeviceSpec.from_string(op._device)
            if spec.job is None or any(d.job == spec.job and spec.task in (None, d.task_index)
                                       for d in self.devices):
                raise
            raise errors.InvalidArgumentError(
                None, op, f"{e.message} (the in-process cluster has no task "
                f"/job:{spec.job}/task:{spec.task or 0}: {self.cluster_spec})") from None


class _InProcessRuntime:
    """What a session of an in-process cluster task (`tf.Session(cluster.target(job, task))`)
    runs with (runtime/session_hooks.py): the task placer, and each op's resources in the
    container of its task. Closing the session cancels its steps' waits."""

    def __init__(self, session, target, config):
        cluster, job, task = parse_target(target)
        self.session = session
        self.cluster = cluster
        self.task = (job, task)
        self.cancellation = blocking.Cancellation()
        own, others = [], []
        for key in cluster._containers:
            devices = task_devices(task_name(*key), cluster._configs.get(key[0]) or config)
            (own if key == self.task else others).extend(devices)
        session._devices = own + others
        old = session._placer
        session._placer = _TaskPlacer(session._devices,
                                      allow_soft_placement=old.allow_soft_placement,
                                      log_device_placement=old.log_device_placement)
        session._placer.cluster_spec = cluster.spec
        cluster._sessions.add(session)

    def resources_for(self, op):
        device = self.session._placer.placement.get(op)
        key = (device.job, device.task_index) if device is not None else self.task
        return self.cluster._containers[key]

    def run_plan(self, plan, feed_vals, options, run_metadata):
        with blocking.cancellable(self.cancellation):
            return self.session._run_local(plan, feed_vals, options, run_metadata)

    def close(self):
        """Its waiting steps end (the cluster's resources stay)."""
        self.cancellation.cancel("Step was cancelled by an explicit call to `Session::Close()`.")
        self.cluster._sessions.discard(self.session)
        for container in self.cluster._containers.values():
            for resource in list(container.values()):
                cancel = getattr(resource, "cancel_session", None)
                if cancel is not None:
                    cancel(self.session)


def InProcessSession(target, graph=None, config=None):  # noqa: N802 - kept for its callers
    """`tf.Session(target)` of one task of an `InProcessCluster` (see the module docstring).

    Args:
      target: `cluster.target(job, task)`.
      graph, config: as for `tf.Session`.
    """
    parse_target(target)
    return Session(target, graph=graph, config=config)


def session_for_target(target, graph=None, config=None):
    """A session of an in-process cluster task for an `inproc://` target, else None."""
    if parse_target(target) is None:
        return None
    return Session(target, graph=graph, config=config)


def task_of_target(target):
    """(job, task) of an `inproc://` target, else None."""
    try:
        parsed = parse_target(target)
    except errors.InvalidArgumentError:
        return None
    return None if parsed is None else parsed[1:]


class InProcessTask:
    """One task of an `InProcessCluster` in the place of its `tf.train.Server`: sessions
    created with `target` run as that task. It is always running: `start()` does nothing."""

    def __init__(self, cluster, job_name, task_index):
        self._cluster = cluster
        self._job = job_name
        self._task = task_index

    @property
    def target(self):
        """The session target of this task."""
        return self._cluster.target(self._job, self._task)

    def start(self):
        """Does nothing: an in-process task serves as soon as it exists."""

    def join(self):
        raise NotImplementedError(
            "join() of an in-process task (flowloom.distributed.inprocess): it has no server "
            "thread to wait for; use tf.train.Server for a task of its own")


def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None,
                         ps_config=None):
    """An in-process cluster of `num_workers` workers and `num_ps` ps tasks, for tests (the
    counterpart of TF's `test_util.create_local_cluster`, which starts in-process servers).

    Args:
      num_workers: number of worker tasks.
      num_ps: number of ps tasks.
      protocol: accepted for TF's signature (unused in-process).
      worker_config, ps_config: `ConfigProto`s of the worker and ps tasks (their
        device_count gives the tasks' CPUs).

    Returns:
      (workers, ps_servers): lists of `InProcessTask`, whose `target` a session (or a
      MonitoredTrainingSession's `master`) takes.
    """
    del protocol
    spec = {"worker": ["localhost:%d" % (20000 + i) for i in range(num_workers)]}
    if num_ps:
        spec["ps"] = ["localhost:%d" % (21000 + i) for i in range(num_ps)]
    cluster = InProcessCluster(spec, {"worker": worker_config, "ps": ps_config})
    workers = [InProcessTask(cluster, "worker", i) for i in range(num_workers)]
    ps_servers = [InProcessTask(cluster, "ps", i) for i in range(num_ps)]
    return workers, ps_servers


def _reset(target, containers, config):
    from flowloom.distributed import reset

    return reset.reset_inprocess_target(target, containers, config)


register_target_hook(_InProcessRuntime, "inproc", _reset)
