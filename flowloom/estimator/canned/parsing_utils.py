"""`tf.estimator.classifier_parse_example_spec` / `regressor_parse_example_spec`: the
parse_example spec of a canned estimator's features plus its label (and weight)."""

from flowloom.framework import dtypes


def _add_label_and_weight(spec, label_key, label_spec, weight_column):
    from flowloom.feature_column.dense import _NumericColumn, numeric_column

    if label_key in spec:
        raise ValueError(f"label should not be used as feature. label_key: {label_key}, "
                         f"features: {spec.keys()}")
    spec[label_key] = label_spec
    if weight_column is None:
        return spec
    if isinstance(weight_column, str):
        weight_column = numeric_column(weight_column)
    if not isinstance(weight_column, _NumericColumn):
        raise ValueError(f"weight_column should be an instance of "
                         f"tf.feature_column.numeric_column. Given type: {type(weight_column)} "
                         f"value: {weight_column}")
    if weight_column.key in spec:
        raise ValueError(f"weight_column should not be used as feature. weight_column: "
                         f"{weight_column.key}, features: {spec.keys()}")
    spec.update(weight_column._parse_example_spec)
    return spec


def classifier_parse_example_spec(feature_columns, label_key, label_dtype=dtypes.int64,
                                  label_default=None, weight_column=None):
    """The parse spec of `feature_columns` plus a [1] label `label_key` (and the weight).

    Raises:
      ValueError: if the label or weight key is also a feature.
    """
    from flowloom.feature_column.layers import make_parse_example_spec
    from flowloom.ops.parsing.parsing_ops import FixedLenFeature

    return _add_label_and_weight(make_parse_example_spec(feature_columns), label_key,
                                 FixedLenFeature((1,), label_dtype, label_default),
                                 weight_column)


def regressor_parse_example_spec(feature_columns, label_key, label_dtype=dtypes.float32,
                                 label_default=None, label_dimension=1, weight_column=None):
    """The parse spec of `feature_columns` plus a [label_dimension] float label.

    Raises:
      ValueError: if the label or weight key is also a feature.
    """
    from flowloom.feature_column.layers import make_parse_example_spec
    from flowloom.ops.parsing.parsing_ops import FixedLenFeature

    return _add_label_and_weight(make_parse_example_spec(feature_columns), label_key,
                                 FixedLenFeature((label_dimension,), label_dtype,
                                                 label_default), weight_column)
