"""`tf.train.SessionRunHook` and the values hooks exchange with a MonitoredSession.

A MonitoredSession calls, in order: `begin()` (graph still editable), then, after the session
is created, `after_create_session(session, coord)`; around every `run`: `before_run(context)`
(returning `SessionRunArgs` to add fetches, feeds and options to the run) and
`after_run(context, values)`; and `end(session)` when the loop ends.
"""

import collections


class SessionRunHook:
    """Hook to extend calls to MonitoredSession.run()."""

    def begin(self):
        """Called once before using the session; the graph may still be changed."""

    def after_create_session(self, session, coord):
        """Called when a new session has been created (and initialized or restored)."""

    def before_run(self, run_context):
        """Called before each run; returns None or a `SessionRunArgs` to add to the run."""
        return None

    def after_run(self, run_context, run_values):
        """Called after each run with the results of what `before_run` asked for."""

    def end(self, session):
        """Called at the end of the session (not when it ends with an exception)."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs",
                                            ["fetches", "feed_dict", "options"])):
    """What a hook adds to a run: fetches, feeds and RunOptions (merged with the caller's)."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunContext:
    """What a hook sees of the run in progress: the caller's args, the session, and a way to
    ask the loop to stop."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self):
        """The `SessionRunArgs` of the caller's run."""
        return self._original_args

    @property
    def session(self):
        """The raw session (runs on it bypass the hooks)."""
        return self._session

    @property
    def stop_requested(self):
        return self._stop_requested

    def request_stop(self):
        """Makes `should_stop()` of the MonitoredSession return True after this run."""
        self._stop_requested = True


class SessionRunValues(collections.namedtuple("SessionRunValues",
                                              ["results", "options", "run_metadata"])):
    """The results of a hook's `SessionRunArgs.fetches`, and the run's options/metadata."""
