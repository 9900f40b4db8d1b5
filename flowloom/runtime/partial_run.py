"""`Session.partial_run_setup` / `partial_run`: one step run in parts, as TF runs it.

A setup names every fetch and feed of the step; each `partial_run` feeds some of the feeds
(each once) and fetches some of the fetches (each once). Every op of the step runs at most
once: a part runs only the ops its fetches need that earlier parts did not run, and the
values earlier parts computed that later ops consume are kept and fed to the later parts.
Values that cannot be fed back (references, resource handles, variants) are recomputed by
their producers, which have no side effects (variables, handles); a stateful op that an
earlier part ran and a later part needs again through a control edge is refused
(NotImplementedError) rather than run twice.
"""

import itertools
import threading

from flowloom.framework import dtypes, errors
from flowloom.framework.ops import Tensor
from flowloom.runtime.pruning import prune

_handles = itertools.count()
_NOT_FEEDABLE = (dtypes.resource, dtypes.variant)


class _Step:
    __slots__ = ("feeds", "fetches", "fed", "fetched", "values", "done", "lock")

    def __init__(self, feeds, fetches):
        self.feeds = feeds  # Tensors the setup allows to feed
        self.fetches = fetches  # Tensors and Operations the setup allows to fetch
        self.fed = {}  # Tensor -> array fed so far
        self.fetched = set()
        self.values = {}  # Tensor -> array an earlier part computed for a later op
        self.done = set()  # Operations an earlier part ran
        self.lock = threading.Lock()


def setup(session, fetches, feeds):
    """Registers a partial step of `session`; returns its handle (a string)."""
    from flowloom.runtime.session_io import _flatten_fetch

    graph = session.graph
    flat = []
    _flatten_fetch(fetches, graph, flat)
    feed_tensors = []
    for key in feeds or ():
        flat_keys = []
        _flatten_fetch(key, graph, flat_keys)
        for t in flat_keys:
            if not isinstance(t, Tensor):
                raise TypeError(f"The value of a feed cannot be a tf.Operation: {t.name}")
            feed_tensors.append(t)
    handle = f"{next(_handles)};partial_run"
    session._partial_steps[handle] = _Step(set(feed_tensors), set(flat))
    return handle


def run(session, handle, fetches, feed_dict):
    """Runs one part of the step `handle`; returns the values of `fetches`."""
    step = session._partial_steps.get(handle) if isinstance(handle, str) else None
    if step is None:
        raise errors.InvalidArgumentError(
            None, None, f"The provided partial run handle {handle!r} is not a partial run "
            "handle of this session (or its step has finished).")
    graph = session.graph
    from flowloom.runtime.session_io import _flatten_fetch

    flat = []
    build = _flatten_fetch(fetches, graph, flat)
    keys, vals = session._process_feeds(feed_dict)
    with step.lock:
        for t in keys:
            if t not in step.feeds:
                raise errors.InvalidArgumentError(
                    None, t.op, f"Input {t.name} was not specified in partial_run_setup.")
            if t in step.fed:
                raise errors.InvalidArgumentError(
                    None, t.op, f"Input {t.name} has already been fed.")
        for el in flat:
            if el not in step.fetches:
                raise errors.InvalidArgumentError(
                    None, None, f"Fetch {el.name} was not specified in partial_run_setup.")
            if el in step.fetched:
                raise errors.InvalidArgumentError(
                    None, None, f"Fetch {el.name} has already been fetched.")
        step.fed.update(zip(keys, vals))
        known = dict(step.values)
        known.update(step.fed)
        tensors = [el for el in flat if isinstance(el, Tensor)]
        targets = [el for el in flat if not isinstance(el, Tensor) and el not in step.done]
        roots = [t._op for t in tensors if t not in known] + targets
        order = prune(roots, set(known))
        again = [op for op in order if op in step.done and op._opdef.stateful
                 and not _recomputable(op)]
        if again:
            raise NotImplementedError(
                f"partial_run: op '{again[0].name}' ran in an earlier part and is needed again "
                "through a control edge; flowloom does not run a stateful op twice in a step")
        running = set(order)
        later = _kept_outputs(order, running, step)
        wanted = [t for t in tensors if t not in known]
        fetch_list = list(dict.fromkeys(wanted + later))
        feed_keys = tuple(known)
        values = session._run_flat(feed_keys, [known[k] for k in feed_keys], fetch_list,
                                   targets) if fetch_list or targets else []
        got = dict(zip(fetch_list, values))
        for t in later:
            step.values[t] = got[t]
        step.done |= running
        step.fetched.update(flat)
        results = [known[el] if el in known else got.get(el) if isinstance(el, Tensor)
                   else None for el in flat]
        if step.fetched >= step.fetches:
            session._partial_steps.pop(handle, None)
    return build(results)


def _recomputable(op):
    return all(t.dtype.is_ref_dtype or t.dtype.base_dtype in _NOT_FEEDABLE for t in op.outputs)


def _kept_outputs(order, running, step):
    """Outputs of ops this part runs that ops of later parts will consume (and can be fed)."""
    kept = []
    for op in order:
        for t in op.outputs:
            if t.dtype.is_ref_dtype or t.dtype.base_dtype in _NOT_FEEDABLE:
                continue
            if t in step.fed or t in step.values:
                continue
            if any(c not in running and c not in step.done for c in t.consumers()) or \
                    t in step.fetches:
                kept.append(t)
    return kept
