"""A cluster emulated in one process, for tests of multi-task training programs.

Each task of the cluster spec has its own resource container (its variables, queues,
accumulators). A session created for a task (`cluster.session("worker", 1)`, or
`tf.Session(cluster.target("worker", 1))` through SessionManager, MonitoredTrainingSession
and Supervisor) runs every op in this process, but an op's resources live in the container of
the task the op is placed on: `/job:ps/task:0` variables are shared by all sessions, while a
variable on `/job:worker/task:1` exists only for the sessions of that task — as with real
servers, where a ps task's variables are seen by every worker and a worker's are its own.

Ops without a job run on the session's own task. Only the job and task of a device are
emulated: every task's ops run on this process's devices.

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

from flowloom.distributed.cluster_spec import ClusterSpec
from flowloom.framework import errors
from flowloom.framework.device import DeviceSpec
from flowloom.runtime import blocking, placer
from flowloom.runtime.session import Session, register_target_hook

SCHEME = "inproc://"
_clusters = {}
_lock = threading.Lock()
_ids = itertools.count()


class InProcessCluster:
    """The tasks of `cluster` (a ClusterSpec or its dictionary), emulated in this process.

    Args:
      cluster: the cluster spec; every task gets an empty resource container.
    """

    def __init__(self, cluster):
        self.spec = ClusterSpec(cluster)
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


class _TaskPlacer(placer.Placer):
    """Places on this process's devices, ignoring job and task, and remembers the task of
    each op (its colocation group's device; the session's own task when it has none)."""

    def __init__(self, cluster, own, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cluster = cluster
        self.own = own
        self.task_of = {}

    def _place_group(self, members):
        job, task = None, None
        for op in members:
            if op._device:
                spec = DeviceSpec.from_string(op._device)
                job = spec.job if job is None else job
                task = spec.task if task is None else task
        if job is None:
            job, task = self.own
        key = (job, 0 if task is None else task)
        if key not in self.cluster._containers:
            op = next(op for op in members if op._device)
            raise errors.InvalidArgumentError(
                None, op, f"Cannot assign a device for operation {op._name}: {{{{node "
                f"{op._name}}}}} was explicitly assigned to {op._device} but the cluster has "
                f"no task /job:{key[0]}/task:{key[1]} ({self.cluster.spec})")
        for op in members:
            self.task_of[op] = key
        return super()._place_group(members)

    def _matching(self, spec):
        return super()._matching(spec.replace(job=None, replica=None, task=None))


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
        old = session._placer
        session._placer = _TaskPlacer(cluster, self.task, session._devices,
                                      allow_soft_placement=old.allow_soft_placement,
                                      log_device_placement=old.log_device_placement)
        cluster._sessions.add(session)

    def resources_for(self, op):
        return self.cluster._containers[self.session._placer.task_of.get(op, self.task)]

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
      protocol, worker_config, ps_config: accepted for TF's signature; unused in-process.

    Returns:
      (workers, ps_servers): lists of `InProcessTask`, whose `target` a session (or a
      MonitoredTrainingSession's `master`) takes.
    """
    del protocol, worker_config, ps_config
    spec = {"worker": ["localhost:%d" % (20000 + i) for i in range(num_workers)]}
    if num_ps:
        spec["ps"] = ["localhost:%d" % (21000 + i) for i in range(num_ps)]
    cluster = InProcessCluster(spec)
    workers = [InProcessTask(cluster, "worker", i) for i in range(num_workers)]
    ps_servers = [InProcessTask(cluster, "ps", i) for i in range(num_ps)]
    return workers, ps_servers


def _reset(target, containers, config):
    from flowloom.distributed import reset

    return reset.reset_inprocess_target(target, containers, config)


register_target_hook(_InProcessRuntime, "inproc", _reset)
