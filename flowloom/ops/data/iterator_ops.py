"""tf.data's iterator ops: IteratorV2 (a resource the session owns), MakeIterator,
IteratorGetNext, OneShotIterator, and string handles (IteratorToStringHandle,
IteratorFromStringHandleV2)."""

import threading

from flowloom.framework import common_shapes, errors, tensor_shape
from flowloom.framework.op_def import defop


class IteratorResource:
    """An iterator's state: the element generator of the dataset it was last initialized with."""

    def __init__(self, name, output_types, output_shapes):
        self.name = name
        self.output_types = list(output_types or [])
        self.output_shapes = list(output_shapes or [])
        self._elements = None
        self._lock = threading.Lock()

    def initialize(self, dataset, op):
        from flowloom.ops.data.dataset_values import DatasetValue

        if not isinstance(dataset, DatasetValue):
            raise errors.InvalidArgumentError(None, op, "MakeIterator needs a dataset")
        with self._lock:
            old = self._elements
            self._elements = dataset.iterate()
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


def _iterator(ctx, name):
    key = ("iterator", name or ctx.op._name)
    with ctx.session._lock:
        res = ctx.resources.get(key)
        if res is None:
            attrs = ctx.op._attrs
            res = ctx.resources[key] = IteratorResource(
                key[1], attrs.get("output_types"), attrs.get("output_shapes"))
    return res


_ITER_ATTRS = {"shared_name": "", "container": "", "output_types": None, "output_shapes": None}

IteratorV2 = defop("IteratorV2", outputs=["handle: resource"], attrs=_ITER_ATTRS,
                   stateful=True)
IteratorV2.shape(common_shapes.scalar_shape)
IteratorV2.no_gradient()


@IteratorV2.kernel
def _(xp, *, shared_name, container, output_types, output_shapes, ctx):
    return _iterator(ctx, shared_name)


# flowloom's one-shot iterator takes its dataset as an input (TF's builds it in a function
# attr): initialized by its first run in a session, then left alone.
OneShotIterator = defop("OneShotIterator", inputs=["dataset: variant"],
                        outputs=["handle: resource"], attrs=_ITER_ATTRS, stateful=True)
OneShotIterator.shape(common_shapes.scalar_shape)
OneShotIterator.no_gradient()


@OneShotIterator.kernel
def _(xp, dataset, *, shared_name, container, output_types, output_shapes, ctx):
    res = _iterator(ctx, shared_name)
    if not ctx.state.get("initialized"):
        res.initialize(dataset, ctx.op)
        ctx.state["initialized"] = True
    return res


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

    return np.array(handle.name.encode("utf-8"), dtype=object)


IteratorFromStringHandleV2 = defop("IteratorFromStringHandleV2", inputs=["string_handle: string"],
                                   outputs=["resource_handle: resource"],
                                   attrs={"output_types": [], "output_shapes": []}, stateful=True)
IteratorFromStringHandleV2.shape(common_shapes.scalar_shape)
IteratorFromStringHandleV2.no_gradient()


@IteratorFromStringHandleV2.kernel
def _(xp, string_handle, *, output_types, output_shapes, ctx):
    import numpy as np

    name = np.asarray(string_handle).item()
    name = name.decode("utf-8") if isinstance(name, bytes) else str(name)
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
