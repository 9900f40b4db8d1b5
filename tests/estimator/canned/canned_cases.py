"""Canned-estimator cases run the same way under TF 1.15 (tests/data/record_canned.py) and
flowloom (test_canned_vs_tf.py): each builds an estimator from `tf` over a small fixed table.

TF trains each one a few steps and records its checkpoint (tests/data/canned_ckpt/<case>/),
its variable names and shapes, its evaluation metrics and its predictions; flowloom builds
the same estimator on a copy of that checkpoint and must predict and evaluate the same.
"""

import numpy as np

N = 12


def table():
    """A small fixed mixed-type table: numeric, string and integer features and labels."""
    rng = np.random.RandomState(7)
    return {
        "age": rng.uniform(15, 70, size=(N, 1)).astype(np.float32),
        "hours": rng.uniform(0, 60, size=(N, 2)).astype(np.float32),
        "job": np.array([["tech", "sales", "admin", "farm"][i % 4] for i in range(N)]
                        ).reshape(N, 1),
        "city": np.array([f"city{(i * 7) % 5}" for i in range(N)]).reshape(N, 1),
        "edu": np.array([(i * 3) % 6 for i in range(N)], dtype=np.int64).reshape(N, 1),
        "label3": np.array([(i * 5) % 3 for i in range(N)], dtype=np.int64).reshape(N, 1),
        "label2": np.array([(i * 7) % 2 for i in range(N)], dtype=np.int64).reshape(N, 1),
        "target": rng.normal(size=(N, 1)).astype(np.float32),
    }


def _columns(tf):
    fc = tf.feature_column
    age = fc.numeric_column("age")
    job = fc.categorical_column_with_vocabulary_list("job", ["tech", "sales", "admin"],
                                                     num_oov_buckets=1)
    city = fc.categorical_column_with_hash_bucket("city", 7)
    edu = fc.categorical_column_with_identity("edu", 6)
    return {
        "age": age, "hours": fc.numeric_column("hours", shape=[2]),
        "age_b": fc.bucketized_column(age, [25., 40., 55.]), "job": job, "city": city,
        "edu": edu, "job_emb": fc.embedding_column(job, 3), "city_ind": fc.indicator_column(city),
        "edu_emb": fc.embedding_column(edu, 2, combiner="sum"),
        "cross": fc.crossed_column(["job", "city"], 11),
    }


def _features(tf, data):
    return {k: tf.constant(data[k]) for k in ("age", "hours", "job", "city", "edu")}


def case_dnn_classifier(tf, model_dir, config):
    c = _columns(tf)
    est = tf.estimator.DNNClassifier(
        hidden_units=[5, 4], feature_columns=[c["age"], c["hours"], c["job_emb"],
                                              c["city_ind"], c["edu_emb"]],
        n_classes=3, model_dir=model_dir, config=config)
    return est, "label3"


def case_dnn_regressor(tf, model_dir, config):
    c = _columns(tf)
    est = tf.estimator.DNNRegressor(hidden_units=[3], feature_columns=[c["age"], c["job_emb"]],
                                    model_dir=model_dir, config=config, optimizer="Adam")
    return est, "target"


def case_linear_classifier(tf, model_dir, config):
    c = _columns(tf)
    est = tf.estimator.LinearClassifier(
        feature_columns=[c["age"], c["age_b"], c["job"], c["city"], c["cross"], c["edu"]],
        model_dir=model_dir, config=config)
    return est, "label2"


def case_linear_regressor(tf, model_dir, config):
    c = _columns(tf)
    hours = tf.feature_column.numeric_column("hours", shape=[2],
                                             normalizer_fn=lambda x: x / 60.0)
    est = tf.estimator.LinearRegressor(feature_columns=[hours, c["job"], c["cross"]],
                                       model_dir=model_dir, config=config,
                                       optimizer="Adagrad")
    return est, "target"


def case_wide_deep_classifier(tf, model_dir, config):
    c = _columns(tf)
    est = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=[c["age_b"], c["cross"], c["edu"]],
        dnn_feature_columns=[c["age"], c["job_emb"], c["city_ind"]], dnn_hidden_units=[4],
        n_classes=3, label_vocabulary=["a", "b", "c"], model_dir=model_dir, config=config)
    return est, "label3_str"


def case_dnn_batch_norm_dropout(tf, model_dir, config):
    c = _columns(tf)
    est = tf.estimator.DNNClassifier(
        hidden_units=[4, 3], feature_columns=[c["hours"], c["city_ind"]], dropout=0.25,
        batch_norm=True, weight_column="age", model_dir=model_dir, config=config)
    return est, "label2"


def case_wide_deep_regressor(tf, model_dir, config):
    c = _columns(tf)
    est = tf.estimator.DNNLinearCombinedRegressor(
        linear_feature_columns=[c["job"], c["age_b"]], dnn_feature_columns=[c["edu_emb"]],
        dnn_hidden_units=[3], linear_sparse_combiner="mean", model_dir=model_dir,
        config=config, dnn_optimizer="RMSProp")
    return est, "target"


CASES = {name[len("case_"):]: fn for name, fn in sorted(globals().items())
         if name.startswith("case_")}


def input_fn(tf, label_key):
    """The whole table as one batch: (features, labels)."""
    def fn():
        data = table()
        if label_key == "label3_str":
            labels = tf.constant(np.array([["a", "b", "c"][int(v)] for v in data["label3"][:, 0]]
                                          ).reshape(N, 1))
        else:
            labels = tf.constant(data[label_key])
        return _features(tf, data), labels
    return fn


def predict_input_fn(tf):
    def fn():
        return _features(tf, table())
    return fn


def predictions_of(estimator, tf):
    """{key: stacked array} over all predicted examples."""
    import itertools
    # Constant features never run out: take the table's rows.
    rows = list(itertools.islice(estimator.predict(predict_input_fn(tf)), N))
    return {k: np.stack([r[k] for r in rows]) for k in rows[0]}


def model_variables(estimator):
    """{name: shape} of the variables that are not optimizer slots."""
    slot_words = ("Adagrad", "Adam", "Ftrl", "beta1_power", "beta2_power", "Momentum")
    return {n: list(estimator.get_variable_value(n).shape)
            for n in estimator.get_variable_names()
            if not any(w in n.split("/")[-1] or "/t_0/" in n for w in slot_words)}
