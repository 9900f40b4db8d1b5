"""The feature-column base classes, the transformation cache and the sparse helpers.

A feature column describes how one raw feature (or several) becomes model input. Columns are
value objects (namedtuples, as in TF: two columns built with the same arguments are equal).
`_LazyBuilder` turns a features dict into tensors on demand and caches each column's
transformation, so a column used twice (by an embedding and a cross) is computed once.

Column kinds:
  _DenseColumn: gives a dense float tensor (`_get_dense_tensor`, `_variable_shape`).
  _CategoricalColumn: gives sparse int64 ids and optional weights (`_get_sparse_tensors`,
    `_num_buckets`).
"""

import collections

from flowloom.framework import dtypes
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.sparse_tensor import SparseTensor, SparseTensorValue


class _FeatureColumn:
    """A feature column: `name`, `_parse_example_spec`, `_transform_feature(inputs)`."""

    @property
    def _var_scope_name(self):
        return self.name


class _DenseColumn(_FeatureColumn):
    """A column giving a dense tensor of `_variable_shape` per example."""


class _CategoricalColumn(_FeatureColumn):
    """A column giving sparse ids in [0, `_num_buckets`) (and optional weights)."""

    IdWeightPair = collections.namedtuple("IdWeightPair", ("id_tensor", "weight_tensor"))

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return _CategoricalColumn.IdWeightPair(inputs.get(self), None)


def _is_sparse(value):
    return isinstance(value, (SparseTensor, SparseTensorValue))


def convert_to_tensor_or_sparse_tensor(value):
    if isinstance(value, SparseTensorValue):
        return SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        return value
    return convert_to_tensor(value)


class _LazyBuilder:
    """Builds (once each) the tensors of raw features and transformed columns.

    `get(key)` with a string gives the raw feature, rank-1 features expanded to [batch, 1];
    with a column it gives the column's transformation.
    """

    def __init__(self, features):
        self._features = dict(features)
        self._cache = {}

    def get(self, key):
        if key in self._cache:
            return self._cache[key]
        if isinstance(key, str):
            value = self._raw_feature(key)
        elif isinstance(key, _FeatureColumn):
            value = key._transform_feature(self)
            if value is None:
                raise ValueError(f"Column {key} is not supported.")
        else:
            raise TypeError(f"Input of _LazyBuilder.get must be a string or _FeatureColumn. "
                            f"Given type: {type(key)}")
        self._cache[key] = value
        return value

    def _raw_feature(self, key):
        if key not in self._features:
            raise ValueError(f"Feature {key} is not in features dictionary.")
        feature = convert_to_tensor_or_sparse_tensor(self._features[key])
        rank = feature.get_shape().ndims
        if rank is None:
            raise NotImplementedError(f"feature_column with a feature of unknown rank "
                                      f"(key: {key})")
        if rank == 0:
            raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {feature}")
        if rank != 1:
            return feature
        from flowloom.ops.array import array_ops
        if isinstance(feature, SparseTensor):
            from flowloom.ops.array.sparse_reshape_ops import sparse_reshape
            return sparse_reshape(feature, array_ops.stack(
                [feature.dense_shape[0], convert_to_tensor(1, dtypes.int64)]))
        return array_ops.expand_dims(feature, -1)


def to_sparse_input_and_drop_ignore_values(input_tensor, ignore_value=None):
    """A SparseTensor of `input_tensor` without its `ignore_value` entries ('' for strings,
    -1 for integers, 0 otherwise); a SparseTensor is returned as it is."""
    from flowloom.ops.array import array_ops
    from flowloom.ops.math import math_ops

    input_tensor = convert_to_tensor_or_sparse_tensor(input_tensor)
    if isinstance(input_tensor, SparseTensor):
        return input_tensor
    with name_scope(None, "to_sparse_input", (input_tensor,)):
        if ignore_value is None:
            if input_tensor.dtype == dtypes.string:
                ignore_value = ""
            elif input_tensor.dtype.is_integer:
                ignore_value = -1
            else:
                ignore_value = 0
        ignore = convert_to_tensor(ignore_value, dtype=input_tensor.dtype, name="ignore_value")
        indices = array_ops.where(math_ops.not_equal(input_tensor, ignore), name="indices")
        return SparseTensor(indices=indices,
                            values=array_ops.gather_nd(input_tensor, indices, name="values"),
                            dense_shape=array_ops.shape(input_tensor, out_type=dtypes.int64,
                                                        name="dense_shape"))


def assert_string_or_int(dtype, prefix):
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype}.")


def check_default_value(shape, default_value, dtype, key):
    """The default of a numeric column as a nested tuple of `shape`, or None.

    Raises:
      ValueError: if it is not a number or does not fit `shape`.
    """
    import numpy as np

    if default_value is None:
        return None
    if isinstance(default_value, (int, float)) and not isinstance(default_value, bool):
        if not (dtype.is_integer or dtype.is_floating) or (
                dtype.is_integer and isinstance(default_value, float)):
            raise TypeError(f"If default_value is a scalar, it must be compatible with dtype. "
                            f"default_value: {default_value}, dtype: {dtype}, key: {key}")
        return _as_tuple(np.full(shape, default_value).tolist()) if shape else default_value
    try:
        array = np.asarray(default_value, dtype=dtype.as_numpy_dtype)
    except (TypeError, ValueError):
        raise ValueError(f"default_value must be compatible with dtype. default_value: "
                         f"{default_value}, dtype: {dtype}, key: {key}") from None
    if array.shape != tuple(shape):
        raise ValueError(f"The shape of default_value must be equal to given shape. "
                         f"default_value: {default_value}, shape: {shape}, key: {key}")
    return _as_tuple(array.tolist())


def _as_tuple(value):
    # Columns are hashable value objects: nested lists become nested tuples.
    return tuple(_as_tuple(v) for v in value) if isinstance(value, list) else value


def is_tensor_like(value):
    return isinstance(value, (Tensor, SparseTensor))
