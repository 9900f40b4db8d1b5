"""What other layers register with `Session`: the cluster runtime of `grpc://` targets and the
fetch/feed conversions of composite types (SparseTensor, IndexedSlices...).

Registrations are indexed (flowloom/framework/lazy_registry.py): a session finds them even
when the module that registers them has not been imported yet.
"""

from flowloom.framework import lazy_registry

# fn(session, target, config) -> the cluster runtime of a session with a `grpc://` target
# (flowloom/distributed/server.py registers it).
_target_hook = []
_custom_fetch_fns = []  # (type, fn(fetch) -> (parts, combine), feed fn)


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


def register_session_run_conversion_functions(tensor_type, fetch_function, feed_function=None,
                                              feed_function_for_partial_run=None):
    """Lets `Session.run` fetch and feed composite types (SparseTensor, IndexedSlices...)."""
    lazy_registry.note_types("fetch_type", tensor_type)
    _custom_fetch_fns.append((tensor_type, fetch_function, feed_function))


def _find(value, want_feed):
    for retry in (False, True):
        for cls, fetch_fn, feed_fn in _custom_fetch_fns:
            if isinstance(value, cls) and (feed_fn is not None or not want_feed):
                return fetch_fn, feed_fn
        if retry or not lazy_registry.load_type("fetch_type", type(value)):
            return None


def _custom_fetch(fetch):
    if isinstance(fetch, (str, bytes, int, float)):
        return None
    found = _find(fetch, False)
    return found[0](fetch) if found else None


def _custom_feed(key, value):
    if isinstance(key, (str, bytes)):
        return None
    found = _find(key, True)
    return found[1](key, value) if found else None
