"""Serving input receivers: the placeholders a SavedModel is fed through and the features
they become (`tf.estimator.export.ServingInputReceiver` and the receiver_fn builders)."""

import collections

from flowloom.estimator.export.export_utils import (SINGLE_FEATURE_DEFAULT_NAME,
                                                    SINGLE_LABEL_DEFAULT_NAME,
                                                    SINGLE_RECEIVER_DEFAULT_NAME)

_SINGLE_TENSOR_DEFAULT_NAMES = {
    "feature": SINGLE_FEATURE_DEFAULT_NAME, "label": SINGLE_LABEL_DEFAULT_NAME,
    "receiver_tensor": SINGLE_RECEIVER_DEFAULT_NAME,
    "receiver_tensors_alternative": SINGLE_RECEIVER_DEFAULT_NAME}


def wrap_and_check_input_tensors(tensors, field_name, allow_int_keys=False):
    """`tensors` as a dict (a single tensor is named by `field_name`'s default), checked.

    Raises:
      ValueError: None, a key that is not a string (or int where allowed), or a value that
        is not a Tensor or SparseTensor.
    """
    if tensors is None:
        raise ValueError(f"{field_name}s must be defined.")
    if not isinstance(tensors, dict):
        tensors = {_SINGLE_TENSOR_DEFAULT_NAMES[field_name]: tensors}
    for name, tensor in tensors.items():
        _check_tensor_key(name, error_label=field_name, allow_ints=allow_int_keys)
        _check_tensor(tensor, name, error_label=field_name)
    return tensors


def _check_tensor(tensor, name, error_label="feature"):
    from flowloom.framework.ops import Tensor
    from flowloom.framework.sparse_tensor import SparseTensor

    if not isinstance(tensor, (Tensor, SparseTensor)):
        fmt_name = f" {name}" if name else ""
        raise ValueError(f"{error_label}{fmt_name} must be a Tensor or SparseTensor.")


def _check_tensor_key(name, error_label="feature", allow_ints=False):
    if not isinstance(name, str):
        if not allow_ints:
            raise ValueError(f"{error_label} keys must be strings: {name}.")
        if not isinstance(name, int):
            raise ValueError(f"{error_label} keys must be strings or ints: {name}.")


class ServingInputReceiver(collections.namedtuple(
        "ServingInputReceiver", ["features", "receiver_tensors",
                                 "receiver_tensors_alternatives"])):
    """The features a served model sees and the tensors its requests feed.

    Example:
      def serving_input_receiver_fn():
          x = tf.placeholder(tf.float32, [None, 4], name="x")
          return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})

    Args:
      features: a Tensor, SparseTensor or dict of them (what model_fn receives).
      receiver_tensors: a Tensor or dict of them (the signature's inputs).
      receiver_tensors_alternatives: dict of name -> other receiver tensors (more
        signatures).
    """

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        features = wrap_and_check_input_tensors(features, "feature", allow_int_keys=True)
        receiver_tensors = wrap_and_check_input_tensors(receiver_tensors, "receiver_tensor")
        if receiver_tensors_alternatives is not None:
            if not isinstance(receiver_tensors_alternatives, dict):
                raise ValueError("receiver_tensors_alternatives must be a dict: "
                                 f"{receiver_tensors_alternatives}.")
            for name, alt in receiver_tensors_alternatives.items():
                receiver_tensors_alternatives[name] = wrap_and_check_input_tensors(
                    alt, "receiver_tensors_alternative")
        return super().__new__(cls, features=features, receiver_tensors=receiver_tensors,
                               receiver_tensors_alternatives=receiver_tensors_alternatives)


class TensorServingInputReceiver(collections.namedtuple(
        "TensorServingInputReceiver", ["features", "receiver_tensors",
                                       "receiver_tensors_alternatives"])):
    """A ServingInputReceiver whose features are one Tensor (not a dict), passed to
    model_fn as is.

    Raises:
      ValueError: `features` is None or not a Tensor/SparseTensor.
    """

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        if features is None:
            raise ValueError("features must be defined.")
        _check_tensor(features, None)
        receiver = ServingInputReceiver(
            features=features, receiver_tensors=receiver_tensors,
            receiver_tensors_alternatives=receiver_tensors_alternatives)
        return super().__new__(
            cls, features=receiver.features[SINGLE_FEATURE_DEFAULT_NAME],
            receiver_tensors=receiver.receiver_tensors,
            receiver_tensors_alternatives=receiver.receiver_tensors_alternatives)


class UnsupervisedInputReceiver(ServingInputReceiver):
    """Features and receiver tensors without labels (a PREDICT-mode receiver)."""

    def __new__(cls, features, receiver_tensors):
        return super().__new__(cls, features=features, receiver_tensors=receiver_tensors,
                               receiver_tensors_alternatives=None)


class SupervisedInputReceiver(collections.namedtuple(
        "SupervisedInputReceiver", ["features", "labels", "receiver_tensors"])):
    """Features, labels and receiver tensors of a TRAIN or EVAL export."""

    def __new__(cls, features, labels, receiver_tensors):
        wrap_and_check_input_tensors(features, "feature", allow_int_keys=True)
        wrap_and_check_input_tensors(labels, "label", allow_int_keys=True)
        receiver_tensors = wrap_and_check_input_tensors(receiver_tensors, "receiver_tensor")
        return super().__new__(cls, features=features, labels=labels,
                               receiver_tensors=receiver_tensors)


def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """A serving_input_receiver_fn that takes serialized tf.Examples (the string placeholder
    `input_example_tensor`, input `examples`) and parses them with `feature_spec`.

    Args:
      feature_spec: dict of feature name -> FixedLenFeature / VarLenFeature / ...
      default_batch_size: the placeholder's batch dimension (None: any).
    """
    def serving_input_receiver_fn():
        from flowloom.framework import dtypes
        from flowloom.ops.array.array_ops import placeholder
        from flowloom.ops.parsing.parsing_ops import parse_example

        serialized = placeholder(dtype=dtypes.string, shape=[default_batch_size],
                                 name="input_example_tensor")
        features = parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {"examples": serialized})
    return serving_input_receiver_fn


def _placeholder_from_tensor(t, default_batch_size=None):
    from flowloom.framework.tensor_shape import TensorShape
    from flowloom.ops.array.array_ops import placeholder

    shape = TensorShape([default_batch_size]).concatenate(t.get_shape()[1:])
    name = getattr(getattr(t, "op", None), "name", None)
    return placeholder(dtype=t.dtype, shape=shape, name=name)


def _placeholders_from_receiver_tensors_dict(input_vals, default_batch_size=None):
    return {name: _placeholder_from_tensor(t, default_batch_size)
            for name, t in input_vals.items()}


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A serving_input_receiver_fn feeding placeholders shaped like `features` (a dict of
    Tensors; the batch dimension becomes `default_batch_size`) straight to the model."""
    def serving_input_receiver_fn():
        receiver_tensors = _placeholders_from_receiver_tensors_dict(features,
                                                                    default_batch_size)
        return ServingInputReceiver(receiver_tensors, receiver_tensors)
    return serving_input_receiver_fn


def build_raw_supervised_input_receiver_fn(features, labels, default_batch_size=None):
    """A receiver_fn for TRAIN/EVAL exports: placeholders like `features` and `labels`.

    Raises:
      ValueError: features and labels share a key.
    """
    feat_keys = features.keys() if isinstance(features, dict) else [
        SINGLE_RECEIVER_DEFAULT_NAME]
    label_keys = labels.keys() if isinstance(labels, dict) else [SINGLE_LABEL_DEFAULT_NAME]
    overlap = set(feat_keys) & set(label_keys)
    if overlap:
        raise ValueError("Features and labels must have distinct keys. Found overlapping "
                         f"keys: {overlap}")

    def supervised_input_receiver_fn():
        if not isinstance(features, dict):
            features_cp = _placeholder_from_tensor(features, default_batch_size)
            receiver_features = {SINGLE_RECEIVER_DEFAULT_NAME: features_cp}
        else:
            receiver_features = _placeholders_from_receiver_tensors_dict(features,
                                                                         default_batch_size)
            features_cp = receiver_features
        if not isinstance(labels, dict):
            labels_cp = _placeholder_from_tensor(labels, default_batch_size)
            receiver_labels = {SINGLE_LABEL_DEFAULT_NAME: labels_cp}
        else:
            receiver_labels = _placeholders_from_receiver_tensors_dict(labels,
                                                                       default_batch_size)
            labels_cp = receiver_labels
        receiver_tensors = dict(receiver_features)
        receiver_tensors.update(receiver_labels)
        return SupervisedInputReceiver(features_cp, labels_cp, receiver_tensors)
    return supervised_input_receiver_fn
