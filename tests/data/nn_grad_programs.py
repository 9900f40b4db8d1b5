"""One program run on TF 1.15 (record_nn_grad.py) and on flowloom (tests/ops/test_nn_grads.py):
second derivatives of Elu/Selu/Relu6/LeakyRelu, gradients through the depthwise backprop ops,
the cross-entropy ops' shape inference (broadcast labels) and kernel errors, the second
derivative of sparse softmax cross-entropy, tf.losses' squeezing of labels and weights, and
the gradient checker at a Fortran-ordered point. `ops` maps names to the module under test's
functions."""

import numpy as np


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message start are compared
        return [type(e).__name__, str(e).split("\n")[0][:70]]
    return None


def _grid(*shape):
    return (np.arange(np.prod(shape), dtype=np.float64) * 37 % 23).reshape(shape) / 7.0 - 1.4


def program(tf, ops):
    r = {}
    with tf.Graph().as_default(), tf.Session() as s:
        def run(t):
            return np.round(s.run(t).astype(np.float64), 5).tolist()

        x = tf.constant(_grid(3, 4))
        probe = tf.constant(_grid(3, 4)[::-1].copy())
        for name, fn in (("elu", tf.nn.elu), ("selu", tf.nn.selu), ("relu6", tf.nn.relu6),
                         ("leaky", lambda v: tf.nn.leaky_relu(v, 0.3))):
            y = fn(x * 4.0)
            g = tf.gradients(y, x, probe)[0]
            r[name + "_grad_grad"] = run(tf.gradients(g, [x, probe], tf.constant(_grid(3, 4)))[0])
            r[name + "_grad_wrt_dy"] = run(tf.gradients(g, probe, tf.constant(_grid(3, 4)))[0])
        xi = tf.constant(_grid(2, 5, 5, 3))
        w = tf.constant(_grid(3, 3, 3, 2))
        y = tf.nn.depthwise_conv2d(xi, w, [1, 2, 2, 1], "SAME")
        dy = tf.constant(_grid(2, 3, 3, 6))
        gx, gw = tf.gradients(y, [xi, w], dy)
        r["depthwise_second"] = [run(tf.gradients(tf.reduce_sum(gx * gx), [w, dy])[i])
                                 for i in range(2)]
        r["depthwise_second_filter"] = [run(tf.gradients(tf.reduce_sum(gw * gw), [xi, dy])[i])
                                        for i in range(2)]
        loss, backprop = ops["xent"](tf.constant([[1., 2., 3., 4.]]),
                                     tf.constant([[0., 0., 0., 1.], [0., .5, .5, 0.]]))
        r["xent_broadcast"] = [run(loss), run(backprop), loss.shape.as_list()]
        r["xent_rank3"] = _err(lambda: ops["xent"](np.ones([2, 1, 4], np.float32),
                                                   np.ones([2, 1, 4], np.float32)))
        r["xent_dims"] = _err(lambda: ops["xent"](np.ones([2, 3], np.float32),
                                                  np.ones([2, 4], np.float32)))
        labels = tf.placeholder(tf.int32)
        sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=[[7.]])
        r["sparse_labels_scalar"] = _err(lambda: s.run(sparse, {labels: 0}))
        r["sparse_scalar_logits"] = _err(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.constant(0), logits=tf.constant(1.0)))
        wv = tf.Variable([0.5, -0.3], dtype=tf.float64)
        logits = tf.matmul(tf.constant(_grid(3, 2)), tf.stack([tf.zeros([2], tf.float64), wv],
                                                              axis=1))
        xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.constant([0, 1, 1]), logits=logits))
        r["sparse_second"] = _err(lambda: tf.gradients(tf.gradients(xent, wv)[0], wv))
        logits4 = tf.constant(_grid(4, 4))
        r["losses_bad_labels"] = _err(lambda: tf.losses.sparse_softmax_cross_entropy(
            tf.constant([[0, 1], [2, 3]]), logits4))
        weights = tf.placeholder(tf.float64)
        lw = tf.losses.sparse_softmax_cross_entropy(tf.constant([[2], [0], [1], [3]]), logits4,
                                                    weights)
        r["losses_weights_squeezed"] = round(float(s.run(
            lw, {weights: [[1.2], [3.4], [5.6], [0.5]]})), 5)
        xs = tf.constant([-0.9, -0.7, -0.5, -0.3, -0.1, 0.1, 0.3, 0.5, 0.7, 0.9], shape=[2, 5])
        init = np.asarray([[-0.9, -0.7, -0.5, -0.3, -0.1], [0.1, 0.3, 0.5, 0.7, 0.9]],
                          dtype=np.float32, order="F")
        err = ops["gradient_error"](xs, [2, 5], tf.nn.softplus(xs), [2, 5], x_init_value=init)
        r["fortran_point_error_small"] = bool(err < 1e-4)
        xb, gb = tf.constant(_grid(2, 3, 2, 4)), tf.constant(_grid(2, 3, 2, 4)[::-1].copy())
        scale, offset = tf.constant([0.5, 1.5, -1.0, 2.0], tf.float64), tf.zeros([4], tf.float64)
        for training in (True, False):
            stats = {} if training else {"mean": tf.constant([0.1, 0.2, -0.3, 0.4], tf.float64),
                                         "variance": tf.constant([1.0, 0.5, 2.0, 0.25],
                                                                 tf.float64)}
            xb32, gb32 = tf.cast(xb, tf.float32), tf.cast(gb, tf.float32)
            y, _, _ = tf.nn.fused_batch_norm(xb32, tf.cast(scale, tf.float32),
                                             tf.cast(offset, tf.float32), is_training=training,
                                             **{k: tf.cast(v, tf.float32)
                                                for k, v in stats.items()})
            gx = tf.gradients(y, xb32, gb32)[0]
            second = tf.gradients(tf.reduce_sum(gx * gx), [xb32, gb32])
            r[f"fused_second_{training}"] = [run(t) if t is not None else None for t in second]
        wm = tf.nn.weighted_moments(tf.constant(_grid(3, 5), tf.float16), [1],
                                    tf.constant(_grid(3, 5) + 2.0, tf.float16))
        r["weighted_moments_f16"] = [run(wm[0]), run(wm[1])]
    with tf.Graph().as_default() as g, tf.Session() as s:
        r["global_norm_deprecated"] = _err(lambda: ops["bn_global"](
            t=tf.zeros([1, 1, 2, 3]), m=tf.zeros([3]), v=tf.ones([3]), beta=tf.zeros([3]),
            gamma=tf.ones([3]), variance_epsilon=0.001, scale_after_normalization=True))
        ops["set_producer_version"](g, 8)
        t = tf.constant(_grid(2, 3, 2, 3))
        m, v = tf.constant([0.1, -0.2, 0.3], tf.float64), tf.constant([0.5, 1.5, 2.5], tf.float64)
        beta, gamma = tf.constant([0.0, 1.0, -1.0], tf.float64), tf.constant([2.0, 0.5, 1.0],
                                                                            tf.float64)
        out = ops["bn_global"](t=t, m=m, v=v, beta=beta, gamma=gamma, variance_epsilon=0.01,
                               scale_after_normalization=True)
        grads = tf.gradients(out, [t, m, v, beta, gamma],
                             tf.constant(_grid(2, 3, 2, 3)[::-1].copy()))
        r["global_norm"] = [np.round(s.run(out), 5).tolist()] + [
            np.round(s.run(x), 5).tolist() for x in grads]
    return r
