"""IndexedSlices: a sparse set of rows of a dense tensor (how GatherV2 gradients flow)."""

import collections
import warnings

import numpy as np

from flowloom.framework import tensor_shape, tensor_util
from flowloom.framework.ops import Tensor, register_tensor_conversion_function

_LARGE_SPARSE_NUM_ELEMENTS = 100000000


class IndexedSlices:
    """`tf.IndexedSlices`: the rows `values` of a dense tensor at positions `indices`.

    The dense tensor it stands for is `dense[indices[i], ...] = values[i, ...]` (rows that
    repeat are summed); `dense_shape` is its shape. Gradients of `tf.gather` are
    IndexedSlices, so optimizers can update only the rows that were used.

    Args:
      values: a Tensor, the slices (`[n, ...]`).
      indices: a 1-D integer Tensor of `n` row indices.
      dense_shape: optional 1-D integer Tensor, the dense tensor's shape.
    """

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self):
        return self._values

    @property
    def indices(self):
        return self._indices

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def shape(self):
        """The static TensorShape of the dense tensor."""
        if self._dense_shape is None:
            return tensor_shape.unknown_shape()
        return tensor_util.constant_value_as_shape(self._dense_shape)

    @property
    def name(self):
        return self._values.name

    @property
    def device(self):
        return self._values.device

    @property
    def op(self):
        return self._values.op

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def graph(self):
        return self._values.graph

    def consumers(self):
        return self._values.consumers()

    def _to_components(self):
        """The component tensors (`nest.flatten(..., expand_composites=True)`)."""
        parts = [self._values, self._indices]
        return parts if self._dense_shape is None else parts + [self._dense_shape]

    def _from_components(self, components):
        """An IndexedSlices like this one made of `components`."""
        return IndexedSlices(*components)

    def __str__(self):
        return "IndexedSlices(indices=%s, values=%s%s)" % (
            self._indices, self._values,
            (", dense_shape=%s" % (self._dense_shape,)) if self._dense_shape is not None else "")

    __repr__ = __str__

    def __neg__(self):
        from flowloom.ops.math import math_ops

        return IndexedSlices(math_ops.negative(self._values), self._indices, self._dense_shape)


IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue",
                                            ["values", "indices", "dense_shape"])


def indexed_slices_to_tensor(value, dtype=None, name=None, as_ref=False):
    """The dense Tensor of an IndexedSlices: UnsortedSegmentSum of its rows, as TF builds it.

    Raises:
      ValueError: `dtype` does not match, or `value` has no dense_shape.
    """
    del as_ref
    if dtype is not None and not dtype.is_compatible_with(value.dtype):
        raise ValueError(
            f"Incompatible tensor conversion requested to `dtype` {dtype.name} for "
            f"IndexedSlices ({value}) with dtype {value.dtype.name}")
    if value.dense_shape is None:
        raise ValueError("Tensor conversion requested for IndexedSlices for argument `value` "
                         f"without dense_shape: {value!s}")
    shape_value = tensor_util.constant_value(value.dense_shape)
    if shape_value is not None and np.prod(shape_value) >= _LARGE_SPARSE_NUM_ELEMENTS:
        warnings.warn("Converting sparse IndexedSlices to a dense Tensor with %d elements. "
                      "This may consume a large amount of memory." % np.prod(shape_value))
    from flowloom.ops.math import segment_ops

    return segment_ops.unsorted_segment_sum(value.values, value.indices, value.dense_shape[0],
                                         name=name)


register_tensor_conversion_function(IndexedSlices, indexed_slices_to_tensor)


def session_fetch(value):
    """Session.run fetch support: (parts, combine) giving an IndexedSlicesValue."""
    if value.dense_shape is None:
        return [value.values, value.indices], \
            lambda v: IndexedSlicesValue(v[0], v[1], None)
    return [value.values, value.indices, value.dense_shape], \
        lambda v: IndexedSlicesValue(*v)


def session_feed(key, value):
    """Session.run feed support: an IndexedSlicesValue (or triple) for an IndexedSlices key."""
    parts = [(key.values, value[0]), (key.indices, value[1])]
    if key.dense_shape is not None and len(value) > 2 and value[2] is not None:
        parts.append((key.dense_shape, value[2]))
    return parts


def is_indexed_slices(x):
    return isinstance(x, IndexedSlices)


del Tensor
