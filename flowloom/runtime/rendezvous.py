"""The rendezvous: where a `_Send` leaves a tensor and the matching `_Recv` picks it up.

One rendezvous lives for one run. A key names one transfer, as in TensorFlow:
`send_device;recv_device;tensor_name` (TF adds an incarnation and frame/iteration; the
control-flow executor adds the frame and iteration to the tensor name). What goes through is
`(value, is_dead)`: a dead tensor (the untaken branch of a Switch) travels as `is_dead=True`
so the receiving partition can propagate deadness.
"""

import threading

from flowloom.framework import errors


def make_key(send_device, recv_device, tensor_name):
    return f"{send_device};{recv_device};{tensor_name}"


class Rendezvous:
    """A per-run mailbox of tensors keyed by transfer, with blocking receive and abort."""

    __slots__ = ("_items", "_cond", "_error")

    def __init__(self):
        self._items = {}
        self._cond = threading.Condition(threading.Lock())
        self._error = None

    def send(self, key, value, is_dead=False):
        """Leaves `value` under `key` (each key is sent once per run)."""
        with self._cond:
            if key in self._items:
                raise errors.InternalError(None, None, f"Send of an already sent tensor: {key}")
            self._items[key] = (value, is_dead)
            self._cond.notify_all()

    def recv(self, key):
        """Waits for `key`'s tensor; returns `(value, is_dead)`.

        Raises:
          The error the run was aborted with, if another partition failed first.
        """
        with self._cond:
            while True:
                item = self._items.pop(key, None)
                if item is not None:
                    return item
                if self._error is not None:
                    raise self._error
                self._cond.wait()

    def abort(self, error):
        """Wakes every waiting receiver with `error` (the first error of the run wins)."""
        with self._cond:
            if self._error is None:
                self._error = error
            self._cond.notify_all()

    @property
    def error(self):
        return self._error
