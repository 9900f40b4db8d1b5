"""Dense columns: numeric, bucketized, embedding, shared embeddings and indicator."""

import collections
import math

from flowloom.framework import dtypes
from flowloom.framework.graph import add_to_collection, get_collection
from flowloom.framework.sparse_tensor import SparseTensor
from flowloom.framework.tensor_shape import TensorShape
from flowloom.feature_column.core import (_CategoricalColumn, _DenseColumn,
                                          check_default_value)
from flowloom.ops.parsing.parsing_ops import FixedLenFeature


class _NumericColumn(
        _DenseColumn,
        collections.namedtuple("_NumericColumn", ("key", "shape", "default_value", "dtype",
                                                  "normalizer_fn"))):
    """A real-valued feature of a fixed shape per example."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    def _transform_feature(self, inputs):
        from flowloom.ops.math.math_ops import cast

        tensor = inputs.get(self.key)
        if isinstance(tensor, SparseTensor):
            raise ValueError(f"The corresponding Tensor of numerical column must be a Tensor. "
                             f"SparseTensor is not supported. key: {self.key}")
        if self.normalizer_fn is not None:
            tensor = self.normalizer_fn(tensor)
        return cast(tensor, dtypes.float32)

    @property
    def _variable_shape(self):
        return TensorShape(self.shape)

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return inputs.get(self)


def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32,
                   normalizer_fn=None):
    """A column of real values (`shape` per example), cast to float32.

    Example:
      price = numeric_column("price")
      columns = [price, ...]
      dense = input_layer(features, columns)

    Args:
      key: the feature name.
      shape: the shape of one example's value (int or tuple of ints).
      default_value: the value parse_example uses for missing features.
      dtype: the feature's type (a float or integer type).
      normalizer_fn: applied to the raw tensor before the cast.

    Returns:
      A `_NumericColumn`.

    Raises:
      TypeError: if normalizer_fn is not callable, or a scalar default mismatches dtype.
      ValueError: for bad shapes, dtypes or defaults.
    """
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    for d in shape:
        if not isinstance(d, int) or d < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: "
                             f"{key}")
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    default_value = check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Given: {key!r}")
    return _NumericColumn(key, shape, default_value, dtype, normalizer_fn)


class _BucketizedColumn(
        _DenseColumn, _CategoricalColumn,
        collections.namedtuple("_BucketizedColumn", ("source_column", "boundaries"))):
    """A numeric column split into buckets by sorted boundaries."""

    @property
    def name(self):
        return f"{self.source_column.name}_bucketized"

    @property
    def _parse_example_spec(self):
        return self.source_column._parse_example_spec

    def _transform_feature(self, inputs):
        from flowloom.ops.math.bucketize_ops import bucketize
        return bucketize(inputs.get(self.source_column), boundaries=self.boundaries)

    @property
    def _variable_shape(self):
        return TensorShape(tuple(self.source_column.shape) + (len(self.boundaries) + 1,))

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        from flowloom.ops.array.array_ops import one_hot
        return one_hot(inputs.get(self), depth=len(self.boundaries) + 1, on_value=1.,
                       off_value=0.)

    @property
    def _num_buckets(self):
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        from flowloom.ops.array import array_ops
        from flowloom.ops.math import math_ops

        buckets = inputs.get(self)
        batch_size = array_ops.shape(buckets)[0]
        dim = self.source_column.shape[0]
        i1 = array_ops.reshape(array_ops.tile(array_ops.expand_dims(
            math_ops.range_(0, batch_size), 1), [1, dim]), (-1,))
        i2 = array_ops.tile(math_ops.range_(0, dim), [batch_size])
        # Each source dimension has its own range of bucket ids.
        ids = array_ops.reshape(buckets, (-1,)) + (len(self.boundaries) + 1) * i2
        indices = math_ops.cast(array_ops.transpose(array_ops.stack((i1, i2))), dtypes.int64)
        shape = math_ops.cast(array_ops.stack([batch_size, dim]), dtypes.int64)
        return _CategoricalColumn.IdWeightPair(SparseTensor(indices, ids, shape), None)


def bucketized_column(source_column, boundaries):
    """Buckets a 1-D numeric column: bucket i holds boundaries[i-1] <= v < boundaries[i].

    Example:
      age_buckets = bucketized_column(numeric_column("age"), [18, 25, 30, 35])

    Raises:
      ValueError: if the source is not a 1-D numeric column or boundaries are not sorted.
    """
    if not isinstance(source_column, _NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). "
                         f"Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: "
                         f"{source_column}")
    if not boundaries or not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for a, b in zip(boundaries, boundaries[1:]):
        if a >= b:
            raise ValueError("boundaries must be a sorted list.")
    return _BucketizedColumn(source_column, tuple(boundaries))


def _embedding_lookup(column, inputs, weights, categorical):
    from flowloom.ops.nn.safe_embedding import safe_embedding_lookup_sparse

    pair = categorical._get_sparse_tensors(inputs)
    return safe_embedding_lookup_sparse(weights, pair.id_tensor,
                                        sparse_weights=pair.weight_tensor,
                                        combiner=column.combiner, name=f"{column.name}_weights",
                                        max_norm=column.max_norm)


def _load_from_checkpoint(column, weights):
    if column.ckpt_to_load_from is not None:
        from flowloom.train import init_from_checkpoint
        to_restore = weights._get_variable_list() if hasattr(
            weights, "_get_variable_list") else weights
        init_from_checkpoint(column.ckpt_to_load_from,
                             {column.tensor_name_in_ckpt: to_restore})


class _EmbeddingColumn(
        _DenseColumn,
        collections.namedtuple("_EmbeddingColumn", (
            "categorical_column", "dimension", "combiner", "layer_creator", "ckpt_to_load_from",
            "tensor_name_in_ckpt", "max_norm", "trainable", "initializer"))):
    """A dense embedding of a categorical column's ids."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_embedding"

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self):
        return TensorShape([self.dimension])

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        from flowloom.variable_scope import get_variable

        weights = get_variable("embedding_weights",
                               shape=(self.categorical_column._num_buckets, self.dimension),
                               dtype=dtypes.float32, initializer=self.initializer,
                               trainable=self.trainable and trainable is not False,
                               collections=weight_collections)
        _load_from_checkpoint(self, weights)
        return _embedding_lookup(self, inputs, weights, self.categorical_column)


def _check_embedding_args(dimension, initializer, ckpt_to_load_from, tensor_name_in_ckpt,
                          column_name):
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or "
                         "none of them.")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified. Embedding of "
                         f"column_name: {column_name}")
    if initializer is None:
        from flowloom.ops.state.init_ops import truncated_normal_initializer
        initializer = truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(dimension))
    return initializer


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                     trainable=True):
    """A dense column embedding the ids of `categorical_column` in `dimension` floats.

    The variable is `<scope>/<column name>_embedding/embedding_weights` of shape
    [num_buckets, dimension], initialised by default from a truncated normal of stddev
    1/sqrt(dimension). Rows with several ids combine them ('mean', 'sqrtn' or 'sum');
    rows with none give zeros.

    Example:
      video_id = categorical_column_with_identity("video_id", 1000000)
      columns = [embedding_column(video_id, 9), ...]

    Raises:
      ValueError: for a bad dimension, initializer, or half-given checkpoint arguments.
    """
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"categorical_column must be a categorical column. Given: "
                         f"{categorical_column}")
    initializer = _check_embedding_args(dimension, initializer, ckpt_to_load_from,
                                        tensor_name_in_ckpt, categorical_column.name)
    return _EmbeddingColumn(categorical_column, dimension, combiner, None, ckpt_to_load_from,
                            tensor_name_in_ckpt, max_norm, trainable, initializer)


class _SharedEmbeddingColumn(
        _DenseColumn,
        collections.namedtuple("_SharedEmbeddingColumn", (
            "categorical_column", "dimension", "combiner", "initializer",
            "shared_embedding_collection_name", "ckpt_to_load_from", "tensor_name_in_ckpt",
            "max_norm", "trainable"))):
    """An embedding whose variable is shared with other columns (one collection)."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def _var_scope_name(self):
        return self.shared_embedding_collection_name

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self):
        return TensorShape([self.dimension])

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        from flowloom.variable_scope import get_variable

        shape = (self.categorical_column._num_buckets, self.dimension)
        shared = get_collection(self.shared_embedding_collection_name)
        if shared:
            if len(shared) > 1:
                raise ValueError(f"Collection {shared} can only contain one variable. "
                                 f"Suggested fix A: Choose a unique name for this collection. "
                                 f"Suggested fix B: Do not add any variables to this "
                                 f"collection. The feature_column library already adds a "
                                 f"variable under the hood.")
            weights = shared[0]
            if tuple(weights.get_shape().as_list()) != shape:
                raise ValueError(f"Shared embedding collection "
                                 f"{self.shared_embedding_collection_name} contains variable "
                                 f"{weights.name} of unexpected shape {weights.get_shape()}. "
                                 f"Expected shape is {shape}.")
        else:
            weights = get_variable("embedding_weights", shape=shape, dtype=dtypes.float32,
                                   initializer=self.initializer,
                                   trainable=self.trainable and trainable is not False,
                                   collections=weight_collections)
            add_to_collection(self.shared_embedding_collection_name, weights)
        _load_from_checkpoint(self, weights)
        return _embedding_lookup(self, inputs, weights, self.categorical_column)


def shared_embedding_columns(categorical_columns, dimension, combiner="mean", initializer=None,
                             shared_embedding_collection_name=None, ckpt_to_load_from=None,
                             tensor_name_in_ckpt=None, max_norm=None, trainable=True):
    """Embedding columns of several categorical columns sharing one embedding variable.

    The variable lives under the collection name (by default the sorted column names joined
    with '_' plus '_shared_embedding'): `<scope>/<collection name>/embedding_weights`.

    Returns:
      A list of dense columns, in the order of `categorical_columns`.

    Raises:
      ValueError: if the columns are not categorical, differ in type or bucket count.
    """
    initializer = _check_embedding_args(dimension, initializer, ckpt_to_load_from,
                                        tensor_name_in_ckpt, "shared")
    columns = list(categorical_columns)
    if not columns:
        raise ValueError("categorical_columns must not be empty.")
    first = columns[0]
    for c in columns:
        if not isinstance(c, _CategoricalColumn):
            raise ValueError(f"All categorical_columns must be subclasses of "
                             f"_CategoricalColumn. Given: {c}, of type: {type(c)}")
        base_c = getattr(c, "categorical_column", c)
        base_0 = getattr(first, "categorical_column", first)
        if type(base_c) is not type(base_0):
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must "
                             f"have the same type, or be weighted_categorical_column of the "
                             f"same type. Given column: {first} of type: {type(first)} does "
                             f"not match given column: {c} of type: {type(c)}")
        if c._num_buckets != first._num_buckets:
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must "
                             f"have the same number of buckets. Given column: {first} with "
                             f"buckets: {first._num_buckets} does not match column: {c} "
                             f"with buckets: {c._num_buckets}")
    if not shared_embedding_collection_name:
        names = [c.name for c in sorted(columns, key=lambda c: c.name)]
        shared_embedding_collection_name = "_".join(names) + "_shared_embedding"
    return [_SharedEmbeddingColumn(c, dimension, combiner, initializer,
                                   shared_embedding_collection_name, ckpt_to_load_from,
                                   tensor_name_in_ckpt, max_norm, trainable) for c in columns]


class _IndicatorColumn(
        _DenseColumn,
        collections.namedtuple("_IndicatorColumn", ("categorical_column",))):
    """A multi-hot [num_buckets] vector of a categorical column's ids (or their weights)."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_indicator"

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    @property
    def _variable_shape(self):
        return TensorShape([1, self.categorical_column._num_buckets])

    def _transform_feature(self, inputs):
        from flowloom.ops.array import array_ops
        from flowloom.ops.array.sparse_ops import sparse_tensor_to_dense
        from flowloom.ops.math import math_ops

        pair = self.categorical_column._get_sparse_tensors(inputs)
        ids, weights = pair.id_tensor, pair.weight_tensor
        depth = self.categorical_column._num_buckets
        if weights is not None:
            # Each row sums its ids' weights (ids < 0 are dropped).
            rows = ids.indices[:, 0]
            valid = math_ops.greater_equal(ids.values, 0)
            keep = array_ops.reshape(array_ops.where(valid), [-1])
            flat = array_ops.gather(rows * depth + ids.values, keep)
            total = math_ops.cast(ids.dense_shape[0], dtypes.int64) * depth
            from flowloom.ops.math.math_ops import unsorted_segment_sum
            summed = unsorted_segment_sum(array_ops.gather(weights.values, keep), flat, total)
            return array_ops.reshape(summed, array_ops.stack(
                [math_ops.cast(ids.dense_shape[0], dtypes.int32), depth]))
        dense_ids = sparse_tensor_to_dense(ids, default_value=-1)
        one_hot = array_ops.one_hot(dense_ids, depth=depth, on_value=1.0, off_value=0.0)
        return math_ops.reduce_sum(one_hot, axis=[-2])

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return inputs.get(self)


def indicator_column(categorical_column):
    """A dense multi-hot column of `categorical_column` (weights summed when weighted).

    Raises:
      ValueError: if the column is not categorical.
    """
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"Unsupported input type. Input must be a _CategoricalColumn. Given: "
                         f"{categorical_column}")
    return _IndicatorColumn(categorical_column)
