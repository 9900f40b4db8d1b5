"""Cross-task Send/Recv: a per-process mailbox and the rendezvous one step uses.

A key is the local rendezvous key (`send_device;recv_device;edge`), so the tasks of both
ends are read from it. How a tensor travels between processes:
- to a task whose partition runs in a Ray actor: the sender calls that actor's `deliver`
  with the value as an argument (Ray moves large arrays through its object store; the
  receiver reads them there without a copy);
- to the step's master (the session's own process, which is a Ray driver and cannot be
  called): the sending actor keeps the value in its mailbox and the master takes it with
  `take` (issued when the step starts, so every transfer of a step is in flight at once).
Every wait is bounded by the step's deadline, and a failed step aborts every wait of it.
"""

import threading
import time

from flowloom.distributed.cluster import task_of_device
from flowloom.framework import errors
from flowloom.runtime.executor import Ref


def key_tasks(key):
    """(source task, destination task) of a rendezvous key."""
    src, dst, _ = key.split(";", 2)
    return task_of_device(src), task_of_device(dst)


def snapshot(value):
    """What crosses a process boundary for a sent value: a variable's current buffer."""
    if type(value) is Ref:
        if value.value is None:
            raise errors.FailedPreconditionError(
                None, None, f"Attempting to use uninitialized value {value.name}")
        return value.value
    return value


class Mailbox:
    """The tensors sent to (or kept for) this process, by (step id, key)."""

    def __init__(self):
        self._items = {}
        self._aborted = {}  # step id -> (error, time)
        self._cond = threading.Condition(threading.Lock())

    def put(self, step_id, key, value, is_dead):
        with self._cond:
            if step_id in self._aborted:
                return
            self._items[(step_id, key)] = (value, is_dead)
            self._cond.notify_all()

    def get(self, step_id, key, deadline):
        """Waits for the tensor of (`step_id`, `key`) until `deadline` (time.monotonic())."""
        with self._cond:
            while True:
                item = self._items.pop((step_id, key), None)
                if item is not None:
                    return item
                aborted = self._aborted.get(step_id)
                if aborted is not None:
                    raise aborted[0]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise errors.DeadlineExceededError(
                        None, None, f"Timed out waiting for tensor {key} of step {step_id}")
                self._cond.wait(min(left, 1.0))

    def abort(self, step_id, error):
        """Fails every current and later wait of `step_id` with `error`."""
        now = time.monotonic()
        with self._cond:
            self._aborted.setdefault(step_id, (error, now))
            for k in [k for k in self._items if k[0] == step_id]:
                del self._items[k]
            # Forget aborts after ten minutes (no step waits that long past its deadline).
            for sid in [s for s, (_, t) in self._aborted.items() if now - t > 600]:
                del self._aborted[sid]
            self._cond.notify_all()

    def finish(self, step_id):
        """Drops what is left of a completed step."""
        with self._cond:
            for k in [k for k in self._items if k[0] == step_id]:
                del self._items[k]


class StepRendezvous:
    """The rendezvous of one step in one process (the interface of runtime/rendezvous.py).

    Args:
      step_id: the step's id (the same in every task it runs on).
      mailbox: this process's `Mailbox`.
      local_tasks: the tasks whose partitions of this step run in this process.
      master: the task of the session that runs the step.
      is_master: whether this process is that session's.
      handle_of: task name -> Ray actor handle of that task.
      token: the cluster token the receiving tasks check.
      deadline: time.monotonic() bound of every wait.
    """

    def __init__(self, step_id, mailbox, local_tasks, master, is_master, handle_of, token,
                 deadline):
        self.step_id = step_id
        self.mailbox = mailbox
        self.local_tasks = local_tasks
        self.master = master
        self.is_master = is_master
        self.handle_of = handle_of
        self.token = token
        self.deadline = deadline
        self.pending = {}  # key -> ObjectRef of a `take` issued ahead (master only)
        self.bytes_sent = 0
        self.bytes_received = 0  # what the master took from other tasks
        self._error = None

    def send(self, key, value, is_dead=False):
        _, dst = key_tasks(key)
        if dst in self.local_tasks or (dst == self.master and not self.is_master):
            # Same process, or kept here for the master to take.
            if dst not in self.local_tasks:
                value = snapshot(value)
            self.mailbox.put(self.step_id, key, value, is_dead)
            return
        value = snapshot(value)
        self.bytes_sent += getattr(value, "nbytes", 0)
        self.handle_of(dst).deliver.remote(self.token, self.step_id, key, value, is_dead)

    def prefetch(self, key):
        """Master: starts taking `key` from its source task now."""
        src, _ = key_tasks(key)
        self.pending[key] = self.handle_of(src).take.remote(
            self.token, self.step_id, key, self._left())

    def recv(self, key):
        src, _ = key_tasks(key)
        if src in self.local_tasks or not self.is_master:
            return self.mailbox.get(self.step_id, key, self.deadline)
        ref = self.pending.pop(key, None)
        if ref is None:
            self.prefetch(key)
            ref = self.pending.pop(key)
        from flowloom.distributed import ray_backend

        ray = ray_backend.import_ray()
        try:
            item = ray.get(ref, timeout=max(self._left(), 0.001))
            self.bytes_received += getattr(item[0], "nbytes", 0)
            return item
        except Exception as e:  # noqa: BLE001 - mapped to TF's error classes
            mapped = ray_backend.to_tf_error(e, f"Recv of {key} from {src}")
            if mapped is None:
                raise
            raise mapped from None

    def abort(self, error):
        if self._error is None:
            self._error = error
        self.mailbox.abort(self.step_id, error)

    @property
    def error(self):
        return self._error

    def _left(self):
        return self.deadline - time.monotonic()
