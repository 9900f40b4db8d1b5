"""tf.nn beyond the basics: candidate samplers, nce/sampled softmax losses, 1-D/3-D
convolution and pooling, argmax pooling, activations and moments helpers (recorded from
TF 1.15 by tests/data/record_api.py)."""

import numpy as np

from tests.api.cases import Registry, f32, f64, rng

R = Registry()
case, error_case = R.case, R.error_case
DILATED = R.names_differ_from_tf(
    "TF builds dilated 2-D convolution with SpaceToBatchND/BatchToSpaceND; flowloom's Conv2D "
    "takes the dilations attr directly (same values)")


def _labels(name, batch, num_true, classes):
    return rng(name).integers(0, classes, (batch, num_true)).astype(np.int64)


@case
def candidate_samplers(tf):
    true = tf.constant(_labels("cs", 4, 2, 50))
    outs = []
    for fn, kwargs in ((tf.nn.log_uniform_candidate_sampler, {"range_max": 50}),
                       (tf.nn.uniform_candidate_sampler, {"range_max": 10}),
                       (tf.nn.uniform_candidate_sampler, {"range_max": 64})):
        for unique in (True, False):
            outs += list(fn(true, 2, 6, unique, seed=11, **kwargs))
    outs += list(tf.nn.all_candidate_sampler(true, 2, 5, True, seed=3))
    return {"out": outs}


@case
def sampler_second_run(tf):
    true = tf.constant(_labels("ssr", 3, 1, 1000))
    s = tf.nn.log_uniform_candidate_sampler(true, 1, 64, True, 1000, seed=5)
    return {"out": list(s), "before": [(s, None)]}


@case
def accidental_hits(tf):
    true = tf.constant(np.array([[1, 4], [2, 3], [5, 1]], np.int64))
    sampled = tf.constant(np.array([4, 1, 7, 1], np.int64))
    return {"out": list(tf.nn.compute_accidental_hits(true, sampled, num_true=2))}


def _sampled_problem(tf, name, num_true):
    weights = tf.constant(f32(name + "w", 30, 8, lo=-0.5, hi=0.5))
    biases = tf.constant(f32(name + "b", 30, lo=-0.5, hi=0.5))
    inputs = tf.constant(f32(name + "x", 5, 8))
    labels = tf.constant(_labels(name + "l", 5, num_true, 30))
    return weights, biases, inputs, labels


@case
def nce_loss_values_and_grads(tf):
    w, b, x, labels = _sampled_problem(tf, "nce", 1)
    sampled = tf.nn.log_uniform_candidate_sampler(labels, 1, 10, True, 30, seed=7)
    loss = tf.nn.nce_loss(w, b, labels, x, num_sampled=10, num_classes=30,
                          sampled_values=sampled)
    loss_hits = tf.nn.nce_loss(w, b, labels, x, num_sampled=10, num_classes=30,
                               sampled_values=sampled, remove_accidental_hits=True,
                               name="nce_hits")
    return {"out": [loss, loss_hits], "xs": [w, b, x]}


@case
def sampled_softmax_values_and_grads(tf):
    w, b, x, labels = _sampled_problem(tf, "ssm", 2)
    loss = tf.nn.sampled_softmax_loss(w, b, labels, x, num_sampled=8, num_classes=30,
                                      num_true=2, seed=5)
    return {"out": [loss], "xs": [w, b, x]}


@case
def sampled_softmax_sharded(tf):
    w1 = tf.constant(f32("sh1", 15, 4))
    w2 = tf.constant(f32("sh2", 15, 4))
    b = tf.constant(f32("shb", 30))
    x = tf.constant(f32("shx", 3, 4))
    labels = tf.constant(_labels("shl", 3, 1, 30))
    loss = tf.nn.sampled_softmax_loss([w1, w2], b, labels, x, num_sampled=6, num_classes=30,
                                      seed=9, partition_strategy="div")
    return {"out": [loss], "xs": [w1, w2, x]}


@case
def activations(tf):
    x = tf.constant(f64("act", 3, 4))
    return {"out": [tf.nn.swish(x), tf.nn.crelu(x), tf.nn.crelu(x, axis=0)], "xs": [x]}


@case
def poisson_loss(tf):
    targets = tf.constant(f64("pt", 3, 4, lo=0.0, hi=4.0))
    log_input = tf.constant(f64("pl", 3, 4))
    return {"out": [tf.nn.log_poisson_loss(targets, log_input),
                    tf.nn.log_poisson_loss(targets, log_input, compute_full_loss=True)],
            "xs": [log_input]}


@case
def pools_1d(tf):
    x = tf.constant(f64("p1", 2, 9, 3))
    return {"out": [tf.nn.max_pool1d(x, 2, 2, "SAME"), tf.nn.avg_pool1d(x, [3], [2], "VALID"),
                    tf.nn.pool(x, [2], "MAX", "VALID", strides=[1])], "xs": [x]}


@DILATED
@case
def conv1d_transpose_and_atrous(tf):
    x = tf.constant(f64("ct", 2, 5, 3))
    w = tf.constant(f64("ctw", 3, 4, 3))
    img = tf.constant(f64("at", 2, 7, 7, 2))
    k = tf.constant(f64("atk", 3, 3, 2, 3))
    return {"out": [tf.nn.conv1d_transpose(x, w, [2, 10, 4], 2, "SAME"),
                    tf.nn.atrous_conv2d(img, k, 2, "SAME"),
                    tf.nn.atrous_conv2d(img, k, 2, "VALID")], "xs": [x, w]}


@DILATED
@case
def convolution_dispatch(tf):
    x1 = tf.constant(f64("cv1", 2, 8, 3))
    w1 = tf.constant(f64("cv1w", 3, 3, 2))
    x2 = tf.constant(f64("cv2", 1, 6, 6, 2))
    w2 = tf.constant(f64("cv2w", 2, 2, 2, 3))
    return {"out": [tf.nn.convolution(x1, w1, "SAME"),
                    tf.nn.convolution(x2, w2, "VALID", strides=[2, 1]),
                    tf.nn.convolution(x2, w2, "SAME", dilation_rate=[2, 2])]}


@case
def conv3d_forms(tf):
    x = tf.constant(f64("c3", 2, 5, 6, 4, 3))
    w = tf.constant(f64("c3w", 2, 3, 2, 3, 4))
    return {"out": [tf.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME"),
                    tf.nn.conv3d(x, w, [1, 2, 1, 1, 1], "VALID")],
            "xs": [x, w]}


@case
def conv3d_transpose_forms(tf):
    x = tf.constant(f64("c3t", 2, 3, 3, 2, 4))
    w = tf.constant(f64("c3tw", 2, 2, 3, 5, 4))
    return {"out": [tf.nn.conv3d_transpose(x, w, [2, 6, 6, 4, 5], [1, 2, 2, 2, 1], "SAME")],
            "xs": [x, w]}


@case
def pools_3d(tf):
    x = tf.constant(f32("p3", 2, 5, 4, 6, 2))
    return {"out": [tf.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME"),
                    tf.nn.avg_pool3d(x, [1, 3, 2, 2, 1], [1, 1, 2, 2, 1], "SAME"),
                    tf.nn.avg_pool3d(x, [1, 2, 2, 3, 1], [1, 2, 1, 2, 1], "VALID")],
            "xs": [x]}


@case
def avg_pool3d_grad(tf):
    x = tf.constant(f32("ap3", 1, 5, 4, 3, 2))
    return {"out": [tf.nn.avg_pool3d(x, [1, 3, 2, 2, 1], [1, 2, 1, 2, 1], "SAME")], "xs": [x]}


@case
def argmax_pooling(tf):
    x = tf.constant(f32("am", 2, 5, 5, 3))
    v, i = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    v2, i2 = tf.nn.max_pool_with_argmax(x, [1, 3, 3, 1], [1, 1, 1, 1], "VALID",
                                        include_batch_in_index=True)
    return {"out": [v, i, v2, i2], "xs": [x]}


@case
def moments_helpers(tf):
    x = tf.constant(f64("mh", 4, 3, 2))
    w = tf.constant(f64("mhw", 4, 1, 1, lo=0.5, hi=2.0))
    counts, m_ss, v_ss, _ = tf.nn.sufficient_statistics(x, [0, 1])
    mean, var = tf.nn.normalize_moments(counts, m_ss, v_ss, None)
    c2, m2, v2, shift = tf.nn.sufficient_statistics(x, [0], shift=tf.constant(0.5, tf.float64))
    mean2, var2 = tf.nn.normalize_moments(c2, m2, v2, shift)
    wm, wv = tf.nn.weighted_moments(x, [0], w)
    return {"out": [counts, m_ss, v_ss, mean, var, mean2, var2, wm, wv]}


@case
def embedding_sparse(tf):
    params = tf.constant(f64("es", 6, 3))
    sp_ids = tf.SparseTensor(indices=[[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]],
                             values=tf.constant([1, 3, 1, 5, 0, 3], tf.int64),
                             dense_shape=[4, 3])
    sp_w = tf.SparseTensor(indices=sp_ids.indices, values=tf.constant(
        [0.5, 2.0, 1.0, 1.5, 0.25, 3.0], tf.float64), dense_shape=[4, 3])
    outs = [tf.nn.embedding_lookup_sparse(params, sp_ids, None, combiner=c)
            for c in ("sum", "mean", "sqrtn")]
    outs += [tf.nn.embedding_lookup_sparse(params, sp_ids, sp_w, combiner=c)
             for c in ("sum", "mean", "sqrtn")]
    return {"out": outs, "xs": [params]}


@error_case
def sampler_range_too_small(tf):
    return tf.nn.uniform_candidate_sampler(tf.constant([[1]], tf.int64), 1, 5, True, 3)[0]


@error_case
def conv3d_wrong_rank(tf):
    return tf.nn.conv3d(tf.constant(f32("w3", 2, 3, 3, 3)), tf.constant(f32("w3w", 1, 1, 1, 3, 3)),
                        [1, 1, 1, 1, 1], "SAME")


@error_case
def max_pool3d_float64(tf):
    return tf.nn.max_pool3d(tf.constant(f64("p3d", 1, 2, 2, 2, 1)), [1, 1, 1, 1, 1],
                            [1, 1, 1, 1, 1], "SAME")
