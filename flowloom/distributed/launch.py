"""Starting a whole cluster's tasks on this machine (`flowloom launch`, and tests).

Each task is the same script in its own process (and process group), given the flags TF1
example scripts take: `--job_name`, `--task_index`, `--ps_hosts`, `--worker_hosts`. The
launcher starts the cluster's Ray head first (ray_backend.ensure_local_head), gives every
task the same fresh `FLOWLOOM_CLUSTER_SECRET`, streams each task's output with a `[ps:0]`
prefix, and stops every task and the head at the end (also on Ctrl-C).
"""

import os
import queue
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time

from flowloom.distributed import ray_backend
from flowloom.distributed.cluster import SECRET_ENV, ClusterInfo
from flowloom.distributed.head import LOOPBACK


def free_ports(n):
    """`n` distinct free TCP ports on the loopback interface."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


class TaskProcess:
    """One task's process and the lines it printed (stdout and stderr together)."""

    def __init__(self, job, index, proc, echo):
        self.job = job
        self.index = index
        self.proc = proc
        self.lines = []
        self._new = queue.SimpleQueue()
        self._echo = echo
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def label(self):
        return f"{self.job}:{self.index}"

    def _read(self):
        for raw in self.proc.stdout:
            line = raw.decode(errors="replace").rstrip("\n")
            self.lines.append(line)
            self._new.put(line)
            if self._echo is not None:
                print(f"[{self.label}] {line}", file=self._echo, flush=True)
        self._new.put(None)

    def wait_for(self, pattern, timeout):
        """The first line (from now on, or already printed) matching `pattern`; None when
        none came within `timeout` seconds or the process ended."""
        regex = re.compile(pattern)
        for line in self.lines:
            if regex.search(line):
                return line
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                line = self._new.get(timeout=left)
            except queue.Empty:
                return None
            if line is None:
                return None
            if regex.search(line):
                return line

    def wait_count(self, pattern, count, timeout):
        """Waits until `count` lines in all match `pattern`; returns whether they did."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while sum(1 for line in self.lines if regex.search(line)) < count:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                return sum(1 for line in self.lines if regex.search(line)) >= count
            time.sleep(0.05)
        return True

    def kill(self, sig=signal.SIGKILL):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass

    def stop(self, grace=3.0):
        if self.proc.poll() is None:
            self.kill(signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.kill(signal.SIGKILL)
                self.proc.wait(timeout=10)
        self._reader.join(timeout=2)


class LocalCluster:
    """The tasks of a `num_ps` + `num_workers` cluster on localhost.

    Args:
      script: the task script; `script_args` follow the cluster flags.
      echo: a stream to copy each task's prefixed output to (None: keep it only).
      env: extra environment of the tasks.
      via_flowloom_run: start the script with `python -m flowloom run` (TF1 scripts that
        `import tensorflow`).
      two_nodes: run two Ray nodes on this machine (the head, and a second node with its own
        resources) and pin the ps tasks' actors to the second node and the workers' to the
        head: a stand-in for a cluster of two machines.
    """

    def __init__(self, script, script_args=(), num_ps=1, num_workers=2, echo=sys.stdout,
                 env=None, python=sys.executable, via_flowloom_run=False, two_nodes=False):
        ports = free_ports(num_ps + num_workers)
        self.ps_hosts = [f"localhost:{p}" for p in ports[:num_ps]]
        self.worker_hosts = [f"localhost:{p}" for p in ports[num_ps:]]
        self.script = script
        self.script_args = list(script_args)
        self.echo = echo
        # `flowloom run` maps `import tensorflow` onto flowloom (TF1 scripts as they are).
        self.command = [python, "-m", "flowloom", "run", script] if via_flowloom_run else [
            python, script]
        self.env = dict(os.environ)
        self.env.setdefault(SECRET_ENV, secrets.token_hex(16))
        self.env["PYTHONUNBUFFERED"] = "1"
        self.env.update(env or {})
        self.tasks = {}
        self._head_dir = None
        self.two_nodes = two_nodes
        self._node = None

    def cluster_dict(self):
        return {"ps": self.ps_hosts, "worker": self.worker_hosts}

    def start_head(self):
        """Starts the cluster's Ray head (it would otherwise start with the first task)."""
        saved = os.environ.get(SECRET_ENV)
        os.environ[SECRET_ENV] = self.env[SECRET_ENV]
        if self.two_nodes:
            os.environ["FLOWLOOM_RAY_HEAD_RESOURCES"] = '{"flowloom_node_0": 100}'
        try:
            info = ClusterInfo(self.cluster_dict())
            ray_backend.ensure_local_head(info)
            self._head_dir = ray_backend.state_dir(info.cluster_id)
            for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH"):
                self.env[name] = os.environ[name]
        finally:
            os.environ.pop("FLOWLOOM_RAY_HEAD_RESOURCES", None)
            if saved is None:
                os.environ.pop(SECRET_ENV, None)
            else:
                os.environ[SECRET_ENV] = saved
        if self.two_nodes:
            self._start_second_node(info.head_port())

    def _start_second_node(self, port, timeout=90.0):
        cmd = [self.command[0], "-m", "ray.scripts.scripts", "start",
               f"--address={LOOPBACK}:{port}", f"--node-ip-address={LOOPBACK}", "--num-cpus=0",
               '--resources={"flowloom_node_1": 100}', "--block", "--disable-usage-stats"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=self.env, start_new_session=True,
                                preexec_fn=_die_with_parent)
        self._node = TaskProcess("node", 1, proc, None)
        if self._node.wait_for(r"--block", timeout) is None:
            raise RuntimeError("the second Ray node did not start:\n" +
                               "\n".join(self._node.lines[-20:]))
    def start_task(self, job, index, extra_env=None):
        """Starts (or restarts) one task; returns its TaskProcess."""
        argv = self.command + [f"--job_name={job}", f"--task_index={index}",
                f"--ps_hosts={','.join(self.ps_hosts)}",
                f"--worker_hosts={','.join(self.worker_hosts)}"] + self.script_args
        env = dict(self.env, **(extra_env or {}))
        if self.two_nodes:
            env["FLOWLOOM_RAY_TASK_RESOURCE"] = "flowloom_node_1" if job == "ps" else \
                "flowloom_node_0"
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env, start_new_session=True,
                                preexec_fn=_die_with_parent)
        task = TaskProcess(job, index, proc, self.echo)
        self.tasks[(job, index)] = task
        return task

    def start(self):
        self.start_head()
        for i in range(len(self.ps_hosts)):
            self.start_task("ps", i)
        for i in range(len(self.worker_hosts)):
            self.start_task("worker", i)
        return self

    def workers(self):
        return [t for (job, _), t in sorted(self.tasks.items()) if job == "worker"]

    def wait_workers(self, timeout=None):
        """Waits for every worker to exit; returns their exit codes."""
        deadline = None if timeout is None else time.monotonic() + timeout
        codes = []
        for t in self.workers():
            left = None if deadline is None else max(deadline - time.monotonic(), 0.01)
            codes.append(t.proc.wait(timeout=left))
        return codes

    def stop(self):
        """Stops every task, then the Ray head; waits until they are gone."""
        for t in self.tasks.values():
            t.kill(signal.SIGTERM)
        for t in self.tasks.values():
            t.stop()
        if self._node is not None:
            self._node.stop()
        stop_head(self._head_dir)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False


def _die_with_parent():
    """In a task's process before it starts: SIGTERM when the launcher dies (Linux), so a
    killed launcher leaves no task behind."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def stop_head(folder, timeout=30.0):
    """Stops the supervisor of the head in `folder` (and so the head); waits for it."""
    if not folder:
        return
    ready = os.path.join(folder, "ready")
    try:
        with open(ready) as f:
            pid = int(f.read().strip() or 0)
    except (OSError, ValueError):
        return
    if pid <= 0:
        return
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def launch(script, script_args, num_ps, num_workers):
    """`flowloom launch`: runs the cluster until its workers exit; returns the largest
    worker exit code (130 on Ctrl-C)."""
    cluster = LocalCluster(script, script_args, num_ps, num_workers, via_flowloom_run=True)

    def interrupted(signum, frame):
        raise KeyboardInterrupt

    # `kill` and a closed terminal stop the cluster as Ctrl-C does.
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGHUP, interrupted)
    print(f"[launch] ps_hosts={','.join(cluster.ps_hosts)} "
          f"worker_hosts={','.join(cluster.worker_hosts)}", flush=True)
    try:
        cluster.start()
        codes = cluster.wait_workers()
        return max(codes) if codes else 0
    except KeyboardInterrupt:
        return 130
    finally:
        cluster.stop()
