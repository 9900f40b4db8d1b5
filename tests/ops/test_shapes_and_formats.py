"""Static shapes with unknown dimensions, NCHW against NHWC, and kernel-level checks."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.nn import nn_kernels


def _nchw(a):
    return np.transpose(a, (0, 3, 1, 2))


def test_static_shapes_with_unknown_dims():
    x = tf.placeholder(tf.float32, [None, 9, 10, 3])
    w = tf.zeros([3, 3, 3, 5])
    assert tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME").shape.as_list() == [None, 5, 5, 5]
    assert tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID").shape.as_list() == [None, 7, 8, 5]
    assert tf.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "VALID").shape.as_list() == \
        [None, 4, 4, 3]
    assert tf.nn.depthwise_conv2d(x, tf.zeros([3, 3, 3, 2]), [1, 1, 1, 1],
                                  "SAME").shape.as_list() == [None, 9, 10, 6]
    assert tf.nn.conv2d_transpose(tf.placeholder(tf.float32, [2, 4, 4, 5]), w,
                                  [2, 8, 8, 3], [1, 2, 2, 1]).shape.as_list() == [2, 8, 8, 3]
    v = tf.placeholder(tf.float32, [None, 6])
    assert [t.shape.as_list() for t in tf.split(v, [1, -1, 2], 1)] == \
        [[None, 1], [None, 3], [None, 2]]
    assert tf.argmax(v, 1).shape.as_list() == [None]
    assert tf.nn.top_k(v, 2)[1].shape.as_list() == [None, 2]
    assert tf.one_hot(tf.placeholder(tf.int32, [None]), 4).shape.as_list() == [None, 4]
    assert tf.pad(v, [[1, 1], [2, 0]]).shape.as_list() == [None, 8]
    assert tf.gather_nd(tf.zeros([3, 4, 5]), tf.placeholder(tf.int32, [None, 2])) \
        .shape.as_list() == [None, 5]
    assert tf.segment_sum(tf.zeros([4, 3]), [0, 0, 1, 1]).shape.as_list() == [None, 3]
    assert tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.placeholder(tf.int32, [None]), logits=v).shape.as_list() == [None]


def test_shape_errors_at_build_time():
    with pytest.raises(ValueError):
        tf.nn.conv2d(tf.zeros([1, 4, 4]), tf.zeros([2, 2, 1, 1]), [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError):
        tf.split(tf.zeros([4, 6]), [2, 2], 1)
    with pytest.raises(ValueError):
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.zeros([2, 3]),
                                                   logits=tf.zeros([2, 4]))
    with pytest.raises(ValueError):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.zeros([2, 3]),
                                                logits=tf.zeros([3, 2]))
    with pytest.raises(ValueError):
        tf.nn.max_pool(tf.zeros([1, 4, 4, 1]), [1, 2, 2, 1], [1, 1, 1, 1], "FULL")
    with pytest.raises(TypeError):
        tf.clip_by_global_norm(tf.zeros([2]), 1.0)
    with pytest.raises(ValueError):
        tf.losses.get_total_loss()


@pytest.mark.parametrize("op", ["conv", "depthwise", "max_pool", "avg_pool", "bias",
                                "conv_transpose"])
def test_nchw_matches_nhwc(op):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 7, 6, 3)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 4)).astype(np.float32)
    builders = {
        "conv": lambda v, df, s: tf.nn.conv2d(v, w, s, "SAME", data_format=df),
        "depthwise": lambda v, df, s: tf.nn.depthwise_conv2d(
            v, w[:, :, :, :2], s, "VALID", data_format=df),
        "max_pool": lambda v, df, s: tf.nn.max_pool(v, [1, 1, 3, 3] if df == "NCHW" else
                                                    [1, 3, 3, 1], s, "SAME", data_format=df),
        "avg_pool": lambda v, df, s: tf.nn.avg_pool(v, [1, 1, 2, 3] if df == "NCHW" else
                                                    [1, 2, 3, 1], s, "SAME", data_format=df),
        "bias": lambda v, df, s: tf.nn.bias_add(v, tf.constant([1.0, 2.0, 3.0]), df),
        "conv_transpose": lambda v, df, s: tf.nn.conv2d_transpose(
            v, w[:, :, :2, :], [2, 2, 13, 11] if df == "NCHW" else [2, 13, 11, 2], s,
            "SAME", data_format=df),
    }
    if op == "conv_transpose":
        x = rng.standard_normal((2, 7, 6, 4)).astype(np.float32)
    nhwc = builders[op](tf.constant(x), "NHWC", [1, 2, 2, 1])
    nchw = builders[op](tf.constant(_nchw(x)), "NCHW", [1, 1, 2, 2])
    with tf.Session() as sess:
        a, b = sess.run([nhwc, nchw])
    np.testing.assert_allclose(_nchw(a), b, rtol=1e-5, atol=1e-5)


def test_conv_gradients_nchw_match_nhwc():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 6, 5, 3))
    w = rng.standard_normal((3, 3, 3, 2))
    xs = [tf.constant(x), tf.constant(_nchw(x))]
    wt = tf.constant(w)
    ys = [tf.nn.conv2d(xs[0], wt, [1, 2, 1, 1], "SAME"),
          tf.nn.conv2d(xs[1], wt, [1, 1, 2, 1], "SAME", data_format="NCHW")]
    g = rng.standard_normal((2, 3, 5, 2))
    grads = [tf.gradients(ys[0], [xs[0], wt], grad_ys=g),
             tf.gradients(ys[1], [xs[1], wt], grad_ys=_nchw(g))]
    with tf.Session() as sess:
        (dx0, dw0), (dx1, dw1) = sess.run(grads)
    np.testing.assert_allclose(_nchw(dx0), dx1, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(dw0, dw1, rtol=1e-10, atol=1e-10)


def test_conv_kernel_against_direct_sum():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 6, 7, 3))
    w = rng.standard_normal((3, 2, 3, 4))
    got = nn_kernels.conv2d(x, w, (2, 1), (1, 2), "VALID")
    oh, ow = (6 - 3) // 2 + 1, (7 - 3) // 1 + 1
    want = np.zeros((2, oh, ow, 4))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, 2 * i:2 * i + 3, j:j + 3:2]  # width dilated by 2
            want[:, i, j] = np.einsum("nhwc,hwco->no", patch, w)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_bad_input_errors_at_run_time():
    with pytest.raises(ValueError):
        tf.one_hot([1], -1)
    depth = tf.placeholder(tf.int32, [])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(tf.one_hot([1], depth), {depth: -1})
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(tf.unsorted_segment_sum(tf.ones([3]), [0, 5, 1], 3))
        idx = tf.placeholder(tf.int32, [None])
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(tf.nn.embedding_lookup(tf.ones([3, 2]), idx), {idx: [3]})
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(tf.nn.conv2d_transpose(tf.ones([1, 2, 2, 1]), tf.ones([2, 2, 1, 1]),
                                            [1, 5, 5, 1], [1, 2, 2, 1]))


def test_fused_batch_norm_nchw_and_running_average():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 5, 3, 2)).astype(np.float32)
    scale = np.array([1.0, 0.5], np.float32)
    offset = np.array([0.2, -0.1], np.float32)
    run_mean = np.array([0.5, -0.5], np.float32)
    run_var = np.array([2.0, 1.5], np.float32)
    y0, m0, v0 = tf.nn.fused_batch_norm(tf.constant(x), scale, offset)
    y1, m1, v1 = tf.nn.fused_batch_norm(tf.constant(_nchw(x)), scale, offset,
                                        data_format="NCHW")
    _, m2, v2 = tf.nn.fused_batch_norm(tf.constant(x), scale, offset, run_mean, run_var,
                                       exponential_avg_factor=0.1)
    with tf.Session() as sess:
        a, b, mean, var, mean2, var2 = sess.run([y0, y1, m0, v0, m2, v2])
    np.testing.assert_allclose(_nchw(a), b, rtol=1e-5, atol=1e-5)
    n = x.size // 2
    np.testing.assert_allclose(mean, x.mean((0, 1, 2)), rtol=1e-5)
    np.testing.assert_allclose(var, x.var((0, 1, 2)) * n / (n - 1), rtol=1e-5)  # unbiased
    np.testing.assert_allclose(mean2, 0.9 * run_mean + 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(var2, 0.9 * run_var + 0.1 * var, rtol=1e-5)
    with pytest.raises(ValueError):
        tf.nn.fused_batch_norm(tf.constant(x), scale, offset, is_training=False)


def test_slice_with_unknown_begin_takes_dims_from_constant_sizes():
    # TF 1.15 (observed): the sizes alone give the dims whose size is not -1, so
    # random_crop's output shape is the crop size (its begin is random)
    x = tf.placeholder(tf.float32, [32, 32, 3])
    begin = tf.placeholder(tf.int32, [3])
    assert tf.random_crop(x, [24, 24, 3]).shape.as_list() == [24, 24, 3]
    assert tf.slice(x, begin, [-1, 24, 3]).shape.as_list() == [None, 24, 3]
    assert tf.slice(tf.placeholder(tf.float32), begin, [2, 24, 3]).shape.as_list() == [2, 24, 3]
    assert tf.slice(x, begin, tf.placeholder(tf.int32, [3])).shape.as_list() == [None] * 3
