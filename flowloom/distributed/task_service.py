"""The Ray actor of one task: its devices, its resources (variables, queues) and the
partitions that sessions of the cluster run on it.

Every `tf.train.Server` creates one, named after its task (`/job:ps/replica:0/task:0`) in
the cluster's Ray namespace, owned by the server's process (it dies with it). Its resources
are shared by every session of the cluster, as a TF server's resource manager is: the
variable `w` placed on `/job:ps/task:0` by two workers' graphs is one buffer. Its methods
run on a pool of threads (a step of each worker at once, and the `take`s that wait for
tensors); every wait is bounded by the step's deadline.
"""

import os
import threading
import time

import numpy as np

from flowloom.runtime.devices import Device


class TaskDevice(Device):
    """A device of one task of a cluster (`/job:ps/replica:0/task:0/device:CPU:0`).

    `remote` says whether it lives in another process than the session's.
    """

    __slots__ = ("task", "job", "task_index", "remote")

    def __init__(self, task, device_type, index, remote=False):
        super().__init__(device_type, index, np)
        self.task = task
        self.job = task.split("/")[1][len("job:"):]
        self.task_index = int(task.rsplit(":", 1)[1])
        self.remote = remote
        self.name = f"{task}/device:{device_type}:{index}"
        self.attributes.name = self.name

    def __repr__(self):
        return f"<TaskDevice {self.name}{' (remote)' if self.remote else ''}>"


def task_devices(task, config=None, remote=False):
    """The CPU devices of `task` (`ConfigProto.device_count['CPU']`, at least one)."""
    counts = getattr(config, "device_count", None) if config is not None else None
    n = max(1, int(counts["CPU"])) if counts and "CPU" in counts else 1
    return [TaskDevice(task, "CPU", i, remote) for i in range(n)]


class _TaskSessionView:
    """What the kernels of one registered graph see as their session."""

    def __init__(self, resources, graph, config):
        self._resources = resources
        self._op_state = {}
        self._lock = threading.Lock()
        self._graph = graph
        self._config = config

    def _resources_for(self, op):
        return self._resources


class TaskService:
    """The actor class (wrapped with `ray.remote` by server.py).

    Args:
      cluster_def: the cluster's serialized `ClusterDef`.
      task: this task's name.
      token: the cluster token every call must carry.
      config: serialized `ConfigProto` of the server (b"" for none).
    """

    def __init__(self, cluster_def, task, token, config=b""):
        from flowloom.distributed.rendezvous import Mailbox
        from flowloom.proto import cluster_pb2, config_pb2

        self._cluster_def = cluster_pb2.ClusterDef.FromString(cluster_def)
        self.task = task
        self._token = token
        self._config = config_pb2.ConfigProto.FromString(config) if config else None
        self._devices = {d.name: d for d in task_devices(task, self._config)}
        self._resources = {}
        self._graphs = {}  # (client id, graph version) -> (Graph, _TaskSessionView)
        self._plans = {}  # plan handle -> RemotePlan
        self._running = {}  # step id -> client id, of the steps running here
        self._lock = threading.Lock()
        self._mailbox = Mailbox()
        self._handles = {}
        self._semaphore = threading.Semaphore(max(2, os.cpu_count() or 1))
        self.incarnation = int.from_bytes(os.urandom(8), "little") >> 1
        from flowloom.distributed.cluster import ClusterInfo

        self._namespace = ClusterInfo(self._cluster_def).namespace

    # -- identity ------------------------------------------------------------------
    def describe(self, token):
        """This task's devices: [(name, type, index)], its incarnation and process id."""
        self._check(token, "describe")
        import ray

        return {"task": self.task, "incarnation": self.incarnation, "pid": os.getpid(),
                "node": ray.get_runtime_context().get_node_id(),
                "devices": [(d.name, d.device_type, d.index) for d in self._devices.values()]}

    def ping(self):
        return self.incarnation

    def _check(self, token, what):
        import hmac

        from flowloom.framework import errors

        if not hmac.compare_digest(str(token), self._token):
            raise errors.PermissionDeniedError(
                None, None, f"{what} on {self.task} refused: the caller is not a task of this "
                "cluster (its cluster spec or FLOWLOOM_CLUSTER_SECRET differ)")

    # -- graphs and plans ------------------------------------------------------------
    def _import_graph(self, graph_key, graph_def):
        from flowloom.framework import importer
        from flowloom.framework.graph import Graph
        from flowloom.proto import graph_pb2

        graph = Graph()
        with graph.as_default():
            importer.import_graph_def(graph_pb2.GraphDef.FromString(graph_def), name="")
        for op in graph.get_operations():
            # The user's line is in the master's process; here it would name this import.
            op._traceback = None
        with self._lock:
            # A client keeps only its newest graphs here.
            client = graph_key[0]
            old = sorted(k for k in self._graphs if k[0] == client)
            for k in old[:-3]:
                del self._graphs[k]
            entry = self._graphs[graph_key] = (
                graph, _TaskSessionView(self._resources, graph, self._config))
        return entry

    def register_plan(self, token, graph_key, graph_def, plan_handle, descs, num_slots):
        """Rebuilds the partitions `descs` on the graph of `graph_key` (client id, graph
        version), importing its GraphDef (bytes; None when sent before) first."""
        self._check(token, "register_plan")
        from flowloom.distributed import remote_plan
        from flowloom.framework import errors

        graph_key = tuple(graph_key)
        entry = self._graphs.get(graph_key)
        if entry is None and graph_def is not None:
            entry = self._import_graph(graph_key, graph_def)
        if entry is None:
            raise errors.AbortedError(None, None, f"Graph {graph_key} is not registered on "
                                      f"{self.task} (the task restarted?)")
        graph, view = entry
        plan = remote_plan.rebuild(descs, num_slots, graph, view, self._devices)
        with self._lock:
            self._plans[plan_handle] = plan
        return True

    # -- steps -------------------------------------------------------------------------
    def run(self, token, plan_handle, step_id, master, feeds, timeout_s):
        """Runs this task's partitions of one step; returns the bytes it pushed."""
        self._check(token, "run")
        from flowloom.distributed.rendezvous import StepRendezvous
        from flowloom.framework import errors
        from flowloom.runtime import blocking, parallel

        plan = self._plans.get(plan_handle)
        if plan is None:
            raise errors.AbortedError(None, None, f"Plan {plan_handle} is not registered on "
                                      f"{self.task} (the task restarted?)")
        deadline = time.monotonic() + timeout_s
        self._running[step_id] = plan_handle.split("/", 1)[0]
        rdv = StepRendezvous(step_id, self._mailbox, {self.task}, master, False,
                             self._handle_of, token, deadline)
        vals = [None] * plan.num_slots
        for slot, value in feeds.items():
            vals[slot] = value
        ctx = parallel.RunContext(vals, rdv, self._semaphore, None)
        outer = blocking.set_deadline(timeout_s * 1000.0)
        try:
            if len(plan.partitions) == 1:
                parallel.run_partition(plan.partitions[0], ctx)
            else:
                parallel._run_concurrently(plan.partitions, ctx)
        except BaseException as e:
            rdv.abort(e if isinstance(e, errors.OpError) else
                      errors.AbortedError(None, None, f"step aborted on {self.task}: {e}"))
            raise
        finally:
            blocking.reset_deadline(outer)
            self._running.pop(step_id, None)
        return rdv.bytes_sent

    def deliver(self, token, step_id, key, value, is_dead):
        """A tensor pushed to this task for step `step_id`."""
        self._check(token, "deliver")
        self._mailbox.put(step_id, key, value, is_dead)

    def take(self, token, step_id, key, timeout_s):
        """Waits for the tensor kept here for the master of `step_id`."""
        self._check(token, "take")
        return self._mailbox.get(step_id, key, time.monotonic() + timeout_s)

    def abort_step(self, token, step_id, message):
        """Fails this task's waits of `step_id` (the master saw the step fail)."""
        self._check(token, "abort_step")
        from flowloom.framework import errors

        self._mailbox.abort(step_id, errors.AbortedError(
            None, None, f"step aborted by its master: {message}"))

    def close_client(self, token, client_id):
        """A master session closed: its steps here are cancelled (their waits in queues and
        accumulators end), and its graphs and plans are dropped."""
        self._check(token, "close_client")
        from flowloom.framework import errors

        with self._lock:
            views = [view for key, (_, view) in self._graphs.items() if key[0] == client_id]
            for key in [k for k in self._graphs if k[0] == client_id]:
                del self._graphs[key]
            for handle in [h for h in self._plans if h.split("/", 1)[0] == client_id]:
                del self._plans[handle]
            steps = [s for s, c in self._running.items() if c == client_id]
        for resource in list(self._resources.values()):
            cancel = getattr(resource, "cancel_session", None)
            if cancel is not None:
                for view in views:
                    cancel(view)
        for step_id in steps:
            self._mailbox.abort(step_id, errors.CancelledError(
                None, None, f"Session {client_id} was closed"))
        return len(steps)

    def reset_containers(self, token, containers):
        """Session.reset: drops this task's resources of `containers` (None: all)."""
        self._check(token, "reset")
        from flowloom.distributed.reset import clear_containers

        return len(clear_containers(self._resources, containers))

    def _handle_of(self, task):
        handle = self._handles.get(task)
        if handle is None:
            import ray

            from flowloom.framework import errors

            try:
                handle = ray.get_actor(task, namespace=self._namespace)
            except ValueError:
                raise errors.UnavailableError(
                    None, None, f"Task {task} is not running (no server of it in the "
                    "cluster)") from None
            self._handles[task] = handle
        return handle
