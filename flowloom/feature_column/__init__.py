"""`tf.feature_column`: TF 1.15's feature columns (v1 names) and the layers over them.

The sequence_* columns of tf.feature_column (experimental in TF 1.15) are not implemented.
"""

from flowloom.feature_column.categorical import (  # noqa: F401
    categorical_column_with_hash_bucket, categorical_column_with_identity,
    categorical_column_with_vocabulary_file, categorical_column_with_vocabulary_list,
    crossed_column, weighted_categorical_column)
from flowloom.feature_column.dense import (bucketized_column, embedding_column,  # noqa: F401
                                           indicator_column, numeric_column,
                                           shared_embedding_columns)
from flowloom.feature_column.layers import (input_layer, linear_model,  # noqa: F401
                                            make_parse_example_spec)

_NOT_IMPLEMENTED = ("sequence_categorical_column_with_hash_bucket",
                    "sequence_categorical_column_with_identity",
                    "sequence_categorical_column_with_vocabulary_file",
                    "sequence_categorical_column_with_vocabulary_list",
                    "sequence_numeric_column")


def __getattr__(name):
    if name in _NOT_IMPLEMENTED:
        raise NotImplementedError(f"tf.feature_column.{name} is not implemented in flowloom")
    raise AttributeError(f"module 'tf.feature_column' has no attribute '{name}'")
