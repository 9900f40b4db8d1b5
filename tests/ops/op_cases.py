"""Programs run both under real TensorFlow (to record) and under flowloom (to compare).

Each case is a function of the `tf` module returning a dict: `out` (tensors to fetch), and
optionally `xs` (tensors to differentiate with respect to: `tf.gradients(out[0], xs,
grad_ys=w)` with a fixed random `w`). Inputs come from `rng(name)`, so both sides see the same
numbers. `ERROR_CASES` build programs that must fail; the recorded error class is compared.
"""

import zlib

import numpy as np

CASES = {}
ERROR_CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def error_case(fn):
    ERROR_CASES[fn.__name__] = fn
    return fn


def rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def f32(name, *shape, lo=-2.0, hi=2.0):
    return rng(name).uniform(lo, hi, shape).astype(np.float32)


def f64(name, *shape):
    return rng(name).uniform(-2, 2, shape)


# -- math -------------------------------------------------------------------------------------
@case
def argmax_argmin(tf):
    x = tf.constant(f32("am", 4, 5))
    return {"out": [tf.argmax(x, 1), tf.argmin(x, axis=0, output_type=tf.int32),
                    tf.argmax(x)]}


@case
def cumsum_variants(tf):
    x = tf.constant(f64("cs", 3, 4))
    return {"out": [tf.cumsum(x, 1, exclusive=True, reverse=True), tf.cumsum(x, 0)],
            "xs": [x]}


@case
def top_k(tf):
    x = tf.constant(np.array([[1, 3, 3, 2, 0], [5, 4, 4, 9, 1]], np.float64))
    v, i = tf.nn.top_k(x, 3)
    return {"out": [v, i], "xs": [x]}


@case
def top_k_grad_3d(tf):
    x = tf.constant(f64("tk3", 2, 3, 6))
    v, i = tf.nn.top_k(x, 2)
    return {"out": [v, i], "xs": [x]}


@case
def segment_sum_mean(tf):
    x = tf.constant(f64("seg", 5, 3))
    ids = tf.constant([0, 0, 1, 3, 3])
    return {"out": [tf.segment_sum(x, ids), tf.segment_mean(x, ids)], "xs": [x]}


@case
def segment_mean_grad(tf):
    x = tf.constant(f64("segm", 5, 2))
    return {"out": [tf.segment_mean(x, tf.constant([0, 1, 1, 1, 4]))], "xs": [x]}


@case
def unsorted_segment_sum(tf):
    x = tf.constant(f64("uss", 6, 2))
    return {"out": [tf.unsorted_segment_sum(x, tf.constant([2, -1, 0, 2, 3, 0]), 4)],
            "xs": [x]}


@case
def more_elementwise(tf):
    x = tf.constant(np.array([0.3, 1.5, 4.0, -0.7, 10.0, 2.0]))
    a = tf.constant(np.array([1.2, 1.5, 4.0, 2.0, 10.0, 3.0]))
    t = tf.constant(np.array([-0.9, -0.2, 0.0, 0.5, 0.7, 0.99]))
    out = [tf.acosh(a), tf.asinh(x), tf.atanh(t), tf.erfc(x), tf.lgamma(x), tf.digamma(x)]
    if hasattr(tf, "math") and hasattr(tf.math, "xlogy"):
        xlogy, xdivy, mul_no_nan = tf.math.xlogy, tf.math.xdivy, tf.math.multiply_no_nan
    else:  # flowloom has no tf.math namespace yet: the same functions from math_ops
        from flowloom.ops.math.math_ops import mul_no_nan, xdivy, xlogy
    z = tf.constant(np.array([0.0, 2.0, 0.0, 1.0, 3.0, 0.0]))
    out += [xlogy(z, a), xdivy(z, t), mul_no_nan(tf.constant(np.inf, tf.float64), z)]
    i = tf.constant(np.array([5, 12, -7, 0], np.int32))
    j = tf.constant(np.array([3, 10, 2, 1], np.int32))
    out += [tf.bitwise.bitwise_and(i, j), tf.bitwise.bitwise_or(i, j),
            tf.bitwise.bitwise_xor(i, j), tf.bitwise.invert(i), tf.bitwise.left_shift(i, j),
            tf.bitwise.right_shift(i, j)]
    return {"out": out}


# -- array ------------------------------------------------------------------------------------
@case
def gather_nd(tf):
    p = tf.constant(f64("gnd", 3, 4, 2))
    return {"out": [tf.gather_nd(p, [[0, 1], [2, 3], [0, 1]]), tf.gather_nd(p, [[[1]], [[2]]])],
            "xs": [p]}


@case
def scatter_nd(tf):
    u = tf.constant(f64("snd", 4, 3))
    return {"out": [tf.scatter_nd([[1], [3], [1], [0]], u, [5, 3])], "xs": [u]}


@case
def pad_modes(tf):
    x = tf.constant(f64("pad", 3, 4))
    p = [[1, 2], [2, 1]]
    return {"out": [tf.pad(x, p), tf.pad(x, p, constant_values=1.5),
                    tf.pad(x, p, "REFLECT"), tf.pad(x, p, mode="symmetric")],
            "xs": [x]}


@case
def mirror_pad_grad(tf):
    x = tf.constant(f64("mpg", 4, 5))
    return {"out": [tf.pad(x, [[2, 1], [1, 3]], "REFLECT")], "xs": [x]}


@case
def symmetric_pad_grad(tf):
    x = tf.constant(f64("spg", 3, 4))
    return {"out": [tf.pad(x, [[2, 3], [0, 4]], "SYMMETRIC")], "xs": [x]}


@case
def tile(tf):
    x = tf.constant(f64("tile", 2, 3))
    return {"out": [tf.tile(x, [2, 3])], "xs": [x]}


@case
def one_hot(tf):
    return {"out": [tf.one_hot([0, 2, -1, 5], 4), tf.one_hot([[1, 0]], 3, 5.0, -1.0, axis=0),
                    tf.one_hot([1, 2], 3, dtype=tf.int32, axis=-1)]}


@case
def split_num_and_sizes(tf):
    x = tf.constant(f64("split", 4, 6))
    a = tf.split(x, 3, axis=1)
    b = tf.split(x, [1, -1, 2], 1)
    return {"out": [a[0] * 2.0 + a[2], b[1], b[2]] + a + b, "xs": [x]}


@case
def reverse(tf):
    x = tf.constant(f64("rev", 2, 3, 4))
    return {"out": [tf.reverse(x, [0, 2]), tf.reverse(x, [-1])], "xs": [x]}


@case
def sequence_mask(tf):
    return {"out": [tf.sequence_mask([1, 3, 2], 5), tf.sequence_mask([[0, 2], [3, 1]]),
                    tf.sequence_mask([2, 0], 3, dtype=tf.float32)]}


@case
def where_variants(tf):
    c = tf.constant([[True, False, True], [False, False, True]])
    x = tf.constant(f64("wx", 2, 3))
    y = tf.constant(f64("wy", 1, 3))
    return {"out": [tf.where_v2(c, x, y), tf.where(c), tf.where(c, x, x * 2.0)],
            "xs": [x, y]}


# -- nn ---------------------------------------------------------------------------------------
def _conv_case(name, x_shape, w_shape, strides, padding, dilations=(1, 1, 1, 1),
               data_format="NHWC", grads=True):
    def fn(tf):
        x = tf.constant(f64(name + "x", *x_shape))
        w = tf.constant(f64(name + "w", *w_shape))
        y = tf.nn.conv2d(x, w, strides, padding, data_format=data_format,
                         dilations=list(dilations))
        # TF's CPU backprop kernels reject dilations > 1: forward values only there.
        return {"out": [y], "xs": [x, w] if grads else []}
    fn.__name__ = name
    CASES[name] = fn


_conv_case("conv_same_s1", (2, 6, 7, 3), (3, 3, 3, 4), [1, 1, 1, 1], "SAME")
_conv_case("conv_same_s2", (2, 7, 8, 3), (3, 2, 3, 2), [1, 2, 2, 1], "SAME")
_conv_case("conv_valid_s2x3", (1, 9, 10, 2), (3, 3, 2, 3), [1, 2, 3, 1], "VALID")
_conv_case("conv_dilated", (1, 9, 9, 2), (3, 2, 2, 3), [1, 1, 1, 1], "SAME", (1, 2, 3, 1),
           grads=False)
_conv_case("conv_explicit", (1, 5, 6, 2), (3, 3, 2, 2), [1, 1, 1, 1],
           [[0, 0], [1, 2], [0, 1], [0, 0]])


@case
def conv2d_transpose(tf):
    x = tf.constant(f64("ctx", 2, 4, 5, 3))
    w = tf.constant(f64("ctw", 3, 3, 2, 3))
    y = tf.nn.conv2d_transpose(x, w, [2, 8, 10, 2], [1, 2, 2, 1], "SAME")
    return {"out": [y], "xs": [x, w]}


@case
def conv1d_separable_dense(tf):
    x = tf.constant(f64("c1x", 2, 9, 3))
    w = tf.constant(f64("c1w", 3, 3, 4))
    img = tf.constant(f64("sepx", 2, 6, 6, 3))
    dw = tf.constant(f64("sepd", 3, 3, 3, 2))
    pw = tf.constant(f64("sepp", 1, 1, 6, 4))
    m = tf.constant(f64("xwx", 3, 4))
    mw = tf.constant(f64("xww", 4, 5))
    b = tf.constant(f64("xwb", 5))
    return {"out": [tf.nn.conv1d(x, w, 2, "SAME"),
                    tf.nn.separable_conv2d(img, dw, pw, [1, 1, 1, 1], "SAME"),
                    tf.nn.xw_plus_b(m, mw, b), tf.nn.relu_layer(m, mw, b)],
            "xs": [x, w]}


@case
def depthwise(tf):
    x = tf.constant(f64("dwx", 2, 6, 5, 3))
    w = tf.constant(f64("dww", 3, 2, 3, 2))
    return {"out": [tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME")], "xs": [x, w]}


@case
def depthwise_valid_dilated(tf):
    x = tf.constant(f64("dwvx", 1, 7, 7, 2))
    w = tf.constant(f64("dwvw", 2, 2, 2, 3))
    return {"out": [tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID", rate=[2, 2])],
            "xs": [x, w]}


@case
def max_pool(tf):
    x = tf.constant(f64("mp", 2, 7, 6, 3))
    return {"out": [tf.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
                    tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 1, 1], "VALID")], "xs": [x]}


@case
def max_pool_ties(tf):
    x = tf.constant(np.array([[1, 1, 0, 2], [1, 0, 2, 2], [0, 3, 3, 1], [3, 3, 1, 1]],
                             np.float64).reshape(1, 4, 4, 1))
    return {"out": [tf.nn.max_pool(x, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")], "xs": [x]}


@case
def avg_pool(tf):
    x = tf.constant(f64("ap", 2, 7, 6, 3))
    return {"out": [tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
                    tf.nn.avg_pool(x, [1, 2, 3, 1], [1, 1, 2, 1], "VALID")], "xs": [x]}


@case
def activations(tf):
    x = tf.constant(f64("act", 3, 5) * 4)
    return {"out": [tf.nn.relu6(x), tf.nn.elu(x), tf.nn.selu(x), tf.nn.leaky_relu(x),
                    tf.nn.leaky_relu(x, alpha=0.3), tf.nn.softplus(x), tf.nn.softsign(x),
                    tf.nn.relu(x)], "xs": [x]}


def _act_grad_case(name, expr):
    def fn(tf):
        x = tf.constant(f64(name, 3, 5) * 4)
        return {"out": [expr(tf, x)], "xs": [x]}
    fn.__name__ = name
    CASES[name] = fn


for _n, _e in [("relu6_grad", lambda tf, x: tf.nn.relu6(x)),
               ("elu_grad", lambda tf, x: tf.nn.elu(x)),
               ("selu_grad", lambda tf, x: tf.nn.selu(x)),
               ("leaky_grad", lambda tf, x: tf.nn.leaky_relu(x, 0.1)),
               ("softplus_grad", lambda tf, x: tf.nn.softplus(x)),
               ("softsign_grad", lambda tf, x: tf.nn.softsign(x)),
               ("softmax_grad", lambda tf, x: tf.nn.softmax(x)),
               ("log_softmax_grad", lambda tf, x: tf.nn.log_softmax(x)),
               ("softmax_axis0", lambda tf, x: tf.nn.softmax(x, axis=0)),
               ("l2_loss", lambda tf, x: tf.nn.l2_loss(x)),
               ("l2_normalize", lambda tf, x: tf.nn.l2_normalize(x, 1)),
               ("clip_by_value", lambda tf, x: tf.clip_by_value(x, -1.0, 2.0)),
               ("clip_by_norm", lambda tf, x: tf.clip_by_norm(x, 3.0)),
               ("clip_by_norm_axes", lambda tf, x: tf.clip_by_norm(x, 2.0, axes=[1]))]:
    _act_grad_case(_n, _e)


@case
def softmax_xent(tf):
    logits = tf.constant(f64("sx", 4, 5))
    labels = tf.nn.softmax(tf.constant(f64("sxl", 4, 5)))
    return {"out": [tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits),
                    tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)],
            "xs": [logits, labels]}


@case
def softmax_xent_3d_axis(tf):
    logits = tf.constant(f64("sx3", 2, 3, 4))
    labels = tf.nn.softmax(tf.constant(f64("sx3l", 2, 3, 4)), axis=1)
    return {"out": [tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits,
                                                               axis=1)],
            "xs": [logits]}


@case
def sparse_softmax_xent(tf):
    logits = tf.constant(f64("ssx", 4, 5))
    return {"out": [tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([0, 4, 2, 2]), logits=logits)], "xs": [logits]}


@case
def sparse_softmax_xent_3d(tf):
    logits = tf.constant(f64("ssx3", 2, 3, 4))
    return {"out": [tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([[0, 3, 1], [2, 2, 0]], dtype=tf.int64), logits=logits)],
        "xs": [logits]}


@case
def sigmoid_xent(tf):
    logits = tf.constant(f64("sgx", 3, 4) * 3)
    labels = tf.constant(rng("sgxl").uniform(0, 1, (3, 4)))
    return {"out": [tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)],
            "xs": [logits, labels]}


@case
def weighted_sigmoid_xent(tf):
    logits = tf.constant(f64("wsx", 3, 4) * 3)
    labels = tf.constant(rng("wsxl").uniform(0, 1, (3, 4)))
    return {"out": [tf.nn.weighted_cross_entropy_with_logits(labels=labels, logits=logits,
                                                             pos_weight=2.5)],
            "xs": [logits, labels]}


@case
def moments_and_batchnorm(tf):
    x = tf.constant(f64("mom", 4, 3, 2))
    mean, var = tf.nn.moments(x, [0, 1])
    y = tf.nn.batch_normalization(x, mean, var, tf.constant(np.array([0.1, -0.2])),
                                  tf.constant(np.array([1.5, 0.5])), 1e-3)
    return {"out": [y, mean, var, tf.nn.moments(x, [1], keep_dims=True)[1]], "xs": [x]}


@case
def fused_batch_norm_train(tf):
    x = tf.constant(f32("fbn", 2, 3, 4, 3))
    scale = tf.constant(np.array([1.0, 2.0, 0.5], np.float32))
    offset = tf.constant(np.array([0.0, 0.1, -0.3], np.float32))
    y, m, v = tf.nn.fused_batch_norm(x, scale, offset, epsilon=0.01)
    return {"out": [y, m, v], "xs": [x, scale, offset]}


@case
def fused_batch_norm_infer(tf):
    # (TF's constant folding breaks this graph when x is a Const: feed it by default instead.)
    x = tf.placeholder_with_default(f32("fbi", 2, 4, 2, 3), [2, 4, 2, 3])
    scale = tf.constant(np.array([1.0, 2.0, 0.5], np.float32))
    offset = tf.constant(np.array([0.0, 0.1, -0.3], np.float32))
    mean = tf.constant(np.array([0.1, 0.0, -0.2], np.float32))
    var = tf.constant(np.array([1.0, 0.5, 2.0], np.float32))
    y, m, v = tf.nn.fused_batch_norm(x, scale, offset, mean, var, is_training=False)
    return {"out": [y, m, v], "xs": [x, scale, offset]}


@case
def lrn(tf):
    x = tf.constant(f32("lrn", 2, 3, 3, 7))
    return {"out": [tf.nn.lrn(x, 2, bias=1.0, alpha=0.001 / 9.0, beta=0.75),
                    tf.nn.local_response_normalization(x, depth_radius=1, alpha=0.5)],
            "xs": [x]}


@case
def in_top_k(tf):
    p = tf.constant(np.array([[0.1, 0.5, 0.5, 0.2], [0.3, 0.1, 0.9, 0.2],
                              [np.nan, 0.2, 0.1, 0.0]], np.float32))
    return {"out": [tf.nn.in_top_k(p, [1, 0, 1], 1), tf.nn.in_top_k(p, [2, 3, 0], 2)]}


@case
def global_norm_clip(tf):
    a = tf.constant(f64("gna", 2, 3))
    b = tf.constant(f64("gnb", 4))
    clipped, norm = tf.clip_by_global_norm([a, None, b], 1.5)
    return {"out": [clipped[0], clipped[2], norm, tf.global_norm([a, b])], "xs": [a, b]}


@case
def embedding(tf):
    params = tf.constant(f64("emb", 6, 3))
    ids = tf.constant([[0, 5], [2, 2]])
    return {"out": [tf.nn.embedding_lookup(params, ids),
                    tf.nn.embedding_lookup([params[:3], params[3:]], ids),
                    tf.nn.embedding_lookup([params[:4], params[4:]], [3, 4, 1],
                                           partition_strategy="div")],
            "xs": [params]}


@case
def zero_fraction(tf):
    x = tf.constant(np.array([[0.0, 1.5, 0.0], [2.0, 0.0, 0.0]], np.float32))
    return {"out": [tf.nn.zero_fraction(x), tf.nn.zero_fraction(tf.constant([1, 0, 3]))]}


# -- tf.losses ----------------------------------------------------------------------------------
@case
def losses_basic(tf):
    labels = tf.constant(f32("ll", 4, 3))
    preds = tf.constant(f32("lp", 4, 3))
    w = tf.constant(np.array([[1.0], [0.0], [2.0], [0.5]], np.float32))
    out = [tf.losses.mean_squared_error(labels, preds),
           tf.losses.absolute_difference(labels, preds, weights=w),
           tf.losses.mean_squared_error(labels, preds, reduction=tf.losses.Reduction.SUM),
           tf.losses.absolute_difference(labels, preds, reduction=tf.losses.Reduction.MEAN,
                                         weights=w),
           tf.losses.mean_squared_error(labels, preds, loss_collection=None,
                                        reduction=tf.losses.Reduction.NONE),
           tf.losses.huber_loss(labels, preds, delta=0.5)]
    out.append(tf.losses.get_total_loss())
    return {"out": out, "xs": [preds]}


@case
def losses_xent(tf):
    logits = tf.constant(f32("lxl", 4, 5))
    onehot = tf.one_hot([0, 3, 1, 4], 5)
    out = [tf.losses.softmax_cross_entropy(onehot, logits),
           tf.losses.softmax_cross_entropy(onehot, logits, label_smoothing=0.1),
           tf.losses.sparse_softmax_cross_entropy([0, 3, 1, 4], logits,
                                                  weights=[1.0, 0.0, 1.0, 2.0]),
           tf.losses.sparse_softmax_cross_entropy([[0], [3], [1], [4]], logits),
           tf.losses.sigmoid_cross_entropy(onehot, logits, label_smoothing=0.2),
           tf.losses.log_loss(tf.constant([0.0, 1.0, 1.0]), tf.constant([0.2, 0.7, 0.9]))]
    out.append(tf.add_n(tf.losses.get_losses()))
    return {"out": out, "xs": [logits]}


# -- errors -------------------------------------------------------------------------------------
@error_case
def err_gather_nd_out_of_range(tf):
    return tf.gather_nd(tf.constant(f64("e1", 3, 2)), [[5, 0]])


@error_case
def err_sparse_xent_label_range(tf):
    return tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([0, 7]), logits=tf.constant(f32("e2", 2, 5)))


@error_case
def err_split_uneven(tf):
    return tf.split(tf.constant(f64("e3", 5, 2)), 2)


@error_case
def err_conv_depth(tf):
    return tf.nn.conv2d(tf.constant(f32("e4", 1, 4, 4, 3)), tf.constant(f32("e5", 2, 2, 2, 1)),
                        [1, 1, 1, 1], "SAME")


@error_case
def err_sparse_xent_rank(tf):
    return tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.constant([[0, 1]]), logits=tf.constant(f32("e6", 2, 5)))


@error_case
def err_segment_not_sorted(tf):
    return tf.segment_sum(tf.constant(f64("e7", 3)), tf.constant([1, 0, 1]))


@error_case
def err_scatter_nd_out_of_range(tf):
    return tf.scatter_nd([[4]], tf.constant([1.0]), [3])


@error_case
def err_pad_bad_mode(tf):
    return tf.pad(tf.constant([1.0]), [[1, 1]], mode="WRAP")


@error_case
def err_dropout_rate(tf):
    return tf.nn.dropout(tf.constant([1.0]), rate=1.5)


@error_case
def err_reflect_pad_too_big(tf):
    return tf.pad(tf.constant(f64("e8", 2, 3)), [[2, 0], [0, 0]], "REFLECT")


@error_case
def err_mse_shapes(tf):
    return tf.losses.mean_squared_error(tf.constant(f32("e9", 3, 2)),
                                        tf.constant(f32("e10", 2, 3)))


@error_case
def err_top_k_too_big(tf):
    return tf.nn.top_k(tf.constant(f64("e11", 2, 3)), 4)


@error_case
def err_argmax_empty(tf):
    return tf.argmax(tf.zeros([0, 3]), 0)


def grad_weights(name, shape):
    """The `grad_ys` both sides use for case `name`."""
    return rng("w:" + name).uniform(-1, 1, shape)


# -- random ops: names, dtypes and shapes are compared; values are checked statistically ---------
RANDOM_CASES = set()


def random_case(fn):
    RANDOM_CASES.add(fn.__name__)
    return case(fn)


@random_case
def dropout_rate(tf):
    x = tf.constant(np.ones((200, 50), np.float32))
    return {"out": [tf.nn.dropout(x, rate=0.25, seed=3),
                    tf.nn.dropout(x, keep_prob=0.5, seed=4),
                    tf.nn.dropout(x, rate=0.5, noise_shape=[200, 1], seed=5)]}


@random_case
def random_shuffle_and_multinomial(tf):
    tf.set_random_seed(7)
    return {"out": [tf.random_shuffle(tf.constant(np.arange(100))),
                    tf.multinomial(tf.constant(np.log([[0.1, 0.6, 0.3]] * 2), tf.float32),
                                   2000),
                    tf.multinomial(tf.constant([[0.0, 0.0]]), 5, output_dtype=tf.int32)]}
