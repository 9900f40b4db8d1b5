"""Joining a Ray cluster: an existing one given by address, or a local one started on demand.

Where the tasks of a cluster meet:
- `RAY_ADDRESS` (host:port of a head started with `ray start --head`): every task joins it;
- otherwise, for a cluster whose tasks are all on `localhost`, the first task to start also
  starts a Ray head on this machine at the port of the cluster's first task (a file lock in
  the cluster's state folder makes the others wait and then join it). The head is run by a
  small supervisor (`python -m flowloom.distributed.head`) that stops it once none of the
  processes that registered with it is alive any more;
- otherwise (hosts of other machines, no `RAY_ADDRESS`): the Ray node already started on
  this machine (`ray start --address=...`), found as Ray's `address="auto"`.

Cluster traffic is authenticated with Ray's token authentication: a head started on demand
gets a fresh random token in a file readable only by this user (`RAY_AUTH_MODE=token`,
`RAY_AUTH_TOKEN_PATH`); for an existing cluster, the token settings of the environment
(`RAY_AUTH_MODE`, `RAY_AUTH_TOKEN` or `RAY_AUTH_TOKEN_PATH`) are used as they are.
"""

import fcntl
import logging
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time

from flowloom.distributed.head import LOOPBACK
from flowloom.framework import errors

CONNECT_TIMEOUT_ENV = "FLOWLOOM_DISTRIBUTED_CONNECT_TIMEOUT"
HEAD_START_TIMEOUT_S = 90.0


def import_ray():
    """Returns the `ray` module, or raises ImportError naming the optional extra."""
    try:
        import ray  # noqa: PLC0415 - optional extra, imported only when a server starts
    except ImportError:
        raise ImportError("tf.train.Server and distributed sessions need Ray: install the "
                          "optional extra `pip install flowloom[distributed]`") from None
    return ray


def connect_timeout_s():
    return float(os.environ.get(CONNECT_TIMEOUT_ENV, "60") or 60)


def state_dir(cluster_id):
    """The folder where processes of an on-demand cluster meet (lock, token, task pids)."""
    root = os.path.join(tempfile.gettempdir(), f"flowloom-ray-{os.getuid()}")
    path = os.path.join(root, cluster_id)
    os.makedirs(os.path.join(path, "tasks"), mode=0o700, exist_ok=True)
    return path


def port_open(host, port, timeout=1.0):
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def connect(info):
    """Connects this process to the Ray cluster where `info`'s tasks meet.

    Returns:
      The address joined.

    Raises:
      UnavailableError: the cluster cannot be reached (the message names the address).
      UnauthenticatedError: Ray refused this process's token.
    """
    if "ray" in sys.modules and sys.modules["ray"].is_initialized():
        return os.environ.get("RAY_ADDRESS", "(already connected)")
    address = os.environ.get("RAY_ADDRESS", "")
    node_ip = {}
    if not address and info.is_local():
        # Before Ray is imported: it reads its token settings once.
        address = ensure_local_head(info)
        node_ip = {"_node_ip_address": LOOPBACK}
    elif not address:
        address = "auto"
    ray = import_ray()
    if address not in ("auto", "local") and ":" in address and "://" not in address:
        host, _, port = address.rpartition(":")
        deadline = time.monotonic() + connect_timeout_s()
        while not port_open(host, int(port)):
            if time.monotonic() > deadline:
                raise errors.UnavailableError(
                    None, None, f"Cannot reach the cluster's Ray head at {address}: nothing "
                    f"listens there (start it with `ray start --head --port={port}` or set "
                    "RAY_ADDRESS)")
            time.sleep(0.5)
    try:
        ray.init(address=address, namespace=info.namespace, logging_level=logging.WARNING,
                 log_to_driver=False, include_dashboard=False, **node_ip)
    except Exception as e:  # noqa: BLE001 - Ray's many connection failures become one error
        name = type(e).__name__
        if "Authentication" in name:
            raise errors.UnauthenticatedError(
                None, None, f"The Ray cluster at {address} refused this task's token: {e}"
            ) from None
        raise errors.UnavailableError(
            None, None, f"Cannot join the Ray cluster at {address}: {name}: {e}") from None
    return address


def ensure_local_head(info):
    """Starts the on-demand Ray head of a localhost cluster unless it runs; returns its
    address. Registers this process with the head's supervisor."""
    folder = state_dir(info.cluster_id)
    port = info.head_port()
    token_path = os.path.join(folder, "auth_token")
    with _locked(os.path.join(folder, "lock"), HEAD_START_TIMEOUT_S):
        register_process(folder, os.getpid())
        if not os.path.exists(os.path.join(folder, "ready")) or not port_open(LOOPBACK, port):
            _start_head(folder, port, token_path)
    use_token(token_path)
    return f"{LOOPBACK}:{port}"


def use_token(token_path):
    """Makes this process (and the Ray processes it starts) use the token in `token_path`."""
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ["RAY_AUTH_TOKEN_PATH"] = token_path
    os.environ.pop("RAY_AUTH_TOKEN", None)


def register_process(folder, pid):
    """Tells the head's supervisor that process `pid` uses the cluster."""
    with open(os.path.join(folder, "tasks", str(pid)), "w") as f:
        f.write(str(pid))


def _start_head(folder, port, token_path):
    ready = os.path.join(folder, "ready")
    if os.path.exists(ready):
        os.remove(ready)
    fd = os.open(token_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32))
    log_path = os.path.join(folder, "head.log")
    with open(log_path, "w") as log:
        supervisor = subprocess.Popen(
            [sys.executable, "-m", "flowloom.distributed.head", "--port", str(port),
             "--dir", folder, "--token-path", token_path],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True)
    deadline = time.monotonic() + HEAD_START_TIMEOUT_S
    while not os.path.exists(ready):
        if supervisor.poll() is not None or time.monotonic() > deadline:
            if supervisor.poll() is None:
                supervisor.kill()
            with open(log_path) as f:
                tail = f.read()[-2000:]
            raise errors.UnavailableError(
                None, None, f"Could not start a local Ray head at {LOOPBACK}:{port} for the "
                f"cluster: {tail}")
        time.sleep(0.2)


class _locked:
    """An exclusive file lock, waited for at most `timeout_s`."""

    def __init__(self, path, timeout_s):
        self.path = path
        self.timeout_s = timeout_s

    def __enter__(self):
        self.f = open(self.path, "a")
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                fcntl.flock(self.f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                if time.monotonic() > deadline:
                    self.f.close()
                    raise errors.DeadlineExceededError(
                        None, None, f"Timed out waiting for the cluster lock {self.path}")
                time.sleep(0.1)

    def __exit__(self, *exc):
        fcntl.flock(self.f, fcntl.LOCK_UN)
        self.f.close()
        return False


def to_tf_error(exc, what):
    """A Ray failure as TF's error class: a dead or unreachable task → UnavailableError,
    a timeout → DeadlineExceededError, a task's own OpError → itself."""
    ray = import_ray()
    exceptions = ray.exceptions
    if isinstance(exc, errors.OpError):
        return exc
    if isinstance(exc, exceptions.RayTaskError):
        cause = getattr(exc, "cause", None)
        if isinstance(cause, errors.OpError):
            return cause
        return errors.InternalError(None, None, f"{what} failed: {cause or exc}")
    if isinstance(exc, exceptions.GetTimeoutError):
        return errors.DeadlineExceededError(None, None, f"{what}: timed out")
    if isinstance(exc, (exceptions.RayActorError, exceptions.ActorUnavailableError)):
        return errors.UnavailableError(None, None, f"{what}: the task is unavailable "
                                       f"({type(exc).__name__}: {_first_line(exc)})")
    if isinstance(exc, exceptions.RayError):
        return errors.UnavailableError(None, None, f"{what}: {type(exc).__name__}: "
                                       f"{_first_line(exc)}")
    return None


def _first_line(exc):
    text = str(exc).strip().splitlines()
    return text[0] if text else ""
