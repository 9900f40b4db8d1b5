"""One program run on TF 1.15 (record_nn_v2.py) and on flowloom (tests/ops/test_nn_v2.py):
the `_v2` pooling / transposed convolution / softmax / moments wrappers, DataFormatDimMap and
DataFormatVecPermute, MaxPoolV2, max pooling across depth and its errors, max-pooling
gradients with NaN (TF's CPU routing) and second-order max-pooling gradients, and the
shape-inference error of a window larger than its input. `ops` maps the names to the module
under test's functions (TF keeps some out of its public API)."""

import numpy as np


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message start are compared
        return [type(e).__name__, str(e).split("\n")[0][:60]]
    return None


def _grid(*shape):
    return (np.arange(np.prod(shape), dtype=np.float32) * 37 % 23).reshape(shape) / 7.0


def program(tf, ops):
    r = {}
    x4 = _grid(2, 5, 6, 3)
    with tf.Graph().as_default(), tf.Session() as s:
        def run(t):
            return np.round(s.run(t).astype(np.float64), 5).tolist()

        r["max_pool_v2_1d"] = run(ops["max_pool_v2"](_grid(2, 7, 3), 3, 2, "SAME"))
        r["max_pool_v2_2d_nchw"] = run(ops["max_pool_v2"](
            np.transpose(x4, [0, 3, 1, 2]), [2, 3], [2, 1], "VALID", data_format="NCHW")) \
            if ops["nchw"] else None
        r["avg_pool_v2_2d"] = run(ops["avg_pool_v2"](x4, 3, 2, "SAME"))
        r["avg_pool_v2_3d"] = run(ops["avg_pool_v2"](_grid(1, 4, 4, 4, 2), 2, 2, "VALID"))
        r["pool_rank_error"] = _err(lambda: ops["max_pool_v2"](tf.ones([3, 4]), 2, 2, "SAME"))
        r["conv_transpose_2d"] = run(ops["conv_transpose"](
            tf.constant(x4[:, :3, :3, :]), tf.constant(_grid(2, 2, 4, 3)), [2, 6, 6, 4], 2))
        r["conv_transpose_1d"] = run(ops["conv_transpose"](
            tf.constant(_grid(2, 4, 3)), tf.constant(_grid(3, 5, 3)), [2, 8, 5], 2))
        r["conv_transpose_len_error"] = _err(
            lambda: ops["conv_transpose"](None, 2, [2, 3], "SAME"))
        r["softmax_v2_axis0"] = run(ops["softmax_v2"](x4[0, 0], axis=0))
        r["log_softmax_v2"] = run(ops["log_softmax_v2"](x4[0, 0]))
        mean, var = ops["moments_v2"](tf.constant(x4), [0, 1, 2], keepdims=True)
        r["moments_v2"] = [run(mean), run(var)]
        r["dim_map"] = s.run(ops["data_format_dim_map"]([-4, -3, -2, -1, 0, 1, 2, 3],
                                                        src_format="NHWC",
                                                        dst_format="HWNC")).tolist()
        r["vec_permute"] = s.run(ops["data_format_vec_permute"](
            [[7, 4], [9, 3], [4, 5], [5, 1]], src_format="NCHW", dst_format="NHWC")).tolist()
        r["max_pool_raw_v2"] = run(ops["gen_max_pool_v2"](x4, [1, 2, 2, 1], [1, 2, 2, 1],
                                                          "SAME"))
        r["depth_max_pool"] = run(tf.nn.max_pool(_grid(1, 2, 2, 6), [1, 1, 1, 3],
                                                 [1, 1, 1, 3], "SAME"))
        r["depth_max_pool_shape"] = tf.nn.max_pool(tf.zeros([1, 2, 2, 6]), [1, 1, 1, 2],
                                                   [1, 1, 1, 2], "SAME").shape.as_list()
        for key, ksize, strides in (("depth_both", [1, 2, 2, 2], [1, 1, 1, 2]),
                                    ("depth_stride", [1, 1, 1, 2], [1, 1, 1, 1]),
                                    ("depth_divide", [1, 1, 1, 3], [1, 1, 1, 3])):
            r[key] = _err(lambda: s.run(tf.nn.max_pool(tf.ones([1, 2, 2, 4]), ksize, strides,
                                                       "SAME")))
        r["negative_dim"] = _err(lambda: tf.nn.max_pool(tf.zeros([3, 20, 20, 3]),
                                                        [1, 20, 21, 1], [1, 1, 1, 1],
                                                        "VALID"))
        nan = tf.constant(np.full([1, 4, 4, 1], np.nan, np.float32))
        pooled = tf.nn.max_pool(nan, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
        dy = tf.constant(np.array([np.nan, 12, 13, 15, np.nan, 17, 19, 20, np.nan],
                                  np.float32).reshape(1, 3, 3, 1))
        r["nan_grad"] = [None if np.isnan(v) else float(v) for v in
                         s.run(tf.gradients(pooled, nan, dy)[0]).reshape(-1)]
        xt = tf.constant(x4)
        y = tf.nn.max_pool(xt, [1, 3, 2, 1], [1, 2, 2, 1], "SAME")
        dy_t = tf.constant(_grid(2, 3, 3, 3))
        g = tf.gradients(y, xt, dy_t)[0]
        probe = tf.constant(_grid(2, 5, 6, 3)[::-1].copy())
        r["grad_of_grad"] = run(tf.gradients(g, dy_t, probe)[0])
        r["grad_of_grad_wrt_x"] = run(tf.gradients(g, xt, probe)[0])
        r["max_pool_grad_grad"] = run(ops["max_pool_grad_grad"](
            xt, y, probe, [1, 3, 2, 1], [1, 2, 2, 1], "SAME"))
    return r
