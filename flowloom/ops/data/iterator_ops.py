"""tf.data's iterator ops: IteratorV2 (a resource the session owns), MakeIterator,
IteratorGetNext, OneShotIterator, and string handles (IteratorToStringHandle,
IteratorFromStringHandleV2)."""

import itertools
import threading

from flowloom.framework import common_shapes, errors, tensor_shape
from flowloom.framework.op_def import defop

# TF's resource handles name an iterator's C++ type; its hash code is that type's.
_TYPE_NAME = "N10tensorflow4data16IteratorResourceE"
_TYPE_HASH = 4245265473542939912
_CONTAINER = "localhost"
_private_names = itertools.count()  # an iterator of shared_name "" is "_<n>_<op name>", as TF's


class IteratorResource:
    """An iterator's state: the element generator of the dataset it was last initialized with."""

    def __init__(self, name, output_types, output_shapes, device=""):
        self.name = name
        self.device = device
        self.output_types = list(output_types or [])
        self.output_shapes = list(output_shapes or [])
        self._elements = None
        self._lock = threading.Lock()
        # What a saved state records (ops/data/iterator_state.py): the dataset, the random
        # state of its parts when this iteration began, the elements handed out since.
        self.dataset = None
        self.start_state = None
        self.produced = 0

    def initialize(self, dataset, op, produced=0, start_state=None):
        """Starts iterating `dataset` (after skipping `produced` elements, its random parts
        set to `start_state` first: a restored state)."""
        from flowloom.ops.data import iterator_state
        from flowloom.ops.data.dataset_values import DatasetValue

        if not isinstance(dataset, DatasetValue):
            raise errors.InvalidArgumentError(None, op, "MakeIterator needs a dataset")
        with self._lock:
            if start_state is not None:
                iterator_state.set_random_state(dataset, start_state, op)
            old = self._elements
            self.dataset, self.start_state = dataset, iterator_state.random_state(dataset)
            self._elements = dataset.iterate()
            self.produced = 0
            for _ in range(produced):
                if next(self._elements, None) is None:
                    break
                self.produced += 1
        if old is not None:
            old.close()  # stops its background threads (prefetch, parallel map)

    def get_next(self, op):
        with self._lock:
            if self._elements is None:
                raise errors.FailedPreconditionError(
                    None, op, "GetNext() failed because the iterator has not been initialized. "
                    "Ensure that you have run the initializer operation for this iterator "
                    "before getting the next element.")
            try:
                element = next(self._elements)
            except StopIteration:
                raise errors.OutOfRangeError(None, op, "End of sequence") from None
            self.produced += 1
        if len(element) != len(self.output_types):
            raise errors.InvalidArgumentError(
                None, op, f"The iterator produced {len(element)} components, expected "
                f"{len(self.output_types)}.")
        for k, (value, dtype) in enumerate(zip(element, self.output_types)):
            want = dtype.as_numpy_dtype if dtype.name not in ("string", "variant") else object
            if getattr(value, "dtype", None) is not None and want is not object and \
                    value.dtype != want:
                raise errors.InvalidArgumentError(
                    None, op, f"Component {k}: expected {dtype.name}, got {value.dtype}.")
        return list(element)

    def session_closed(self):
        with self._lock:
            if self._elements is not None:
                self._elements.close()
                self._elements = None


def _iterator(ctx, shared_name):
    """The session's iterator of this op: shared by `shared_name`, else private to the op."""
    with ctx.session._lock:
        name = shared_name or ctx.state.get("iterator_name")
        if name is None:
            name = ctx.state["iterator_name"] = f"_{next(_private_names)}_{ctx.op._name}"
        key = ("iterator", name)
        res = ctx.resources.get(key)
        if res is None:
            attrs = ctx.op._attrs
            placer = getattr(ctx.session, "_placer", None)
            device = placer.placement.get(ctx.op) if placer is not None else None
            res = ctx.resources[key] = IteratorResource(
                name, attrs.get("output_types"), attrs.get("output_shapes"),
                getattr(device, "name", "") or "")
    return res


_ITER_ATTRS = {"shared_name": "", "container": "", "output_types": None, "output_shapes": None}

IteratorV2 = defop("IteratorV2", outputs=["handle: resource"], attrs=_ITER_ATTRS,
                   stateful=True)
IteratorV2.shape(common_shapes.scalar_shape)
IteratorV2.no_gradient()


@IteratorV2.kernel
def _(xp, *, shared_name, container, output_types, output_shapes, ctx):
    return _iterator(ctx, shared_name)


# A one-shot iterator is initialized by its first run in a session, then left alone. TF's
# builds its dataset by calling the function its `dataset_factory` attr names (a GraphDef
# written by TF); flowloom's takes the dataset as an input (N = 1).
OneShotIterator = defop("OneShotIterator", inputs=["dataset: N * variant"],
                        outputs=["handle: resource"],
                        attrs=dict(_ITER_ATTRS, N=0, dataset_factory=None), stateful=True)
OneShotIterator.shape(common_shapes.scalar_shape)
OneShotIterator.no_gradient()


@OneShotIterator.kernel
def _(xp, *dataset, shared_name, container, output_types, output_shapes, N,  # noqa: N803
      dataset_factory, ctx):
    res = _iterator(ctx, shared_name)
    if not ctx.state.get("initialized"):
        res.initialize(dataset[0] if dataset else _factory_dataset(ctx, dataset_factory),
                       ctx.op)
        ctx.state["initialized"] = True
    return res


def _factory_dataset(ctx, factory):
    from flowloom.graph_function import runtime

    name = getattr(getattr(factory, "func", factory), "name", factory)
    body = runtime.lookup(ctx.op._graph, name) if name else None
    if body is None:
        raise errors.NotFoundError(
            None, ctx.op, f"OneShotIterator has no dataset: its dataset_factory {name!r} is "
            "not in the graph's function library")
    return body.call(ctx, [])[0]


MakeIterator = defop("MakeIterator", inputs=["dataset: variant", "iterator: resource"],
                     stateful=True)
MakeIterator.shape(lambda op: [])
MakeIterator.no_gradient()


@MakeIterator.kernel
def _(xp, dataset, iterator, *, ctx):
    iterator.initialize(dataset, ctx.op)
    return ()


IteratorGetNext = defop("IteratorGetNext", inputs=["iterator: resource"],
                        outputs=["components: list(output_types)"],
                        attrs={"output_types": None, "output_shapes": None}, stateful=True)
IteratorGetNext.no_gradient()


@IteratorGetNext.shape
def _(op):
    shapes = op._attrs.get("output_shapes") or []
    return [tensor_shape.as_shape(s) for s in shapes] or \
        [tensor_shape.unknown_shape() for _ in op._attrs["output_types"]]


@IteratorGetNext.kernel
def _(xp, iterator, *, output_types, output_shapes, ctx):
    return iterator.get_next(ctx.op)


IteratorToStringHandle = defop("IteratorToStringHandle", inputs=["resource_handle: resource"],
                               outputs=["string_handle: string"], stateful=True)
IteratorToStringHandle.shape(common_shapes.scalar_shape)
IteratorToStringHandle.no_gradient()


@IteratorToStringHandle.kernel
def _(xp, handle):
    import numpy as np

    from flowloom.proto import resource_handle_pb2

    proto = resource_handle_pb2.ResourceHandleProto(
        device=handle.device, container=_CONTAINER, name=handle.name, hash_code=_TYPE_HASH,
        maybe_type_name=_TYPE_NAME)
    return np.array(proto.SerializeToString(), dtype=object)


def _handle_name(value, op):
    """The iterator name in a string handle (a serialized ResourceHandleProto)."""
    from google.protobuf.message import DecodeError

    from flowloom.proto import resource_handle_pb2

    proto = resource_handle_pb2.ResourceHandleProto()
    try:
        proto.ParseFromString(value if isinstance(value, bytes) else str(value).encode())
    except DecodeError:
        proto.Clear()
    if not proto.name or (proto.maybe_type_name and proto.maybe_type_name != _TYPE_NAME):
        raise errors.InvalidArgumentError(
            None, op, f"Could not parse an iterator's string handle from {value!r}")
    return proto.name


IteratorFromStringHandleV2 = defop("IteratorFromStringHandleV2", inputs=["string_handle: string"],
                                   outputs=["resource_handle: resource"],
                                   attrs={"output_types": [], "output_shapes": []}, stateful=True)
IteratorFromStringHandleV2.shape(common_shapes.scalar_shape)
IteratorFromStringHandleV2.no_gradient()


@IteratorFromStringHandleV2.kernel
def _(xp, string_handle, *, output_types, output_shapes, ctx):
    import numpy as np

    name = _handle_name(np.asarray(string_handle).item(), ctx.op)
    res = ctx.resources.get(("iterator", name))
    if res is None:
        raise errors.InvalidArgumentError(None, ctx.op, f"No iterator for string handle "
                                          f"'{name}' in this session")
    if output_types and [t.name for t in output_types] != [t.name for t in res.output_types]:
        raise errors.InvalidArgumentError(
            None, ctx.op, "The iterator's types do not match: expected "
            f"{[t.name for t in output_types]}, the handle's are "
            f"{[t.name for t in res.output_types]}")
    return res
