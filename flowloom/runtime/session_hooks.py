"""The cluster runtime of sessions with a `grpc://` target, which flowloom/distributed registers.

The registration is indexed (flowloom/framework/lazy_registry.py): `tf.Session("grpc://...")`
finds it even when flowloom/distributed has not been imported yet.
"""

from flowloom.framework import lazy_registry

# fn(session, target, config) -> the cluster runtime of a session with a `grpc://` target
# (flowloom/distributed/server.py registers it).
_target_hook = []


def register_target_hook(fn):
    """Makes `fn` give sessions with a `grpc://` target their cluster runtime."""
    lazy_registry.note("session_target", "grpc")
    _target_hook[:] = [fn]


def target_hook(target):
    """The hook for `target` (a `grpc://` address), or None for an in-process target."""
    if not target or not str(target).startswith("grpc://"):
        return None
    if not _target_hook:
        lazy_registry.load("session_target", "grpc")
    return _target_hook[0] if _target_hook else None
