"""`FLOWLOOM_EXPLAIN=1`: print an explanation of each distinct Session.run to stderr.

`FLOWLOOM_EXPLAIN=1` explains the first run of every plan (every distinct signature of
fetches, feeds and targets); `FLOWLOOM_EXPLAIN=all` explains every run.
"""

import sys
import weakref

from flowloom.explain.report import explain_plan
from flowloom.framework import observers

_explained = weakref.WeakSet()


def _observer(every_run, stream):
    def on_run(session, plan, feeds, fetches, targets, seconds):
        if not every_run:
            if plan in _explained:
                return
            _explained.add(plan)
        print(explain_plan(session, plan, feeds, fetches, targets, seconds), file=stream or
              sys.stderr, flush=True)
    return on_run


def install(mode="1", stream=None):
    """Registers the printing observer; `mode` is the value of FLOWLOOM_EXPLAIN."""
    observer = _observer(mode.strip().lower() == "all", stream)
    observers.session_run.append(observer)
    return observer
