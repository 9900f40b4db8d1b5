"""tf.metrics: values after streamed updates, variable and op names (recorded from TF 1.15 by
tests/data/record_api.py)."""

import numpy as np

from tests.api.cases import Registry, f32, rng

R = Registry()
case, error_case = R.case, R.error_case

BATCHES = 3


def _streamed(tf, build, feeds_of):
    """Builds a metric on placeholders, feeds BATCHES batches through update_op, then reads
    the value, the last update_op result and the metric variables."""
    value, update_op, placeholders = build(tf)
    before = [(update_op, feeds_of(placeholders, i)) for i in range(BATCHES - 1)]
    variables = tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)
    last = feeds_of(placeholders, BATCHES - 1)
    return {"out": [update_op], "after": [value] + list(variables),
            "init": True, "before": before, "feed": last}


def _classification(name, n=8, classes=2):
    r = rng(name)
    return r.integers(0, classes, (BATCHES, n)), r.integers(0, classes, (BATCHES, n))


def _simple(metric, dtype="int64", weighted=False, classes=2, **kwargs):
    def fn(tf):
        labels_v, preds_v = _classification(metric + str(weighted), classes=classes)
        weights_v = rng(metric + "w").uniform(0, 2, (BATCHES, 8)).astype(np.float32)

        def build(tf):
            labels = tf.placeholder(getattr(tf, dtype), [None])
            preds = tf.placeholder(getattr(tf, dtype), [None])
            weights = tf.placeholder(tf.float32, [None]) if weighted else None
            value, update = getattr(tf.metrics, metric)(labels, preds, weights=weights, **kwargs)
            return value, update, (labels, preds, weights)

        def feeds(ph, i):
            out = {ph[0]: labels_v[i], ph[1]: preds_v[i]}
            if weighted:
                out[ph[2]] = weights_v[i]
            return out
        return _streamed(tf, build, feeds)
    fn.__name__ = f"{metric}{'_weighted' if weighted else ''}"
    return fn


for _metric in ("accuracy", "precision", "recall", "true_positives", "false_positives",
                "true_negatives", "false_negatives"):
    for _weighted in (False, True):
        case(_simple(_metric, weighted=_weighted))
case(_simple("mean_iou", num_classes=4, classes=4))
case(_simple("mean_per_class_accuracy", num_classes=4, classes=4))


def _regression(metric, weighted=False):
    def fn(tf):
        labels_v = np.stack([f32(metric + str(i), 6) for i in range(BATCHES)])
        preds_v = np.stack([f32(metric + "p" + str(i), 6) for i in range(BATCHES)])
        weights_v = np.stack([f32(metric + "w" + str(i), 6, lo=0, hi=2) for i in range(BATCHES)])

        def build(tf):
            labels = tf.placeholder(tf.float32, [None])
            preds = tf.placeholder(tf.float32, [None])
            weights = tf.placeholder(tf.float32, [None]) if weighted else None
            value, update = getattr(tf.metrics, metric)(labels, preds, weights=weights)
            return value, update, (labels, preds, weights)

        def feeds(ph, i):
            out = {ph[0]: labels_v[i], ph[1]: preds_v[i]}
            if weighted:
                out[ph[2]] = weights_v[i]
            return out
        return _streamed(tf, build, feeds)
    fn.__name__ = f"{metric}{'_weighted' if weighted else ''}"
    return fn


for _metric in ("mean_absolute_error", "mean_squared_error", "root_mean_squared_error"):
    for _weighted in (False, True):
        case(_regression(_metric, _weighted))


@case
def mean_and_mean_tensor(tf):
    values_v = np.stack([f32("mt" + str(i), 2, 3) for i in range(BATCHES)])

    def build(tf):
        x = tf.placeholder(tf.float32, [2, 3])
        m, m_up = tf.metrics.mean(x)
        t, t_up = tf.metrics.mean_tensor(x, weights=tf.constant([[1.0], [2.0]]))
        return tf.stack([tf.reduce_sum(t), m]), tf.stack([tf.reduce_sum(t_up), m_up]), (x,)
    return _streamed(tf, build, lambda ph, i: {ph[0]: values_v[i]})


def _auc(curve, method, **kwargs):
    def fn(tf):
        r = rng("auc" + curve + method)
        labels_v = r.integers(0, 2, (BATCHES, 10)).astype(bool)
        preds_v = r.uniform(0, 1, (BATCHES, 10)).astype(np.float32)

        def build(tf):
            labels = tf.placeholder(tf.bool, [None])
            preds = tf.placeholder(tf.float32, [None])
            value, update = tf.metrics.auc(labels, preds, curve=curve,
                                           summation_method=method, **kwargs)
            return value, update, (labels, preds)
        return _streamed(tf, build, lambda ph, i: {ph[0]: labels_v[i], ph[1]: preds_v[i]})
    fn.__name__ = f"auc_{curve}_{method}"
    return fn


case(_auc("ROC", "trapezoidal"))
case(_auc("PR", "trapezoidal", num_thresholds=50))
case(_auc("ROC", "minoring", thresholds=[0.2, 0.5, 0.7]))
case(_auc("PR", "majoring"))


@case
def at_thresholds(tf):
    r = rng("thr")
    labels_v = r.integers(0, 2, (BATCHES, 10))
    preds_v = r.uniform(0, 1, (BATCHES, 10)).astype(np.float32)

    def build(tf):
        labels = tf.placeholder(tf.int64, [None])
        preds = tf.placeholder(tf.float32, [None])
        th = [0.25, 0.5, 0.75]
        parts = [tf.metrics.precision_at_thresholds(labels, preds, th),
                 tf.metrics.recall_at_thresholds(labels, preds, th),
                 tf.metrics.true_positives_at_thresholds(labels, preds, th),
                 tf.metrics.false_negatives_at_thresholds(labels, preds, th)]
        return (tf.concat([p[0] for p in parts], 0), tf.concat([p[1] for p in parts], 0),
                (labels, preds))
    return _streamed(tf, build, lambda ph, i: {ph[0]: labels_v[i], ph[1]: preds_v[i]})


@R.names_differ_from_tf("TF adds a SparseTensor to zeros (SparseTensorDenseAdd); flowloom "
                        "scatters the counts (ScatterNd)")
@case
def confusion_matrix_direct(tf):
    labels = tf.constant([0, 2, 1, 2, 2])
    preds = tf.constant([0, 1, 1, 2, 0])
    return {"out": [tf.confusion_matrix(labels, preds),
                    tf.confusion_matrix(labels, preds, num_classes=4,
                                        weights=tf.constant([1, 2, 3, 4, 5])),
                    tf.math.confusion_matrix(labels, preds, dtype=tf.float32)]}


@error_case
def auc_bad_curve(tf):
    return tf.metrics.auc(tf.constant([True]), tf.constant([0.5]), curve="XY")[0]
