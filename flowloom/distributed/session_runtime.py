"""What `tf.Session(server.target)` adds to a session: the cluster's devices, placement by
job/task/device, and steps whose partitions run in several tasks.

The session's own task runs its partitions in this process, on the server's resources
(shared by every session of the server; the session's own with
`ConfigProto.isolate_session_state`); every other task's partitions are registered with that task's actor once per
plan and run there, concurrently, each step. Tensors cross tasks through the step's
`StepRendezvous` (rendezvous.py). A task that died makes the step fail with
UnavailableError; a step that outlives its deadline (RunOptions.timeout_in_ms,
ConfigProto.operation_timeout_in_ms, else FLOWLOOM_DISTRIBUTED_STEP_TIMEOUT, 600 s) with
DeadlineExceededError; nothing waits without a bound. Closing the session ends its steps'
waits (a dequeue of a server's queue) with CancelledError.
"""

import itertools
import os
import threading
import time
import uuid

from flowloom.distributed import ray_backend
from flowloom.distributed.cluster import task_of_device
from flowloom.distributed.rendezvous import Mailbox, StepRendezvous, key_tasks
from flowloom.distributed.remote_plan import describe_partition
from flowloom.distributed.task_service import TaskDevice, task_devices
from flowloom.framework import errors
from flowloom.framework.device import DeviceSpec
from flowloom.runtime import blas_threads, blocking, parallel, placer, tracing

STEP_TIMEOUT_ENV = "FLOWLOOM_DISTRIBUTED_STEP_TIMEOUT"
MAILBOX = Mailbox()  # the tensors this process's partitions pass each other
_plan_ids = itertools.count()


class ClusterPlacer(placer.Placer):
    """The local placer over a cluster's devices: a spec matches by job, task and device;
    an op without a device goes to the session's task (the first devices listed)."""

    def _matching(self, spec):
        found = self._find(spec)
        if found is None and self.allow_soft_placement:
            found = self._find(spec.replace(device_type=None, device_index=None))
        return found

    def _find(self, spec):
        for d in self.devices:
            if spec.job is not None and spec.job != d.job:
                continue
            if spec.replica not in (None, 0):
                continue
            if spec.task is not None and spec.task != d.task_index:
                continue
            if spec.device_type is not None and spec.device_type.upper() != d.device_type:
                continue
            if spec.device_index is not None and spec.device_index != d.index:
                continue
            return d
        return None


def _wanted_tasks(info, config, own):
    filters = list(getattr(config, "device_filters", ()) or ())
    if not filters:
        return [t for t in info.tasks if t != own]
    wanted = []
    for t in info.tasks:
        spec = DeviceSpec.from_string(t)
        for f in filters:
            fs = DeviceSpec.from_string(f)
            if (fs.job in (None, spec.job) and fs.task in (None, spec.task)) and t != own:
                wanted.append(t)
                break
    return wanted


class DistributedRuntime:
    """The cluster side of one session (see the module docstring)."""

    def __init__(self, session, server, config):
        self.session = session
        self.server = server
        self.info = server._info
        self.task = server._task
        self.token = self.info.token
        self.client_id = uuid.uuid4().hex[:12]
        self.isolated = bool(getattr(config, "isolate_session_state", False))
        self.cancellation = blocking.Cancellation()
        server._sessions.add(session)
        own = task_devices(self.task, config)
        remote = []
        self.handles = {}
        for task in _wanted_tasks(self.info, config, self.task):
            # A task whose server is not up yet is taken to have one CPU; a step that needs
            # it waits for it (a session never waits for tasks it does not use).
            found = server._find_task(task)
            if found is None:
                remote.append(TaskDevice(task, "CPU", 0, remote=True))
                continue
            self.handles[task] = found[0]
            for name, device_type, index in found[1]["devices"]:
                remote.append(TaskDevice(task, device_type, index, remote=True))
        remote.sort(key=lambda d: (d.job, d.task_index, d.device_type, d.index))
        session._devices = own + remote
        session._placer = ClusterPlacer(
            session._devices,
            allow_soft_placement=bool(getattr(config, "allow_soft_placement", False)),
            log_device_placement=bool(getattr(config, "log_device_placement", False)))
        self._graph_bytes = {}  # graph version -> serialized GraphDef
        self._graphs_sent = set()  # (task, (client id, graph version))
        self._inflight = set()  # ids of the steps running now
        self.last_step_bytes = (0, 0)
        self._lock = threading.Lock()
        env_timeout = float(os.environ.get(STEP_TIMEOUT_ENV, "600") or 600)
        self.default_timeout_s = env_timeout

    # -- which plans are ours ---------------------------------------------------------
    def owns(self, plan):
        """Whether `plan` needs another task (then `run_plan` runs it)."""
        if plan.external is not None:
            nodes = getattr(plan.external, "nodes", ())
            if any(getattr(n.device, "remote", False) for n in nodes):
                raise NotImplementedError(
                    "TF1 control flow (while_loop/cond) in a step that spans tasks of a "
                    "cluster: place the loop's ops on one task")
            return False
        pplan = plan.partitioned
        return pplan is not None and any(p.device.remote for p in pplan.partitions)

    def _prepared(self, pplan):
        prepared = getattr(pplan, "_distributed", None)
        if prepared is not None:
            return prepared
        with self._lock:
            prepared = getattr(pplan, "_distributed", None)
            if prepared is None:
                prepared = self._prepare(pplan)
                pplan._distributed = prepared
        return prepared

    def _prepare(self, pplan):
        graph = self.session._graph
        # Adding ops does not change Graph._version (only edits of existing ops do).
        with graph._lock:
            ops = graph._ops
            version = (graph._version, len(ops), ops[-1]._id if ops else -1)
        graph_bytes = self._graph_bytes.get(version)
        if graph_bytes is None:
            graph_bytes = graph.as_graph_def().SerializeToString()
            self._graph_bytes = {version: graph_bytes}
        graph_key = (self.client_id,) + version
        by_task = {}
        local = []
        for p in pplan.partitions:
            if p.device.remote:
                by_task.setdefault(p.device.task, []).append(p)
            else:
                local.append(p)
        plan_handle = f"{self.client_id}/{next(_plan_ids)}"
        calls = []
        for task, parts in by_task.items():
            handle = self._handle_of(task)
            descs = [describe_partition(p) for p in parts]
            sent = (task, graph_key) in self._graphs_sent
            calls.append((task, handle.register_plan.remote(
                self.token, graph_key, None if sent else graph_bytes, plan_handle, descs,
                pplan.num_slots)))
            self._graphs_sent.add((task, graph_key))
        for task, ref in calls:
            self._get(ref, f"Registering a graph with {task}", self.default_timeout_s)
        prefetch = [recv.key for send, recv in pplan.pairs
                    if recv.dst.task == self.task and send.src.remote]
        feeds_of = {}
        for i, device in enumerate(pplan.feed_devices):
            if device.remote:
                feeds_of.setdefault(device.task, []).append(i)
        return {"local": local, "tasks": sorted(by_task), "plan": plan_handle,
                "prefetch": prefetch, "feeds": feeds_of}

    def resources_for(self, op):
        """The resources of the session's own task: the server's (TF's worker resource
        manager), or the session's own when it isolates its state."""
        return self.session._resources if self.isolated else self.server._resources

    # -- running -------------------------------------------------------------------------
    def run_plan(self, plan, feed_vals, options, run_metadata):
        """Runs a step of the session: here when it needs no other task, else across the
        tasks; closing the session cancels it."""
        with blocking.cancellable(self.cancellation):
            if not self.owns(plan):
                return self.session._run_local(plan, feed_vals, options, run_metadata)
            return self._run_across(plan, feed_vals, options, run_metadata)

    def _run_across(self, plan, feed_vals, options, run_metadata):
        pplan = plan.partitioned
        prepared = self._prepared(pplan)
        timeout_s = self.default_timeout_s
        run_deadline = blocking.snapshot()[0]
        if run_deadline is not None:
            timeout_s = min(timeout_s, max(run_deadline - time.monotonic(), 0.001))
        deadline = time.monotonic() + timeout_s
        step_id = uuid.uuid4().hex
        self._inflight.add(step_id)
        rdv = StepRendezvous(step_id, MAILBOX, {self.task}, self.task, True,
                             self._handle_of, self.token, deadline)
        vals = [None] * pplan.num_slots
        for i, v in enumerate(feed_vals):
            vals[i] = v
        trace = options is not None and tracing.wants_trace(options)
        stats = {} if trace else None
        for key in prepared["prefetch"]:
            rdv.prefetch(key)
        runs = []
        for task in prepared["tasks"]:
            feeds = {i: feed_vals[i] for i in prepared["feeds"].get(task, ())}
            runs.append((task, self.handles[task].run.remote(
                self.token, prepared["plan"], step_id, self.task, feeds, timeout_s)))
        ctx = parallel.RunContext(vals, rdv, self.session._inter_op, stats)
        local = prepared["local"]
        try:
            if local:
                with blas_threads.shared_between(len(local)):
                    parallel._run_concurrently(local, ctx)
            for task, ref in runs:
                self._get(ref, f"Step on {task}", max(deadline - time.monotonic(), 0.001))
        except BaseException as e:
            for task in prepared["tasks"]:
                try:
                    self.handles[task].abort_step.remote(self.token, step_id, str(e)[:500])
                except Exception:  # noqa: BLE001 - a dead task has nothing left to abort
                    pass
            rdv.abort(e if isinstance(e, errors.OpError) else errors.AbortedError(
                None, None, str(e)))
            mapped = ray_backend.to_tf_error(e, "Step") if not isinstance(
                e, errors.OpError) else None
            if mapped is not None:
                raise mapped from None
            raise
        finally:
            self._inflight.discard(step_id)
            MAILBOX.finish(step_id)
        # Bytes this step moved between this process and other tasks (pushed, taken).
        self.last_step_bytes = (rdv.bytes_sent, rdv.bytes_received)
        if run_metadata is not None and trace:
            tracing.fill_step_stats(run_metadata.step_stats, stats)
        return [vals[i] for i in pplan.fetch_slots]

    def _handle_of(self, task):
        handle = self.handles.get(task)
        if handle is None:
            handle, _ = self.server._wait_for_task(task, "CreateSession")
            self.handles[task] = handle
        return handle

    def _get(self, ref, what, timeout_s):
        ray = ray_backend.import_ray()
        try:
            return ray.get(ref, timeout=timeout_s)
        except Exception as e:  # noqa: BLE001 - mapped to TF's error classes
            mapped = ray_backend.to_tf_error(e, what)
            if mapped is None:
                raise
            raise mapped from None

    def close(self):
        """Cancels this session's running steps on every task and drops its plans there."""
        self.cancellation.cancel("Step was cancelled by an explicit call to `Session::Close()`.")
        self.server._sessions.discard(self.session)
        handles, self.handles = self.handles, {}
        for step_id in list(self._inflight):
            MAILBOX.abort(step_id, errors.CancelledError(None, None, "Session was closed"))
        refs = []
        for handle in handles.values():
            try:
                refs.append(handle.close_client.remote(self.token, self.client_id))
            except Exception:  # noqa: BLE001 - a dead task has nothing to drop
                pass
        if refs:
            ray = ray_backend.import_ray()
            ray.wait(refs, num_returns=len(refs), timeout=5.0)


def make_runtime(session, target, config):
    """The session hook (runtime/session.py): a DistributedRuntime for a server's target."""
    from flowloom.distributed import server as server_lib

    server = server_lib.server_for_target(target)
    if server is None:
        raise NotImplementedError(
            f"tf.Session({target!r}): a session whose target is not a tf.train.Server of this "
            "process (a client without its own server) is not implemented; start the task's "
            "tf.train.Server in this process and use server.target")
    if not server._started:
        server.start()
    merged = with_server_defaults(config, server.server_def.default_session_config)
    if merged is not config:
        config = session._config = merged
        session._operation_timeout_ms = int(config.operation_timeout_in_ms or 0)
    return DistributedRuntime(session, server, config)


def with_server_defaults(config, defaults):
    """The config a session on a server runs with: as TF's master, the server's default
    session config merged into the session's own (`config`, None for none); `config` itself
    when the server has no defaults."""
    if not defaults.ByteSize():
        return config
    merged = type(defaults)()
    if config is not None:
        merged.CopyFrom(config)
    merged.MergeFrom(defaults)
    return merged


def task_of(device):
    return task_of_device(device.name)


__all__ = ["ClusterPlacer", "DistributedRuntime", "make_runtime", "key_tasks"]
