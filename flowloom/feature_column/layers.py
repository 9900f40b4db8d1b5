"""input_layer, linear_model and make_parse_example_spec over feature columns.

Both layers build their columns in the order of the columns' names (TF's order), each
under a variable scope named after the column, so variables get TF's names:
`input_layer/<col>_embedding/embedding_weights`, `linear_model/<col>/weights`,
`linear_model/bias_weights`.
"""

from flowloom.framework import dtypes
from flowloom.framework.graph import GraphKeys, get_collection
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import dimension_value
from flowloom.feature_column.core import (_CategoricalColumn, _DenseColumn, _FeatureColumn,
                                          _LazyBuilder)


def _normalize_feature_columns(feature_columns):
    if isinstance(feature_columns, _FeatureColumn):
        feature_columns = [feature_columns]
    if hasattr(feature_columns, "__iter__") and not isinstance(feature_columns, (list, tuple)):
        feature_columns = list(feature_columns)
    if not feature_columns:
        raise ValueError("Expected feature_columns to be iterable, found dict.") \
            if isinstance(feature_columns, dict) else ValueError(
                "feature_columns must not be empty.")
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(f"Items of feature_columns must be a _FeatureColumn. Given "
                             f"(type {type(column)}): {column}.")
    names = {}
    for column in feature_columns:
        if column.name in names:
            raise ValueError(f"Duplicate feature column name found for columns: "
                             f"{names[column.name]} and {column}. This usually means that "
                             f"these columns refer to same base feature. Either one must be "
                             f"discarded or a duplicated but renamed item must be inserted in "
                             f"features dict.")
        names[column.name] = column
    return list(feature_columns)


def _weight_collections(weight_collections):
    collections = list(weight_collections or [])
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        if key not in collections:
            collections.append(key)
    return collections


def _verify_static_batch_size_equality(tensors, columns):
    expected, first = None, None
    for tensor, column in zip(tensors, columns):
        size = dimension_value(tensor.get_shape()[0]) if tensor.get_shape().ndims else None
        if size is None:
            continue
        if expected is None:
            expected, first = size, column
        elif size != expected:
            raise ValueError(f"Batch size (first dimension) of each feature must be same. Batch "
                             f"size of columns ({first.name}, {column.name}): ({expected}, "
                             f"{size})")


def input_layer(features, feature_columns, weight_collections=None, trainable=True,
                cols_to_vars=None, cols_to_output_tensors=None):
    """The dense [batch, sum of column sizes] input of a model, from `features`.

    Example:
      price = numeric_column("price")
      keywords = embedding_column(categorical_column_with_hash_bucket("keywords", 10K), 16)
      dense_tensor = input_layer(features, [price, keywords])
      for units in [128, 64, 32]:
        dense_tensor = tf.layers.dense(dense_tensor, units, tf.nn.relu)

    Args:
      features: a dict from feature names to Tensors or SparseTensors.
      feature_columns: dense columns (numeric, bucketized, embedding, indicator, ...).
      weight_collections: collections the variables are added to (besides the global and
        model variables).
      trainable: whether the variables are trainable.
      cols_to_vars: a dict filled with each column's variables.
      cols_to_output_tensors: a dict filled with each column's output tensor.

    Returns:
      A float32 `Tensor` [batch, total size], the columns in name order.

    Raises:
      ValueError: if a column is not dense, or for duplicate names or batch sizes.
    """
    from flowloom.ops.array import array_ops
    from flowloom.variable_scope import get_variable_scope, variable_scope

    feature_columns = _normalize_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, _DenseColumn):
            raise ValueError(f"Items of feature_columns must be a _DenseColumn. You can wrap a "
                             f"categorical column with an embedding_column or indicator_column."
                             f" Given: {column}")
    weight_collections = _weight_collections(weight_collections)
    with variable_scope(None, default_name="input_layer", values=list(features.values())):
        builder = _LazyBuilder(features)
        outputs, ordered = [], []
        for column in sorted(feature_columns, key=lambda c: c.name):
            ordered.append(column)
            with variable_scope(None, default_name=column._var_scope_name):
                tensor = column._get_dense_tensor(builder, weight_collections=weight_collections,
                                                  trainable=trainable)
                num_elements = column._variable_shape.num_elements()
                batch_size = array_ops.shape(tensor)[0]
                output = array_ops.reshape(tensor, shape=(batch_size, num_elements))
                outputs.append(output)
                if cols_to_vars is not None:
                    cols_to_vars[column] = get_collection(GraphKeys.GLOBAL_VARIABLES,
                                                          scope=get_variable_scope().name)
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = output
        _verify_static_batch_size_equality(outputs, ordered)
        return array_ops.concat(outputs, 1)


def _weighted_sum(column, builder, units, sparse_combiner, weight_collections, trainable):
    from flowloom.ops.array import array_ops
    from flowloom.ops.array.sparse_reshape_ops import sparse_reshape
    from flowloom.ops.math.math_ops import matmul
    from flowloom.ops.nn.safe_embedding import safe_embedding_lookup_sparse
    from flowloom.ops.state.init_ops import zeros_initializer
    from flowloom.variable_scope import get_variable

    if isinstance(column, _CategoricalColumn):
        pair = column._get_sparse_tensors(builder, weight_collections=weight_collections,
                                          trainable=trainable)
        minus_one = convert_to_tensor(-1, dtypes.int64)
        ids = sparse_reshape(pair.id_tensor, array_ops.stack(
            [pair.id_tensor.dense_shape[0], minus_one]))
        weights = pair.weight_tensor
        if weights is not None:
            weights = sparse_reshape(weights, array_ops.stack([weights.dense_shape[0],
                                                               minus_one]))
        variable = get_variable("weights", shape=(column._num_buckets, units),
                                initializer=zeros_initializer(), trainable=trainable,
                                collections=weight_collections)
        return safe_embedding_lookup_sparse(variable, ids, sparse_weights=weights,
                                            combiner=sparse_combiner, name="weighted_sum"), \
            variable
    tensor = column._get_dense_tensor(builder, weight_collections=weight_collections,
                                      trainable=trainable)
    num_elements = column._variable_shape.num_elements()
    tensor = array_ops.reshape(tensor, shape=(array_ops.shape(tensor)[0], num_elements))
    variable = get_variable("weights", shape=[num_elements, units],
                            initializer=zeros_initializer(), trainable=trainable,
                            collections=weight_collections)
    return matmul(tensor, variable, name="weighted_sum"), variable


def linear_model(features, feature_columns, units=1, sparse_combiner="sum",
                 weight_collections=None, trainable=True, cols_to_vars=None):
    """A linear prediction [batch, units] from `features`: one weight per dense element or
    categorical bucket, plus a bias (`linear_model/bias_weights`), all initialised to zero.

    Example:
      prediction = linear_model(features, [price, bucketized_age, keywords_x_price])

    Args:
      features: a dict from feature names to Tensors or SparseTensors.
      feature_columns: dense or categorical columns.
      units: the output size.
      sparse_combiner: how a row's several ids combine: 'sum', 'mean' or 'sqrtn'.
      weight_collections: collections the variables are added to.
      trainable: whether the variables are trainable.
      cols_to_vars: a dict filled with each column's variables (and 'bias').

    Returns:
      A `Tensor` [batch, units].

    Raises:
      ValueError: for a column that is neither dense nor categorical, or a bad combiner.
    """
    from flowloom.ops.math.math_ops import add_n
    from flowloom.ops.nn.nn_ops import bias_add
    from flowloom.ops.state.init_ops import zeros_initializer
    from flowloom.variable_scope import get_variable, variable_scope

    if sparse_combiner not in ("sum", "mean", "sqrtn"):
        raise ValueError(f"sparse_combiner must be one of 'mean', 'sqrtn' or 'sum', got "
                         f"{sparse_combiner}")
    feature_columns = _normalize_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, (_DenseColumn, _CategoricalColumn)):
            raise ValueError(f"Items of feature_columns must be either a _DenseColumn or "
                             f"_CategoricalColumn. Given: {column}")
    weight_collections = _weight_collections(weight_collections)
    with variable_scope(None, default_name="linear_model", values=list(features.values())):
        builder = _LazyBuilder(features)
        sums, ordered = [], []
        for column in sorted(feature_columns, key=lambda c: c.name):
            ordered.append(column)
            with variable_scope(None, default_name=column._var_scope_name):
                weighted, variable = _weighted_sum(column, builder, units, sparse_combiner,
                                                   weight_collections, trainable)
                sums.append(weighted)
                if cols_to_vars is not None:
                    cols_to_vars[column] = _expanded(variable)
        _verify_static_batch_size_equality(sums, ordered)
        no_bias = add_n(sums, name="weighted_sum_no_bias")
        bias = get_variable("bias_weights", shape=[units], dtype=dtypes.float32,
                            initializer=zeros_initializer(), trainable=trainable,
                            collections=weight_collections)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = _expanded(bias)
        return bias_add(no_bias, bias, name="weighted_sum")


def _expanded(variable):
    """A variable as the list of variables holding it: a PartitionedVariable's parts."""
    from flowloom.partitioned_variables import PartitionedVariable

    return list(variable) if isinstance(variable, PartitionedVariable) else [variable]


def make_parse_example_spec(feature_columns):
    """The `parse_example` features dict all `feature_columns` need.

    Example:
      spec = make_parse_example_spec([feature_a, feature_b])
      features = tf.parse_example(serialized, features=spec)

    Raises:
      ValueError: for a non-column, or two columns asking different specs of one key.
    """
    result = {}
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(f"All feature_columns must be _FeatureColumn instances. Given: "
                             f"{column}")
        for key, value in column._parse_example_spec.items():
            if key in result and result[key] != value:
                raise ValueError(f"feature_columns contain different parse_spec for key {key}. "
                                 f"Given {result[key]} and {value}")
        result.update(column._parse_example_spec)
    return result
