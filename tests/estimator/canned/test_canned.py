"""Canned estimators: optimizers by name, heads (weights, vocabularies), exports and errors."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.estimator.canned.optimizers import get_optimizer_instance
from tests.estimator.canned import canned_cases


def test_optimizers_by_name_with_the_default_learning_rate():
    opt = get_optimizer_instance("Adagrad", learning_rate=0.05)
    assert isinstance(opt, tf.train.AdagradOptimizer) and opt._learning_rate == 0.05
    assert isinstance(get_optimizer_instance("Ftrl", 0.2), tf.train.FtrlOptimizer)
    assert isinstance(get_optimizer_instance(lambda: tf.train.AdamOptimizer()),
                      tf.train.AdamOptimizer)
    with pytest.raises(ValueError, match="Unsupported optimizer name"):
        get_optimizer_instance("Adadelta", 0.1)
    with pytest.raises(ValueError, match="not an Optimizer"):
        get_optimizer_instance(3)


def test_bad_arguments_are_value_errors(tmp_path):
    x = tf.feature_column.numeric_column("x")
    with pytest.raises(ValueError, match="n_classes"):
        tf.estimator.DNNClassifier([2], [x], n_classes=1, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="Invalid loss_reduction"):
        tf.estimator.LinearClassifier([x], loss_reduction="none", model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="Either linear_feature_columns"):
        tf.estimator.DNNLinearCombinedClassifier(model_dir=str(tmp_path))
    est = tf.estimator.LinearRegressor([x], model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="features should be a dictionary"):
        est.train(lambda: (tf.constant([[1.]]), tf.constant([[1.]])), steps=1)


def test_binary_head_with_weights_and_vocabulary_exports_tf_signatures(tmp_path):
    fc = tf.feature_column
    data = canned_cases.table()
    labels = np.array([["no", "yes"][int(v)] for v in data["label2"][:, 0]]).reshape(-1, 1)
    weights = np.linspace(0.5, 2.0, canned_cases.N).astype(np.float32).reshape(-1, 1)

    def input_fn():
        return {"age": tf.constant(data["age"]), "w": tf.constant(weights)}, \
            tf.constant(labels)

    est = tf.estimator.LinearClassifier([fc.numeric_column("age")], weight_column="w",
                                        label_vocabulary=["no", "yes"],
                                        model_dir=str(tmp_path / "m"))
    est.train(input_fn, steps=2)
    metrics = est.evaluate(input_fn, steps=1)
    assert sorted(metrics) == sorted([
        "accuracy", "accuracy_baseline", "auc", "auc_precision_recall", "average_loss",
        "global_step", "label/mean", "loss", "precision", "prediction/mean", "recall"])
    # The weighted label mean: the weights of the 'yes' rows over all weights.
    yes = (labels[:, 0] == "yes")
    np.testing.assert_allclose(metrics["label/mean"], weights[yes].sum() / weights.sum(),
                               rtol=1e-5)
    first = next(est.predict(lambda: {"age": tf.constant(data["age"][:1])}))
    assert first["classes"][0] in (b"no", b"yes")
    assert list(first["all_classes"]) == [b"no", b"yes"]
    spec = tf.feature_column.make_parse_example_spec([fc.numeric_column("age")])
    export = est.export_saved_model(
        str(tmp_path / "export"),
        tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export)
    assert sorted(meta.signature_def) == ["classification", "predict", "regression",
                                          "serving_default"]


def test_parse_example_specs_add_label_and_weight():
    fc = tf.feature_column
    spec = tf.estimator.classifier_parse_example_spec(
        [fc.categorical_column_with_hash_bucket("a", 4)], label_key="y", weight_column="w")
    assert sorted(spec) == ["a", "w", "y"]
    assert spec["y"] == tf.FixedLenFeature((1,), tf.int64)
    with pytest.raises(ValueError, match="label should not be used as feature"):
        tf.estimator.regressor_parse_example_spec([fc.numeric_column("y")], label_key="y")


def test_variables_in_a_list_autopack():
    v = tf.get_variable("v", [3])
    assert tf.convert_to_tensor([v, v]).shape.as_list() == [2, 3]
