"""SparseTensor: a tensor given by the indices, values and dense shape of its non-zeros.

In a graph it is three Tensors; `Session.run` fetches it as a `SparseTensorValue` and feeds
it from a `SparseTensorValue` or an `(indices, values, dense_shape)` tuple, as TF1 does.
"""

import collections

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape
from flowloom.framework.tensor_util import constant_value_as_shape

SparseTensorValue = collections.namedtuple("SparseTensorValue",
                                           ["indices", "values", "dense_shape"])


class SparseTensor:
    """A sparse tensor (`tf.SparseTensor`): `indices` [N, ndims] int64, `values` [N],
    `dense_shape` [ndims] int64.

    Example:
      st = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
      sess.run(st)   # SparseTensorValue(indices=array(...), values=..., dense_shape=...)

    Raises:
      ValueError: if the static shapes of the three parts disagree.
    """

    @classmethod
    def from_value(cls, sparse_tensor_value):
        """A SparseTensor of constants from a `SparseTensorValue` (or a SparseTensor)."""
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        return cls(indices=sparse_tensor_value.indices, values=sparse_tensor_value.values,
                   dense_shape=sparse_tensor_value.dense_shape)

    def __init__(self, indices, values, dense_shape):
        with name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            indices = convert_to_tensor(indices, name="indices", dtype=dtypes.int64)
            values = convert_to_tensor(values, name="values")
            dense_shape = convert_to_tensor(dense_shape, name="dense_shape",
                                            dtype=dtypes.int64)
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape
        self._dense_shape_default = constant_value_as_shape(dense_shape)
        indices_shape = indices.shape.with_rank(2)
        values_shape = values.shape.with_rank(1)
        dense_shape_shape = dense_shape.shape.with_rank(1)
        indices_shape[0].assert_is_compatible_with(values_shape[0])
        indices_shape[1].assert_is_compatible_with(dense_shape_shape[0])

    @property
    def indices(self):
        """The int64 [N, ndims] tensor of the non-zero positions."""
        return self._indices

    @property
    def values(self):
        """The [N] tensor of the non-zero values."""
        return self._values

    @property
    def dense_shape(self):
        """The int64 [ndims] tensor of the dense shape."""
        return self._dense_shape

    def _to_components(self):
        """The component tensors (`nest.flatten(..., expand_composites=True)`)."""
        return [self._indices, self._values, self._dense_shape]

    def _from_components(self, components):
        """A SparseTensor made of `components` (indices, values, dense_shape)."""
        return SparseTensor(*components)

    @property
    def op(self):
        return self._values.op

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def graph(self):
        return self._indices.graph

    @property
    def shape(self):
        """The static dense shape, as far as it is known."""
        return self._dense_shape_default

    def get_shape(self):
        return self._dense_shape_default

    def set_shape(self, shape):
        """Merges `shape` into the static dense shape (ValueError if incompatible)."""
        if not isinstance(shape, TensorShape):
            shape = TensorShape(shape)
        self._dense_shape_default = self._dense_shape_default.merge_with(shape)

    def consumers(self):
        return list({op for t in (self._indices, self._values, self._dense_shape)
                     for op in t.consumers()})

    def with_values(self, new_values):
        """A SparseTensor with the same indices and shape and `new_values`."""
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def eval(self, feed_dict=None, session=None):
        """Evaluates to a `SparseTensorValue` in `session` (or the default session)."""
        from flowloom.runtime.session import _session_for

        return _session_for(session, self.graph).run(self, feed_dict)

    def __repr__(self):
        return "SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (
            self._indices, self._values, self._dense_shape)


def is_sparse(x):
    """True for a SparseTensor or SparseTensorValue."""
    return isinstance(x, (SparseTensor, SparseTensorValue))


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """Returns a SparseTensor for sparse values, else `convert_to_tensor(value)`."""
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise RuntimeError(f"Sparse dtype: requested = {dtype}, actual = "
                               f"{value.dtype.name}")
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def _fetch(sparse):
    parts = [sparse.indices, sparse.values, sparse.dense_shape]
    return parts, lambda values: SparseTensorValue(*values)


def _feed(sparse, value):
    if isinstance(value, SparseTensor):
        raise TypeError("The value of a feed cannot be a tf.SparseTensor object.")
    if not isinstance(value, (tuple, list)) or not 1 <= len(value) <= 3:
        raise TypeError("A SparseTensor must be fed a SparseTensorValue or an "
                        "(indices, values[, dense_shape]) tuple, got %r" % (value,))
    # As TF 1.15 (it zips the parts with the value): a shorter tuple feeds the first parts
    # only, so a sparse_placeholder with a Const dense_shape is fed (indices, values).
    parts = [(sparse.indices, np.asarray(value[0], dtype=np.int64))]
    if len(value) > 1:
        parts.append((sparse.values, value[1]))
    if len(value) > 2:
        parts.append((sparse.dense_shape, np.asarray(value[2], dtype=np.int64)))
    return parts


def _register():
    from flowloom.runtime.session import register_session_run_conversion_functions

    register_session_run_conversion_functions(SparseTensor, _fetch, _feed)


_register()


def sparse_placeholder(dtype, shape=None, name=None):
    """A SparseTensor of placeholders, fed with a `SparseTensorValue` (`tf.sparse_placeholder`).

    Args:
      dtype: the type of the values.
      shape: the dense shape (None: fed with the value; entries may be None).
      name: prefix of the placeholders' names (`name/values`, `name/indices`, `name/shape`).

    Returns:
      A `SparseTensor`.
    """
    from flowloom.ops.array import array_ops

    def sub(part):
        return None if name is None else f"{name}/{part}"

    # TF 1.15's rule: a fully given shape (entries may be -1) is a Const `name/shape`, whose
    # value gives the static shape; a shape with None entries, or none, is a placeholder.
    if shape is None:
        rank = None
        dense_shape = array_ops.placeholder(dtypes.int64, shape=[None], name=sub("shape"))
    else:
        rank = shape.get_shape()[0] if isinstance(shape, Tensor) else len(shape)
        if isinstance(shape, Tensor) or not any(d is None for d in shape):
            dense_shape = convert_to_tensor(shape, dtype=dtypes.int64, name=sub("shape"))
        else:
            dense_shape = array_ops.placeholder(dtypes.int64, shape=[rank], name=sub("shape"))
    return SparseTensor(
        values=array_ops.placeholder(dtype, shape=[None], name=sub("values")),
        indices=array_ops.placeholder(dtypes.int64, shape=[None, rank], name=sub("indices")),
        dense_shape=dense_shape)
