"""The structure of a dataset's elements: nested tuples/dicts of (dtype, shape) leaves."""

from flowloom.framework import dtypes, nest
from flowloom.framework.tensor_shape import TensorShape, as_shape


class TensorSpec:
    """One component of an element: its dtype and (partial) static shape."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype, shape):
        self.dtype = dtypes.as_dtype(dtype)
        self.shape = as_shape(shape) if shape is not None else TensorShape(None)

    def __repr__(self):
        return f"TensorSpec({self.shape}, {self.dtype.name})"


class DatasetSpec:
    """A component that is itself a dataset (the elements of `window`)."""

    __slots__ = ("element_spec",)
    dtype = dtypes.variant
    shape = TensorShape([])

    def __init__(self, element_spec):
        self.element_spec = element_spec


def _is_leaf(x):
    return isinstance(x, (TensorSpec, DatasetSpec))


def flatten(spec):
    return nest.flatten(spec)


def pack(spec, flat):
    return nest.pack_sequence_as(spec, list(flat))


def types(spec):
    return nest.map_structure(lambda s: s.dtype, spec)


def shapes(spec):
    return nest.map_structure(lambda s: s.shape, spec)


def classes(spec):
    from flowloom.framework.ops import Tensor

    def cls(s):
        if isinstance(s, DatasetSpec):
            from flowloom.data.dataset import Dataset

            return Dataset
        return Tensor
    return nest.map_structure(cls, spec)


def from_types_and_shapes(output_types, output_shapes=None):
    """A spec from `output_types` and `output_shapes` as Iterator.from_structure takes them."""
    if output_shapes is None:
        output_shapes = nest.map_structure(lambda _: None, output_types)
    flat_t = nest.flatten(output_types)
    flat_s = nest.flatten_up_to(output_types, output_shapes) if nest.is_nested(output_types) \
        else [output_shapes]
    return nest.pack_sequence_as(output_types, [TensorSpec(t, s)
                                                for t, s in zip(flat_t, flat_s)])


def compatible(a, b):
    """Whether the elements of spec `b` can flow through an iterator made for spec `a`."""
    try:
        nest.assert_same_structure(a, b, check_types=False)
    except (ValueError, TypeError):
        return False
    for x, y in zip(flatten(a), flatten(b)):
        if x.dtype != y.dtype or not x.shape.is_compatible_with(y.shape):
            return False
    return True


def most_specific_common(a, b):
    """The spec both `a` and `b` fit (for `concatenate`)."""
    flat = [TensorSpec(x.dtype, _common_shape(x.shape, y.shape))
            for x, y in zip(flatten(a), flatten(b))]
    return pack(a, flat)


def _common_shape(s1, s2):
    if s1.ndims is None or s2.ndims is None or s1.ndims != s2.ndims:
        return TensorShape(None)
    return TensorShape([d1 if d1 == d2 else None
                        for d1, d2 in zip(s1.as_list(), s2.as_list())])


def op_attrs(spec):
    """The `output_types` / `output_shapes` attrs of a dataset or iterator op for `spec`."""
    flat = flatten(spec)
    return {"output_types": [s.dtype for s in flat], "output_shapes": [s.shape for s in flat]}


class HasElementSpec:
    """`output_types`, `output_shapes`, `output_classes` (TF1's names) from `element_spec`."""

    @property
    def output_types(self):
        return types(self.element_spec)

    @property
    def output_shapes(self):
        return shapes(self.element_spec)

    @property
    def output_classes(self):
        return classes(self.element_spec)
