"""The runtimes of sessions with a cluster target, which flowloom/distributed registers.

A session whose target is `grpc://host:port` (a `tf.train.Server`) or `inproc://...` (a task
of an in-process cluster) gets a runtime from the hook registered for the target's scheme.
The runtime may replace the session's devices and placer, and answers:

- `run_plan(plan, feed_vals, options, run_metadata)`: runs every step of the session (the
  session's local runner is `session._run_local`);
- `resources_for(op)`: the dict holding the resources of `op`'s kernel;
- `close()`: the session closed.

The registration is indexed (flowloom/framework/lazy_registry.py): `tf.Session("grpc://...")`
finds it even when flowloom/distributed has not been imported yet.
"""

from flowloom.framework import errors
from flowloom.framework import lazy_registry

# scheme -> fn(session, target, config) -> the runtime of a session with that target.
_target_hooks = {}
# scheme -> fn(target, containers, config): `Session.reset` of a target of that scheme.
_reset_hooks = {}


def register_target_hook(fn, scheme="grpc", reset=None):
    """Makes `fn` give sessions with a `<scheme>://` target their cluster runtime, and
    `reset` reset the containers of such a target."""
    lazy_registry.note("session_target", scheme)
    _target_hooks[scheme] = fn
    if reset is not None:
        _reset_hooks[scheme] = reset


def _scheme(target):
    if not target or not isinstance(target, str) or "://" not in target:
        return None
    scheme = target.split("://", 1)[0]
    if scheme not in _target_hooks:
        lazy_registry.load("session_target", scheme)
    return scheme


def target_hook(target):
    """The hook for `target` (a `grpc://` or `inproc://` address), or None for an in-process
    target."""
    return _target_hooks.get(_scheme(target))


def reset_target(target, containers=None, config=None):
    """Resets resource containers on `target`, and closes all connected sessions
    (`tf.Session.reset`).

    A resource container is distributed across all workers in the same cluster as
    `target`. When a resource container on `target` is reset, resources associated with
    that container are cleared; the variables in it are uninitialized afterwards.

    Args:
      target: the execution engine to connect to (`server.target`, an in-process
        cluster's target).
      containers: a list of resource container name strings, or None for all of them.
      config: (Optional.) a `ConfigProto` (its `operation_timeout_in_ms` bounds the wait
        for the target).

    Raises:
      NotFoundError: no session factory takes `target`.
      DeadlineExceededError: no server answered for `target` in time.
    """
    if isinstance(target, bytes):
        target = target.decode()
    scheme = _scheme(target)
    if scheme in _reset_hooks:
        return _reset_hooks[scheme](target, containers, config)
    if not target:
        raise NotImplementedError(
            "Session.reset of the local target '': flowloom's local sessions each hold their "
            "own resources (close the session instead)")
    raise errors.NotFoundError(
        None, None, f"No session factory registered for the given session options: "
        f'{{target: "{target}"}} Registered factories are {{DIRECT_SESSION, GRPC_SESSION}}.')
