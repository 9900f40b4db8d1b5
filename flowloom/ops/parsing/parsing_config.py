"""Feature configurations for parsing Examples: FixedLenFeature, VarLenFeature, ...

`ParseOpParams.from_features` turns a {key: feature} dict into the sorted key lists,
types, shapes and default tensors that the ParseExampleV2 op takes, as TF's
`_ParseOpParams` does.
"""

import collections
import re

from flowloom.framework import dtypes, tensor_shape
from flowloom.framework.ops import Tensor, convert_to_tensor


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A variable-length feature, parsed into a `SparseTensor` (`tf.VarLenFeature`).

    Fields:
      dtype: tf.float32, tf.int64 or tf.string.
    """


class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """A fixed-shape feature, parsed into a dense Tensor (`tf.FixedLenFeature`).

    Fields:
      shape: the feature's shape in each Example (fully known).
      dtype: tf.float32, tf.int64 or tf.string.
      default_value: used when an Example lacks the feature; without one the feature is
        required.
    """

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """A feature of any number of rows of `shape`, parsed into a dense Tensor padded with
    `default_value` to the longest Example (`tf.FixedLenSequenceFeature`).

    Fields:
      shape: the shape of one row.
      dtype: tf.float32, tf.int64 or tf.string.
      allow_missing: must be True for parse_example (Examples may lack the feature).
      default_value: the scalar padding value (0 or "" when None).
    """

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class SparseFeature(collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """`tf.SparseFeature`: a SparseTensor built from an index feature (or several) and a value
    feature of the Example (`tf.sparse_merge` of their VarLenFeatures).

    Example:
      tf.SparseFeature(index_key="ix", value_key="val", dtype=tf.float32, size=100)
    """

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


def prepend_none_dimension(features):
    """FixedLenSequenceFeatures get a leading unknown dimension (their rows)."""
    if not features:
        return features
    modified = dict(features)
    for key, feature in features.items():
        if isinstance(feature, FixedLenSequenceFeature):
            if not feature.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires "
                                 "allow_missing to be True.")
            modified[key] = FixedLenSequenceFeature([None] + list(feature.shape),
                                                    feature.dtype, feature.allow_missing,
                                                    feature.default_value)
    return modified


class ParseOpParams:
    """The inputs and attrs of a ParseExampleV2 op, built from a features dict."""

    def __init__(self):
        self.sparse_keys = []
        self.sparse_types = []
        self.dense_keys = []
        self.dense_types = []
        self.dense_shapes = []
        self.dense_defaults = collections.OrderedDict()

    @classmethod
    def from_features(cls, features):
        params = cls()
        for key in sorted(features.keys()):
            feature = features[key]
            if isinstance(feature, VarLenFeature):
                params._add_sparse(key, feature)
            elif isinstance(feature, (FixedLenFeature, FixedLenSequenceFeature)):
                params._add_dense(key, feature)
            elif isinstance(feature, SparseFeature):
                params._add_sparse_feature(key, feature)
            else:
                raise ValueError(f"Unsupported {type(feature).__name__} {feature} for key "
                                 f"'{key}'")
        overlap = set(params.dense_keys) & set(params.sparse_keys)
        if overlap:
            raise ValueError(
                f"Dense and sparse keys must not intersect; dense_keys: {params.dense_keys}, "
                f"sparse_keys: {params.sparse_keys}, intersection: {overlap}")
        return params

    def _add_sparse(self, key, feature):
        if not feature.dtype:
            raise ValueError(f"Missing type for feature {key}. Received feature={feature}")
        self.sparse_keys.append(key)
        self.sparse_types.append(dtypes.as_dtype(feature.dtype))

    def _add_sparse_feature(self, key, feature):
        """A SparseFeature parses its index and value keys as VarLenFeatures (merged after
        parsing, see `merge_sparse_features`)."""
        if not feature.index_key:
            raise ValueError(f"Missing index_key for SparseFeature {feature}.")
        if not feature.value_key:
            raise ValueError(f"Missing value_key for SparseFeature {feature}.")
        if not feature.dtype:
            raise ValueError(f"Missing type for feature {key}.")
        index_keys = feature.index_key
        if isinstance(index_keys, str):
            index_keys = [index_keys]
        for index_key in sorted(index_keys):
            self._add_sparse_key(index_key, dtypes.int64)
        self._add_sparse_key(feature.value_key, dtypes.as_dtype(feature.dtype))

    def _add_sparse_key(self, key, dtype):
        if key in self.sparse_keys:
            have = self.sparse_types[self.sparse_keys.index(key)]
            if have != dtype:
                raise ValueError(f"Conflicting type {have} vs {dtype} for feature {key}.")
            return
        self.sparse_keys.append(key)
        self.sparse_types.append(dtype)

    def _add_dense(self, key, feature):
        if not feature.dtype:
            raise ValueError(f"Missing type for feature {key}. Received feature={feature}.")
        if feature.shape is None:
            raise ValueError(f"Missing shape for feature {key}. Received feature={feature}.")
        shape = tensor_shape.as_shape(feature.shape)
        if isinstance(feature, FixedLenFeature):
            if feature.shape and shape.ndims and shape[0].value is None:
                raise ValueError(f"First dimension of shape for feature {key} unknown. "
                                 "Consider using FixedLenSequenceFeature. Received "
                                 f"feature={feature}.")
            if not shape.is_fully_defined():
                raise ValueError(f"All dimensions of shape for feature {key} need to be "
                                 f"known but received {feature.shape!s}.")
        elif feature.allow_missing:
            self.dense_defaults[key] = None
        self.dense_keys.append(key)
        self.dense_shapes.append(shape)
        self.dense_types.append(dtypes.as_dtype(feature.dtype))
        if feature.default_value is not None:
            self.dense_defaults[key] = feature.default_value

    def dense_default_tensors(self):
        """The dense_defaults input: one tensor per dense key, made as TF makes them."""
        return [self._default(k, s, t)
                for k, s, t in zip(self.dense_keys, self.dense_shapes, self.dense_types)]

    def _default(self, key, shape, dtype):
        from flowloom.ops.array import array_ops

        value = self.dense_defaults.get(key)
        safe_key = re.sub(r"[^A-Za-z0-9_.\-/]", "_", key)
        if shape.ndims is not None and shape.ndims > 0 and shape[0].value is None:
            # A sequence feature: the default is the scalar padding value.
            if value is None:
                return convert_to_tensor("" if dtype == dtypes.string else 0, dtype=dtype)
            value = convert_to_tensor(value, dtype=dtype, name="padding_" + safe_key)
            return array_ops.reshape(value, [])
        if value is None:
            return array_ops.constant([], dtype=dtype)
        if isinstance(value, Tensor):
            return value
        value = convert_to_tensor(value, dtype=dtype, name="key_" + safe_key)
        return array_ops.reshape(value, shape.as_list())


def merge_sparse_features(features, tensor_dict):
    """`tensor_dict` with each SparseFeature's index and value SparseTensors merged into one
    (`sparse_merge`) under its key, and only the keys of `features` kept."""
    from flowloom.ops.array.sparse_reorder_ops import sparse_merge

    tensor_dict = dict(tensor_dict)
    for key in sorted(features.keys()):
        feature = features[key]
        if isinstance(feature, SparseFeature):
            if isinstance(feature.index_key, str):
                sp_ids = tensor_dict[feature.index_key]
            else:
                sp_ids = [tensor_dict[k] for k in feature.index_key]
            tensor_dict[key] = sparse_merge(sp_ids, tensor_dict[feature.value_key],
                                            vocab_size=feature.size,
                                            already_sorted=feature.already_sorted)
    for key in set(tensor_dict) - set(features):
        del tensor_dict[key]
    return tensor_dict
