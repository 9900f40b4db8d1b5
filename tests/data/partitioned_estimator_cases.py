"""Canned estimators with partitioned variables (tests/data/record_partitioned_estimators.py
records TF 1.15 on them; tests/estimator/test_partitioned_estimators.py runs flowloom).

`make(tf, case, model_dir)` builds the estimator with `tf` = tensorflow.compat.v1 or flowloom;
`input_fn(tf, repeat)` feeds the same 6 examples on both.
"""

import numpy as np

CASES = ("dnn", "linear")

X = np.array([[0.5], [1.0], [-1.0], [2.0], [0.0], [-0.5]], dtype=np.float32)
IDS = np.array([[1], [3], [7], [9], [0], [4]], dtype=np.int64)
LABELS = np.array([[1], [0], [1], [0], [1], [0]], dtype=np.int64)


def columns(tf):
    fc = tf.feature_column
    ids = fc.categorical_column_with_identity("ids", num_buckets=10)
    return fc.numeric_column("x"), ids


def make(tf, case, model_dir):
    x, ids = columns(tf)
    config = tf.estimator.RunConfig(tf_random_seed=1)
    if case == "dnn":
        emb = tf.feature_column.embedding_column(ids, dimension=3)
        return tf.estimator.DNNClassifier(
            hidden_units=[4], feature_columns=[x, emb], model_dir=model_dir, config=config,
            input_layer_partitioner=tf.fixed_size_partitioner(2))
    return tf.estimator.LinearClassifier(
        feature_columns=[x, ids], model_dir=model_dir, config=config,
        partitioner=tf.fixed_size_partitioner(2))


def input_fn(tf, repeat=True):
    """The 6 examples as one batch: repeated (training) or once (prediction)."""
    def fn():
        data = tf.data.Dataset.from_tensors(({"x": X, "ids": IDS}, LABELS))
        return data.repeat() if repeat else data
    return fn
