"""The per-thread stack of default sessions (TF keeps it in its ops module as
`ops._default_session_stack`): `Session.as_default()` pushes onto it, `tf.get_default_session()`
reads its top, and leaving a block out of order is an error, as in TF."""

import contextlib
import threading


class DefaultSessionStack(threading.local):
    """A thread's default sessions, innermost last."""

    def __init__(self):
        super().__init__()
        self.stack = []

    def get_default(self):
        return self.stack[-1] if self.stack else None

    def reset(self):
        self.stack = []

    def is_cleared(self):
        return not self.stack

    @contextlib.contextmanager
    def get_controller(self, default):
        """Makes `default` the default session in the block.

        Raises:
          AssertionError: on leaving a block while an inner session's block is still open.
        """
        self.stack.append(default)
        try:
            yield default
        finally:
            if self.stack:  # empty when reset() was called inside the block
                if self.stack[-1] is not default:
                    raise AssertionError(
                        f"Nesting violated for default stack of {type(default)} objects")
                self.stack.pop()


_default_session_stack = DefaultSessionStack()
