"""The step container: resources that live for one Session.run.

TF gives every step (one `Session.run`) a container of its own in the resource manager,
`__per_step_<id>`, emptied when the step ends. Kernels that keep a resource for the rest of
their step only (TemporaryVariable, until DestroyTemporaryVariable) create it there, by name:
creating a name twice in one step is AlreadyExistsError, deleting an absent one NotFoundError,
and the next run starts empty. `blocking.run_scope` makes one per run; the run's worker
threads share it (`blocking.snapshot`).
"""

import itertools
import threading

from flowloom.framework import errors

_STEP_IDS = itertools.count(1)
# One lock for every run's container: per-step resources are rare, and a run makes none of
# its own (Session.run makes a container each time).
_LOCK = threading.Lock()


class StepContainer:
    """The resources of one run, by (name, type name)."""

    __slots__ = ("_name", "_resources")

    def __init__(self):
        self._name = None
        self._resources = None  # made on first use: most runs create no per-step resource

    @property
    def name(self):
        """`__per_step_<n>`, numbered in the order the runs first used their container."""
        if self._name is None:
            self._name = f"__per_step_{next(_STEP_IDS)}"
        return self._name

    def _key(self, name, type_name):
        return f"{self.name}/{name}/{type_name}"

    def create(self, name, type_name, resource):
        """Adds `resource` under `name`; AlreadyExistsError when this run already has one."""
        with _LOCK:
            if self._resources is None:
                self._resources = {}
            if (name, type_name) in self._resources:
                raise errors.AlreadyExistsError(
                    None, None, f"Resource {self._key(name, type_name)}")
            self._resources[(name, type_name)] = resource

    def delete(self, name, type_name):
        """Removes and returns the resource under `name`; NotFoundError when there is none."""
        with _LOCK:
            resource = (self._resources or {}).pop((name, type_name), None)
            if resource is None:
                raise errors.NotFoundError(
                    None, None, f"Resource {self._key(name, type_name)} does not exist.")
            return resource

    def clear(self):
        """Drops every resource (the run ended)."""
        self._resources = None


def current():
    """The step container of the calling thread's run; InternalError outside a run (as TF's
    kernels without a per-step resource manager)."""
    from flowloom.runtime import blocking

    step = blocking.current_step()
    if step is None:
        raise errors.InternalError(None, None, "No per-step resource manager.")
    return step
