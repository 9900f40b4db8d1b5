"""What every process of one cluster agrees on: task names, the cluster id, its token.

A cluster is identified by its `ClusterDef` (the same bytes in every task's process, built
from the same `--ps_hosts`/`--worker_hosts`) and, when set, the secret in
`FLOWLOOM_CLUSTER_SECRET` (the launcher makes one per run). From them come the Ray namespace
its tasks meet in and the token a task checks on every graph and step it is sent: a process
of another cluster, or one without the secret, is refused.
"""

import hashlib
import hmac
import json
import os

from flowloom.distributed.cluster_spec import ClusterSpec
from flowloom.framework import errors

SECRET_ENV = "FLOWLOOM_CLUSTER_SECRET"
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0")


def task_name(job, index):
    """`/job:<job>/replica:0/task:<index>`: the prefix of the task's device names."""
    return f"/job:{job}/replica:0/task:{int(index)}"


def task_of_device(device_name):
    """The task prefix of a full device name (`/job:ps/replica:0/task:0/device:CPU:0`)."""
    return device_name.rsplit("/device:", 1)[0]


class ClusterInfo:
    """One cluster as a server or session of it sees it.

    Attributes:
      spec: the `tf.train.ClusterSpec`.
      tasks: {task name: address} for every task of every job.
      cluster_id: a short hex digest naming the cluster (its Ray namespace).
      token: what a task accepts graphs and steps with (an HMAC of the cluster id).
    """

    def __init__(self, cluster):
        self.spec = cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)
        self.tasks = {}
        for job in self.spec.jobs:
            for index in self.spec.task_indices(job):
                self.tasks[task_name(job, index)] = self.spec.task_address(job, index)
        canonical = json.dumps({job: {str(i): self.spec.task_address(job, i)
                                      for i in self.spec.task_indices(job)}
                                for job in sorted(self.spec.jobs)}, sort_keys=True)
        self.cluster_id = hashlib.sha256(canonical.encode()).hexdigest()[:16]
        secret = os.environ.get(SECRET_ENV, "")
        self.token = hmac.new(secret.encode(), self.cluster_id.encode(),
                              hashlib.sha256).hexdigest()

    @property
    def namespace(self):
        return f"flowloom-{self.cluster_id}"

    def is_local(self):
        """True when every task's address is on this machine (localhost)."""
        return all(_host(addr) in _LOCAL_HOSTS for addr in self.tasks.values())

    def head_port(self):
        """The port a cluster started on demand gives Ray's head (its first task's port)."""
        first = sorted(self.tasks)[0]
        return _port(self.tasks[first])

    def task_for_target(self, target):
        """The task whose address `target` (`grpc://host:port`) names, or None."""
        address = target.split("://", 1)[-1]
        for name, addr in self.tasks.items():
            if addr == address or (_port(addr) == _port(address) and
                                   _host(addr) in _LOCAL_HOSTS and
                                   _host(address) in _LOCAL_HOSTS):
                return name
        return None

    def check(self, token, what):
        """Raises PermissionDeniedError unless `token` is this cluster's."""
        if not hmac.compare_digest(str(token), self.token):
            raise errors.PermissionDeniedError(
                None, None, f"{what} refused: the caller is not a task of cluster "
                f"{self.cluster_id} (cluster spec or {SECRET_ENV} differ)")


def _host(address):
    return address.rsplit(":", 1)[0] if ":" in address else address


def _port(address):
    try:
        return int(address.rsplit(":", 1)[1])
    except (IndexError, ValueError):
        raise errors.InvalidArgumentError(
            None, None, f"Task address {address!r} has no port (expected host:port)") from None
