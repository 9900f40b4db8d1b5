"""Categorical columns: vocabulary list/file, identity, hash bucket, weighted and crossed.

Each gives sparse int64 ids: raw dense inputs first become sparse without their ignore value
('' for strings, -1 for integers); hashing is TF's (`Fingerprint64 % buckets`, integer inputs
hashed as their decimal strings) and crossing is TF's `SparseCross` fingerprint, so the ids
equal TF's for the same inputs.
"""

import collections

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.sparse_tensor import SparseTensor
from flowloom.feature_column.core import (_CategoricalColumn, _FeatureColumn,
                                          assert_string_or_int,
                                          convert_to_tensor_or_sparse_tensor,
                                          to_sparse_input_and_drop_ignore_values)
from flowloom.ops.parsing.parsing_ops import VarLenFeature
from flowloom.io import file_system

_DEFAULT_HASH_KEY = 0xDECAFCAFFE


def _cast(x, dtype, name=None):
    from flowloom.ops.math.math_ops import cast
    return cast(x, dtype, name=name)


def _check_key(key):
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Given: {key!r}")


def _check_compatible(key, column_dtype, tensor_dtype):
    if column_dtype.is_integer != tensor_dtype.is_integer:
        raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: {key}, "
                         f"column dtype: {column_dtype}, tensor dtype: {tensor_dtype}")


class _HashedCategoricalColumn(
        _CategoricalColumn,
        collections.namedtuple("_HashedCategoricalColumn", ("key", "hash_bucket_size", "dtype"))):
    """Ids `Fingerprint64(str(value)) % hash_bucket_size`."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    @property
    def _num_buckets(self):
        return self.hash_bucket_size

    def _transform_feature(self, inputs):
        from flowloom.ops.strings.hash_ops import as_string, string_to_hash_bucket_fast

        input_tensor = to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        assert_string_or_int(input_tensor.dtype, f"column_name: {self.key} input_tensor")
        _check_compatible(self.key, self.dtype, input_tensor.dtype)
        values = input_tensor.values
        if self.dtype != dtypes.string:
            values = as_string(values)
        ids = string_to_hash_bucket_fast(values, self.hash_bucket_size, name="lookup")
        return SparseTensor(input_tensor.indices, ids, input_tensor.dense_shape)


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """A categorical column hashing string (or integer) values into `hash_bucket_size` ids.

    Example:
      keywords = categorical_column_with_hash_bucket("keywords", 10000)
      columns = [embedding_column(keywords, 16), ...]

    Args:
      key: the feature name.
      hash_bucket_size: the number of buckets (>= 1).
      dtype: the feature's dtype, string or an integer type (hashed as decimal strings).

    Returns:
      A `_HashedCategoricalColumn`.

    Raises:
      ValueError: for a bad hash_bucket_size or dtype.
    """
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: "
                         f"{hash_bucket_size}, key: {key}")
    _check_key(key)
    dtype = dtypes.as_dtype(dtype)
    assert_string_or_int(dtype, prefix=f"column_name: {key}")
    return _HashedCategoricalColumn(key, hash_bucket_size, dtype)


class _VocabularyListCategoricalColumn(
        _CategoricalColumn,
        collections.namedtuple("_VocabularyListCategoricalColumn",
                               ("key", "vocabulary_list", "dtype", "default_value",
                                "num_oov_buckets"))):
    """Ids from the position of each value in an in-memory vocabulary."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    @property
    def _num_buckets(self):
        return len(self.vocabulary_list) + self.num_oov_buckets

    def _transform_feature(self, inputs):
        from flowloom.ops.lookup.tables import index_table_from_tensor

        input_tensor = to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        _check_compatible(self.key, self.dtype, input_tensor.dtype)
        assert_string_or_int(input_tensor.dtype, f"column_name: {self.key} input_tensor")
        key_dtype = self.dtype
        if input_tensor.dtype.is_integer:
            key_dtype = dtypes.int64
            input_tensor = SparseTensor(input_tensor.indices,
                                        _cast(input_tensor.values, dtypes.int64),
                                        input_tensor.dense_shape)
        table = index_table_from_tensor(
            vocabulary_list=tuple(self.vocabulary_list), default_value=self.default_value,
            num_oov_buckets=self.num_oov_buckets, dtype=key_dtype, name=f"{self.key}_lookup")
        return table.lookup(input_tensor)


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1,
                                            num_oov_buckets=0):
    """A categorical column whose ids are positions in `vocabulary_list`.

    Out-of-vocabulary values get `default_value` (-1: dropped by the consumers), or one of
    `num_oov_buckets` hash buckets after the vocabulary.

    Example:
      colors = categorical_column_with_vocabulary_list("colors", ("R", "G", "B"),
                                                       num_oov_buckets=2)

    Raises:
      ValueError: for an empty or duplicated vocabulary, bad buckets or mismatched dtypes.
    """
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: "
                         f"{key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: "
                         f"{key}")
    vocabulary_dtype = dtypes.as_dtype(np.array(vocabulary_list).dtype)
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    assert_string_or_int(vocabulary_dtype, prefix=f"column_name: {key} vocabulary")
    if dtype is None:
        dtype = vocabulary_dtype
    else:
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer != vocabulary_dtype.is_integer:
            raise ValueError(f"dtype {dtype} and vocabulary dtype {vocabulary_dtype} do not "
                             f"match, column_name: {key}")
    assert_string_or_int(dtype, prefix=f"column_name: {key}")
    _check_key(key)
    return _VocabularyListCategoricalColumn(key, tuple(vocabulary_list), dtype, default_value,
                                            num_oov_buckets)


class _VocabularyFileCategoricalColumn(
        _CategoricalColumn,
        collections.namedtuple("_VocabularyFileCategoricalColumn",
                               ("key", "vocabulary_file", "vocabulary_size", "num_oov_buckets",
                                "dtype", "default_value"))):
    """Ids from the line number of each value in a vocabulary file."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    @property
    def _num_buckets(self):
        return self.vocabulary_size + self.num_oov_buckets

    def _transform_feature(self, inputs):
        from flowloom.ops.lookup.tables import index_table_from_file

        input_tensor = to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        _check_compatible(self.key, self.dtype, input_tensor.dtype)
        assert_string_or_int(input_tensor.dtype, f"column_name: {self.key} input_tensor")
        key_dtype = self.dtype
        if input_tensor.dtype.is_integer:
            key_dtype = dtypes.int64
            input_tensor = SparseTensor(input_tensor.indices,
                                        _cast(input_tensor.values, dtypes.int64),
                                        input_tensor.dense_shape)
        table = index_table_from_file(
            vocabulary_file=self.vocabulary_file, num_oov_buckets=self.num_oov_buckets,
            vocab_size=self.vocabulary_size,
            default_value=-1 if self.default_value is None else self.default_value,
            key_dtype=key_dtype, name=f"{self.key}_lookup")
        return table.lookup(input_tensor)


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                            num_oov_buckets=0, default_value=None,
                                            dtype=dtypes.string):
    """A categorical column whose ids are line numbers in `vocabulary_file` (one value a line).

    Args:
      key: the feature name.
      vocabulary_file: the vocabulary's path.
      vocabulary_size: the lines to use (all lines when None, counted now).
      num_oov_buckets: hash buckets for values not in the file.
      default_value: the id of missing values without buckets (-1 when None).
      dtype: string or an integer type.

    Raises:
      ValueError: for a missing file, a bad size, or both buckets and a default.
    """
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_size is None:
        if not file_system.exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        with file_system.open_file(vocabulary_file, "rb") as f:
            vocabulary_size = sum(1 for _ in f)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    dtype = dtypes.as_dtype(dtype)
    assert_string_or_int(dtype, prefix=f"column_name: {key}")
    _check_key(key)
    return _VocabularyFileCategoricalColumn(key, vocabulary_file, vocabulary_size,
                                            0 if num_oov_buckets is None else num_oov_buckets,
                                            dtype, default_value)


class _IdentityCategoricalColumn(
        _CategoricalColumn,
        collections.namedtuple("_IdentityCategoricalColumn",
                               ("key", "num_buckets", "default_value"))):
    """Integer values used as ids directly."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: VarLenFeature(dtypes.int64)}

    @property
    def _num_buckets(self):
        return self.num_buckets

    def _transform_feature(self, inputs):
        from flowloom.ops.array import array_ops
        from flowloom.ops.math import math_ops

        input_tensor = to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        if not input_tensor.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: "
                             f"{input_tensor.dtype}")
        values = input_tensor.values
        if values.dtype != dtypes.int64:
            values = _cast(values, dtypes.int64, name="values")
        if self.default_value is not None:
            out_of_range = math_ops.logical_or(values < 0, values >= self.num_buckets,
                                               name="out_of_range")
            defaults = array_ops.fill(array_ops.shape(values),
                                      _cast(self.default_value, dtypes.int64),
                                      name="default_values")
            values = array_ops.where(out_of_range, defaults, values)
        return SparseTensor(input_tensor.indices, values, input_tensor.dense_shape)


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """A categorical column of integer ids in [0, num_buckets).

    Values outside the range become `default_value` when it is given (else they must not
    occur).

    Raises:
      ValueError: if num_buckets < 1 or default_value is out of range.
    """
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), "
                         f"column_name {key}")
    _check_key(key)
    return _IdentityCategoricalColumn(key, num_buckets, default_value)


class _WeightedCategoricalColumn(
        _CategoricalColumn,
        collections.namedtuple("_WeightedCategoricalColumn",
                               ("categorical_column", "weight_feature_key", "dtype"))):
    """A categorical column whose ids carry the weights of another feature."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def _parse_example_spec(self):
        config = dict(self.categorical_column._parse_example_spec)
        if self.weight_feature_key in config:
            raise ValueError(f"Parse config {config[self.weight_feature_key]} already exists "
                             f"for {self.weight_feature_key}.")
        config[self.weight_feature_key] = VarLenFeature(self.dtype)
        return config

    @property
    def _num_buckets(self):
        return self.categorical_column._num_buckets

    def _transform_feature(self, inputs):
        weights = inputs.get(self.weight_feature_key)
        if weights is None:
            raise ValueError(f"Missing weights {self.weight_feature_key}.")
        weights = convert_to_tensor_or_sparse_tensor(weights)
        if self.dtype != weights.dtype.base_dtype:
            raise ValueError(f"Bad dtype, expected {self.dtype}, but got {weights.dtype}.")
        if not isinstance(weights, SparseTensor):
            weights = to_sparse_input_and_drop_ignore_values(weights, ignore_value=0.0)
        if not weights.dtype.is_floating:
            weights = SparseTensor(weights.indices, _cast(weights.values, dtypes.float32),
                                   weights.dense_shape)
        return inputs.get(self.categorical_column), weights

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        ids, weights = inputs.get(self)
        return _CategoricalColumn.IdWeightPair(ids, weights)


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=dtypes.float32):
    """Gives each id of `categorical_column` the weight at the same position in the feature
    `weight_feature_key` (for linear models and embeddings with sum/mean/sqrtn combiners).

    Raises:
      ValueError: if dtype is not floating or the column is not categorical.
    """
    dtype = dtypes.as_dtype(dtype)
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"categorical_column must be a categorical column. Given: "
                         f"{categorical_column}")
    return _WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)


class _CrossedColumn(
        _CategoricalColumn,
        collections.namedtuple("_CrossedColumn", ("keys", "hash_bucket_size", "hash_key"))):
    """The hashed cross of string features and categorical columns."""

    @property
    def name(self):
        names = []
        for key in self.keys:
            names.append(key.name if isinstance(key, _FeatureColumn) else key)
        return "_X_".join(sorted(names))

    @property
    def _parse_example_spec(self):
        config = {}
        for key in self.keys:
            if isinstance(key, _FeatureColumn):
                config.update(key._parse_example_spec)
            else:
                config[key] = VarLenFeature(dtypes.string)
        return config

    @property
    def _num_buckets(self):
        return self.hash_bucket_size

    def _transform_feature(self, inputs):
        from flowloom.ops.array.sparse_cross_ops import sparse_cross_hashed

        tensors = []
        for key in _leaf_keys(self):
            if isinstance(key, str):
                tensors.append(inputs.get(key))
            else:
                ids = key._get_sparse_tensors(inputs)
                if ids.weight_tensor is not None:
                    raise ValueError(f"crossed_column does not support weight_tensor, but the "
                                     f"given column populates weight_tensor. Given column: "
                                     f"{key.name}")
                tensors.append(ids.id_tensor)
        return sparse_cross_hashed(tensors, num_buckets=self.hash_bucket_size,
                                   hash_key=self.hash_key)


def _leaf_keys(cross):
    leaves = []
    for key in cross.keys:
        leaves.extend(_leaf_keys(key) if isinstance(key, _CrossedColumn) else [key])
    return leaves


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """The hashed cross of features: each combination of one value per key goes to
    `FingerprintCat64(...) % hash_bucket_size`, TF's buckets.

    Example:
      cross = crossed_column(["a", bucketized_column(age, [18, 30])], 1000)

    Args:
      keys: 2+ feature names (string features) or categorical columns (not hashed ones).
      hash_bucket_size: the number of buckets (> 1).
      hash_key: the fingerprint seed (TF's default when None).

    Raises:
      ValueError: for bad keys or bucket counts.
    """
    if not hash_bucket_size:
        raise ValueError(f"hash_bucket_size must be set. hash_bucket_size: {hash_bucket_size}")
    if hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, _CategoricalColumn)):
            raise ValueError(f"Unsupported key type. All keys must be either string, or "
                             f"categorical column except _HashedCategoricalColumn. Given: {key}")
        if isinstance(key, _HashedCategoricalColumn):
            raise ValueError(f"categorical_column_with_hash_bucket is not supported for "
                             f"crossing. Hashing before crossing will increase probability of "
                             f"collision. Instead, use the feature name as a string. Given: "
                             f"{key}")
    return _CrossedColumn(tuple(keys), hash_bucket_size,
                          _DEFAULT_HASH_KEY if hash_key is None else hash_key)
