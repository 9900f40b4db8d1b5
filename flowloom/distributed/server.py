"""`tf.train.Server` and `tf.train.ServerDef`: one task of a cluster, served through Ray."""

import os
import socket
import sys
import threading
import time
import weakref

from flowloom.distributed import ray_backend
from flowloom.distributed.cluster import ClusterInfo, task_name
from flowloom.distributed.cluster_spec import ClusterSpec
from flowloom.framework import errors
from flowloom.proto.tensorflow_server_pb2 import ServerDef

from flowloom.runtime import session as _session_lib

_PROTOCOLS = ("grpc",)
_servers = weakref.WeakSet()
_servers_lock = threading.Lock()
_serving = weakref.WeakValueDictionary()  # (host, port) -> the started Server of this process


def _make_server_def(server_or_cluster_def, job_name, task_index, protocol, config):
    """TF's server_lib._make_server_def: a ServerDef from a ServerDef or a cluster."""
    if isinstance(server_or_cluster_def, ServerDef):
        server_def = ServerDef()
        server_def.CopyFrom(server_or_cluster_def)
        if job_name is not None:
            server_def.job_name = job_name
        if task_index is not None:
            server_def.task_index = task_index
        if protocol is not None:
            server_def.protocol = protocol
        if config is not None:
            server_def.default_session_config.MergeFrom(config)
        return server_def
    try:
        cluster_spec = ClusterSpec(server_or_cluster_def)
    except TypeError:
        raise TypeError("Could not convert `server_or_cluster_def` to a "
                        "`tf.train.ServerDef` or `tf.train.ClusterSpec`.") from None
    if job_name is None:
        if len(cluster_spec.jobs) == 1:
            job_name = cluster_spec.jobs[0]
        else:
            raise ValueError("Must specify an explicit `job_name`.")
    if task_index is None:
        task_indices = cluster_spec.task_indices(job_name)
        if len(task_indices) == 1:
            task_index = task_indices[0]
        else:
            raise ValueError("Must specify an explicit `task_index`.")
    if protocol is None:
        protocol = "grpc"
    server_def = ServerDef(cluster=cluster_spec.as_cluster_def(), job_name=job_name,
                           task_index=task_index, protocol=protocol)
    if config is not None:
        server_def.default_session_config.MergeFrom(config)
    return server_def


class Server:
    """An in-process server of one task of a cluster (`tf.train.Server`).

    Sessions created with `server.target` run the steps of this task in this process, on
    the server's resources (variables, queues: shared by all its sessions unless
    `ConfigProto.isolate_session_state`), and the other tasks' partitions on their servers.
    A server is known by its address: a process may run several (each
    `create_local_server()` is a cluster of its own), but not two of one address.

    When the cluster has other tasks, the task is also served to them through a Ray actor
    owned by this process, named after the task in the cluster's own Ray namespace: the
    partitions that other tasks' sessions place on this task run there, on its resources.
    The Ray cluster is the one in `RAY_ADDRESS`, or, when every task is on localhost, one
    started on demand (flowloom/distributed/ray_backend.py); a process that serves several
    clusters serves them all through the Ray cluster it joined first. A one-task cluster
    has nobody to serve: it needs no Ray.

    Example:
      cluster = tf.train.ClusterSpec({"ps": ["localhost:2222"],
                                      "worker": ["localhost:2223", "localhost:2224"]})
      server = tf.train.Server(cluster, job_name="worker", task_index=0)
      with tf.Session(server.target) as sess:
          ...

    Args:
      server_or_cluster_def: a `tf.train.ServerDef`, `ClusterDef` or `ClusterSpec` (or
        the dict a ClusterSpec takes).
      job_name: this task's job (may be omitted when the cluster has one job).
      task_index: this task's index in the job (may be omitted for one-task jobs).
      protocol: "grpc" (the only one; the transport is Ray).
      config: a `tf.ConfigProto`: the default of sessions created on this server.
      start: whether to start serving now.

    Raises:
      ValueError: the job or task is not in the cluster.
      NotFoundError: an unknown protocol.
      UnavailableError: the Ray cluster cannot be reached (when starting).
      UnknownError: another server of this process serves the same address.
    """

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None,
                 config=None, start=True):
        self._server_def = _make_server_def(server_or_cluster_def, job_name, task_index,
                                            protocol, config)
        if self._server_def.protocol not in _PROTOCOLS:
            raise errors.NotFoundError(
                None, None, "No server factory registered for the given ServerDef: protocol "
                f"{self._server_def.protocol!r} (flowloom serves 'grpc', carried by Ray)")
        self._info = ClusterInfo(ClusterSpec(self._server_def.cluster))
        job, index = self._server_def.job_name, self._server_def.task_index
        self._task = task_name(job, index)
        if self._task not in self._info.tasks:
            raise ValueError(f"Task {index} of job {job!r} is not in the cluster "
                             f"{self._info.spec.as_dict()}")
        self._address = self._info.tasks[self._task]
        _address_key(self._address)  # TF: InvalidArgumentError for an address without a port
        self._resources = {}  # the task's resources (TF: its ResourceMgr) in this process
        self._sessions = weakref.WeakSet()  # the open sessions of `target` (Session.reset)
        self._actor = None
        self._started = False
        self._handles = {}
        self._start_lock = threading.Lock()
        with _servers_lock:
            _servers.add(self)
        if start:
            self.start()

    @staticmethod
    def create_local_server(config=None, start=True):
        """A server of a one-task cluster `{"local": ["localhost:<free port>"]}` (TF's job
        name: its devices are `/job:local/replica:0/task:0/...`)."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        return Server({"local": [f"localhost:{port}"]}, protocol="grpc", config=config,
                      start=start)

    @property
    def server_def(self):
        """The `tf.train.ServerDef` of this server."""
        return self._server_def

    @property
    def target(self):
        """The target to pass to `tf.Session`: `grpc://host:port` of this task."""
        return f"grpc://{self._address}"

    def start(self):
        """Starts serving this task (for a cluster of several tasks: joins the cluster's Ray
        cluster and creates the task's actor). Idempotent.

        Raises:
          UnknownError: another server of this process serves the same address (TF: the
            port is taken).
          UnavailableError: the Ray cluster cannot be reached (naming its address).
          AlreadyExistsError: a live server of this task already runs in the cluster.
        """
        with self._start_lock:
            if self._started:
                return
            key = _address_key(self._address)
            with _servers_lock:
                other = _serving.get(key)
                if other is not None and other is not self:
                    raise errors.UnknownError(
                        None, None, f"Could not start gRPC server: {self._address} is already "
                        f"served by this process (task {other._task} of cluster "
                        f"{other._info.spec.as_dict()})")
                _serving[key] = self
            try:
                if len(self._info.tasks) > 1:
                    self._start_actor()
            except BaseException:
                with _servers_lock:
                    if _serving.get(key) is self:
                        del _serving[key]
                raise
            self._started = True

    def _start_actor(self):
        """Creates the Ray actor other tasks reach this task through."""
        ray_backend.connect(self._info)  # before Ray is imported (it reads its settings)
        ray = ray_backend.import_ray()
        from flowloom.distributed.task_service import TaskService

        config = self._server_def.default_session_config
        config_bytes = config.SerializeToString() if config.ByteSize() else b""
        options = dict(name=self._task, namespace=self._info.namespace, num_cpus=0,
                       max_concurrency=64, max_restarts=0, scheduling_strategy=_placement(ray))
        resource = os.environ.get("FLOWLOOM_RAY_TASK_RESOURCE")
        if resource:
            options.pop("scheduling_strategy")
            options["resources"] = {resource: 0.001}
        actor_cls = ray.remote(TaskService)
        deadline = time.monotonic() + ray_backend.connect_timeout_s()
        while True:
            try:
                actor = actor_cls.options(**options).remote(
                    self._info.spec.as_cluster_def().SerializeToString(), self._task,
                    self._info.token, config_bytes)
                break
            except ValueError as e:
                # The name of a task whose process just died is freed shortly after.
                if time.monotonic() > deadline:
                    raise errors.AlreadyExistsError(
                        None, None, f"A server of {self._task} already runs in the "
                        f"cluster {self._info.cluster_id}: {e}") from None
                time.sleep(0.5)
        try:
            ray.get(actor.ping.remote(), timeout=ray_backend.connect_timeout_s())
        except Exception as e:  # noqa: BLE001 - mapped to TF's error classes
            raise ray_backend.to_tf_error(e, f"Starting {self._task}") or e from None
        self._actor = actor
        self._handles[self._task] = actor

    def join(self):
        """Blocks until the server stops (TF's ps tasks call this and never return).

        Raises:
          UnavailableError: the task's actor died.
        """
        if not self._started:
            self.start()
        if self._actor is None:  # served in this process only: it never stops
            threading.Event().wait()
        ray = ray_backend.import_ray()
        while True:
            try:
                ray.get(self._actor.ping.remote(), timeout=60)
            except Exception as e:  # noqa: BLE001 - mapped to TF's error classes
                raise ray_backend.to_tf_error(e, f"Server {self._task}") or e from None
            time.sleep(2.0)

    def _reset_remote(self, containers):
        """Session.reset on the cluster's actors (the tasks served to other processes)."""
        if self._actor is None:
            return
        ray = ray_backend.import_ray()
        refs = []
        for task in self._info.tasks:
            found = self._find_task(task) if task != self._task else (self._actor, None)
            if found is not None:
                refs.append(found[0].reset_containers.remote(
                    self._info.token, None if containers is None else list(containers)))
        if refs:
            ray.wait(refs, num_returns=len(refs), timeout=ray_backend.connect_timeout_s())

    def _find_task(self, task):
        """(actor handle, description) of `task` if its server runs now, else None."""
        ray = ray_backend.import_ray()
        try:
            handle = ray.get_actor(task, namespace=self._info.namespace)
            desc = ray.get(handle.describe.remote(self._info.token), timeout=10)
        except ValueError:
            return None
        except Exception as e:  # noqa: BLE001 - mapped to TF's error classes
            mapped = ray_backend.to_tf_error(e, f"CreateSession on {task}")
            if isinstance(mapped, errors.PermissionDeniedError):
                raise mapped from None
            return None
        self._handles[task] = handle
        return handle, desc

    def _wait_for_task(self, task, what):
        """The actor handle and description of `task`, waiting (with a log line every ten
        seconds, as TF's sessions do) until its server has started.

        Raises:
          UnavailableError: it did not start within FLOWLOOM_DISTRIBUTED_CONNECT_TIMEOUT.
        """
        ray = ray_backend.import_ray()
        start = time.monotonic()
        timeout = ray_backend.connect_timeout_s()
        next_log = start + 10.0
        while True:
            try:
                handle = ray.get_actor(task, namespace=self._info.namespace)
                desc = ray.get(handle.describe.remote(self._info.token), timeout=timeout)
                self._handles[task] = handle
                return handle, desc
            except ValueError:
                pass  # not registered yet
            except Exception as e:  # noqa: BLE001 - a dying actor: wait for its successor
                mapped = ray_backend.to_tf_error(e, f"{what} on {task}")
                if isinstance(mapped, errors.PermissionDeniedError):
                    raise mapped from None
            now = time.monotonic()
            if now - start > timeout:
                raise errors.UnavailableError(
                    None, None, f"{what} could not reach task {task} (address "
                    f"{self._info.tasks[task]}) within {timeout:.0f} s: its server has not "
                    "started")
            if now > next_log:
                print(f"{what} still waiting for response from worker: {task}",
                      file=sys.stderr, flush=True)
                next_log = now + 10.0
            time.sleep(0.2)


def _address_key(address):
    """What two addresses of one server share: (host, port), every local host as one."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise errors.InvalidArgumentError(
            None, None, f"Could not start gRPC server: the task address {address!r} has no "
            "port (expected host:port)")
    local = ("localhost", "127.0.0.1", "::1", "[::1]", "0.0.0.0", "")
    return ("localhost" if host in local else host, port)


def _placement(ray):
    """Pins the task's actor to this process's Ray node (the task's machine)."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node_id=ray.get_runtime_context().get_node_id(),
                                          soft=False)


def server_for_target(target):
    """The Server of this process whose `target` is `target`: the one serving its address,
    else one not started yet (a session of it starts it)."""
    address = str(target).split("://", 1)[-1]
    with _servers_lock:
        serving = _serving.get(_address_key(address))
        if serving is not None:
            return serving
        servers = list(_servers)
    for server in servers:
        if server.target == target or server._info.task_for_target(target) == server._task:
            return server
    return None


def _make_runtime(session, target, config):
    from flowloom.distributed import session_runtime

    return session_runtime.make_runtime(session, target, config)


def _reset(target, containers, config):
    from flowloom.distributed import reset

    return reset.reset_server_target(target, containers, config)


_session_lib.register_target_hook(_make_runtime, "grpc", _reset)
