"""`resources`: the graph's stateful resources (TF's tensorflow.python.ops.resources).

A resource is registered with the op that creates it and the op that says whether it is
initialized; `initialize_resources` groups the creators (a resource variable's initializer
is its creator).
"""

from flowloom.framework.graph import GraphKeys, add_to_collection, get_collection, name_scope


class _Resource:
    """A registered resource: its handle and its create / is-initialized ops."""

    def __init__(self, handle, create, is_initialized):
        self._handle = handle
        self._create = create
        self._is_initialized = is_initialized

    @property
    def handle(self):
        return self._handle

    @property
    def create(self):
        return self._create

    @property
    def is_initialized(self):
        return self._is_initialized


def register_resource(handle, create_op, is_initialized_op, is_shared=True):
    """Adds a resource to the RESOURCES collection (LOCAL_RESOURCES when not shared)."""
    collection = GraphKeys.RESOURCES if is_shared else GraphKeys.LOCAL_RESOURCES
    add_to_collection(collection, _Resource(handle, create_op, is_initialized_op))


def shared_resources():
    """The resources shared across sessions (the RESOURCES collection)."""
    return get_collection(GraphKeys.RESOURCES)


def local_resources():
    """The resources local to a session (the LOCAL_RESOURCES collection)."""
    return get_collection(GraphKeys.LOCAL_RESOURCES)


def _is_initialized_of(resource):
    if hasattr(resource, "is_initialized") and not callable(resource.is_initialized):
        return resource.is_initialized
    return resource.is_initialized()


def report_uninitialized_resources(resource_list=None,
                                   name="report_uninitialized_resources"):
    """A 1-D string tensor with the names of the resources not yet initialized."""
    from flowloom.ops.array import array_ops
    from flowloom.ops.math import math_ops
    from flowloom.framework import dtypes

    if resource_list is None:
        resource_list = shared_resources() + local_resources()
    with name_scope(name):
        if not resource_list:
            return array_ops.constant([], dtype=dtypes.string)
        inited = array_ops.stack([_is_initialized_of(r) for r in resource_list])
        names = array_ops.constant([r.handle.op.name.encode() for r in resource_list])
        return array_ops.boolean_mask(names, math_ops.logical_not(inited))


def initialize_resources(resource_list, name="init"):
    """An op that runs the creators of `resource_list` (resources or resource variables)."""
    from flowloom.ops.control_flow import control_flow_ops

    if resource_list:
        return control_flow_ops.group(*[r.create for r in resource_list], name=name)
    return control_flow_ops.no_op(name=name)
