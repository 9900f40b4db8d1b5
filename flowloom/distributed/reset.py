"""`tf.Session.reset(target, containers)` for the targets of a cluster: the resources of the
named containers (all of them for None) are dropped on every task this process holds, and
the sessions connected to the target are closed (TF's master Reset)."""

import time

from flowloom.framework import errors


def container_of(key):
    """The container of a session resource's key: `(container, name)` for variables,
    `(kind, container, name)` for queues, tables, readers...; iterators (`("iterator",
    name)`) are in the default container."""
    if isinstance(key, tuple):
        if len(key) == 3 and isinstance(key[1], str):
            return key[1]
        if len(key) == 2 and isinstance(key[0], str) and key[0] != "iterator":
            return key[0]
    return ""


def clear_containers(resources, containers):
    """Drops the resources of `containers` (None: all) from the dict `resources`; returns
    the resources dropped."""
    wanted = None if containers is None else {str(c) for c in containers}
    dropped = []
    for key in list(resources):
        if wanted is None or container_of(key) in wanted:
            dropped.append(resources.pop(key, None))
    return dropped


def _close_sessions(sessions):
    for session in list(sessions):
        try:
            session.close()
        except Exception:  # noqa: BLE001 - a session failing to close is closed all the same
            pass


def reset_server_target(target, containers=None, config=None):
    """Session.reset of a `grpc://` target: the server of this process that serves it."""
    from flowloom.distributed import ray_backend
    from flowloom.distributed import server as server_lib

    timeout_ms = int(getattr(config, "operation_timeout_in_ms", 0) or 0)
    timeout_s = timeout_ms / 1000.0 if timeout_ms > 0 else ray_backend.connect_timeout_s()
    deadline = time.monotonic() + timeout_s
    while True:
        server = server_lib.server_for_target(target)
        if server is not None and server._started:
            break
        if time.monotonic() >= deadline:
            raise errors.DeadlineExceededError(
                None, None, f"Session.reset({target!r}): no server answered within "
                f"{timeout_s:g} s (this process serves no task at that address)")
        time.sleep(min(0.05, max(deadline - time.monotonic(), 0.0)))
    _close_sessions(server._sessions)
    clear_containers(server._resources, containers)
    server._reset_remote(containers)


def reset_inprocess_target(target, containers=None, config=None):
    """Session.reset of an `inproc://` target: every task of its in-process cluster."""
    from flowloom.distributed import inprocess

    cluster = inprocess.parse_target(target)[0]
    _close_sessions(cluster._sessions)
    for resources in cluster._containers.values():
        clear_containers(resources, containers)
