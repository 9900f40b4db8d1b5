"""Programs run on TF 1.15 (record_tfmath_kernels.py writes tfmath_kernels_tf.json) and on
flowloom (tests/ops/test_tfmath_kernels_vs_tf.py): the math kernels, casts, shape checks
and errors that TF 1.15's kernel tests exercise. Each entry is a value (nested lists), a
dtype name, a static shape, or [error class, first line of the message]."""

import re

import numpy as np


def _value(x):
    if isinstance(x, (list, tuple)):
        return [_value(v) for v in x]
    x = np.asarray(x)
    if x.dtype.kind == "c":
        return [[float(v.real), float(v.imag)] for v in x.reshape(-1)] + [list(x.shape)]
    if x.dtype.kind == "f":
        return [None if np.isnan(v) else float(v) for v in x.reshape(-1)] + [list(x.shape)]
    if x.dtype.kind in "SO":
        return [v if isinstance(v, str) else bytes(v).decode() for v in x.reshape(-1)]
    return x.tolist()


def _error(e):
    message = getattr(e, "message", None) or str(e)
    return [type(e).__name__, message.split("\n")[0]]


def _run(s, fn):
    try:
        return _value(s.run(fn()))
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return _error(e)


def _build(fn):
    """What building `fn()` gives: its static shape and dtype, or the error."""
    try:
        t = fn()
    except Exception as e:  # noqa: BLE001
        return _error(e)
    return [None if t.shape.ndims is None else t.shape.as_list(), t.dtype.name]


def scan_program(tf):
    out = {}
    with tf.Graph().as_default(), tf.Session() as s:
        for name in ("cumsum", "cumprod"):
            for exclusive in (True, False):
                for reverse in (True, False):
                    out[f"{name}_empty_{exclusive}_{reverse}"] = _run(s, lambda: getattr(
                        tf, name)(np.zeros([0, 3], np.float32), 0, exclusive, reverse))
                    out[f"{name}_empty1_{exclusive}_{reverse}"] = _run(s, lambda: getattr(
                        tf, name)(np.zeros([2, 0], np.int32), 1, exclusive, reverse))
    return out


def cwise_program(tf):
    out = {}
    with tf.Graph().as_default(), tf.Session() as s:
        a, b = tf.Variable(0.2), tf.Variable(0.1)
        out["accumulate_wrong_shape"] = _build(lambda: tf.accumulate_n([a, b], shape=[2, 2]))
        out["accumulate_wrong_dtype"] = _build(lambda: tf.accumulate_n([a, b],
                                                                       tensor_dtype=np.int32))
        out["accumulate_mixed"] = _build(lambda: tf.accumulate_n([a, tf.constant(1)]))
        acc = tf.accumulate_n([tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])], shape=[None])
        out["accumulate_op"] = [acc.op.type, acc.op.name, acc.shape.as_list()]
        out["accumulate_value"] = _run(s, lambda: acc)
        one = tf.accumulate_n([tf.constant([1.0])], name="one")
        out["accumulate_one"] = [one.op.type, one.op.name]
        out["accumulate_grad"] = _run(s, lambda: tf.gradients(
            tf.accumulate_n([a * 2.0, a * a]), a))
        x = np.zeros([16, 3, 2])
        for key, c in (("c8", [True] * 8), ("c16", [True] * 16), ("c32", [[True] * 2] * 3),
                       ("c_full", np.ones([16, 3, 2], bool)), ("scalar", True)):
            out["where_" + key] = _build(lambda: tf.where(c, x, x))
        out["where_vector_scalar"] = _build(lambda: tf.where([True, False], 1.0, 2.0))
        out["where_unknown"] = _build(lambda: tf.where(tf.placeholder(tf.bool), x, x))
        for dt in ("string", "bool", "float32", "int32"):
            out["conj_" + dt] = _build(lambda: tf.conj(tf.placeholder(getattr(tf, dt))))
        t, f = tf.constant(True), tf.constant(False)
        out["rxor"] = _run(s, lambda: [True ^ f, False ^ t, True ^ t, t ^ False])
        out["rxor_list"] = _run(s, lambda: [True, False] ^ tf.constant([True, True]))
        out["rxor_name"] = (True ^ f).op.name.split("/")[0].rstrip("_0123456789")
    return out


def cast_program(tf):
    out = {}
    with tf.Graph().as_default(), tf.Session() as s:
        st = tf.SparseTensor(tf.constant([[0], [1], [2]], tf.int64),
                             tf.constant(np.array([1, 2, 3], np.int64)),
                             tf.constant([3], tf.int64))
        sc = tf.cast(st, tf.float32)
        out["sparse_type"] = [type(sc).__name__, sc.values.dtype.name, sc.values.op.name,
                              sc.indices.op.name]
        out["sparse_values"] = _run(s, lambda: [sc.indices, sc.values, sc.dense_shape])
        same = tf.cast(st, tf.int64)
        out["sparse_same"] = [type(same).__name__, same.values.op.name]
        sl = tf.IndexedSlices(tf.constant([[1, 2]]), tf.constant([0]), tf.constant([4, 2]))
        slc = tf.cast(sl, tf.float64, name="slices")
        out["slices_type"] = [type(slc).__name__, slc.values.dtype.name, slc.values.op.name]
        out["slices_values"] = _run(s, lambda: [slc.values, slc.indices, slc.dense_shape])
        for src, dst in (("int64", "string"), ("string", "int32"), ("float32", "string"),
                         ("bool", "string"), ("float64", "float16")):
            ph = tf.placeholder(getattr(tf, src))
            feed = [b"1"] if src == "string" else np.zeros([2], getattr(tf, src).as_numpy_dtype)
            c = tf.cast(ph, getattr(tf, dst))
            out[f"cast_{src}_{dst}"] = [c.op.type, _feed_run(s, c, {ph: feed})]
    return out


def _feed_run(s, t, feed):
    try:
        return _value(s.run(t, feed))
    except Exception as e:  # noqa: BLE001
        return _error(e)


def kernel_attrs_program(tf):
    """Attr checks TF makes when it constructs a kernel: before an unfed input fails."""
    out = {}
    with tf.Graph().as_default(), tf.Session() as s:
        ph = lambda: tf.placeholder(tf.float32)  # noqa: E731
        for key, strides, fmt in (("n", [2, 1, 1, 1], "NHWC"), ("c", [1, 1, 1, 2], "NHWC"),
                                  ("ok", [1, 2, 2, 1], "NHWC"), ("nchw_c", [1, 2, 1, 1], "NCHW")):
            out["conv_" + key] = _run(s, lambda: tf.nn.conv2d(ph(), ph(), strides=strides,
                                                              padding="SAME", data_format=fmt))
        out["conv_dilation"] = _run(s, lambda: tf.nn.conv2d(
            ph(), ph(), strides=[1, 1, 1, 1], dilations=[1, 1, 1, 2], padding="SAME"))
        pad = [[0, 0], [-1, 0], [0, 0], [0, 0]]
        out["conv_input_grad_negative_pad"] = _run(s, lambda: tf.nn.conv2d_backprop_input(
            [32, 20, 20, 3], tf.placeholder(tf.float32, shape=[18, 18, 3, 2]),
            tf.placeholder(tf.float32, shape=[32, 3, 2, 2]), strides=[1, 1, 1, 1],
            padding=pad))
        out["conv_filter_grad_negative_pad"] = _run(s, lambda: tf.nn.conv2d_backprop_filter(
            tf.placeholder(tf.float32, shape=[32, 20, 20, 3]), [18, 18, 3, 2],
            tf.placeholder(tf.float32, shape=[32, 3, 2, 2]), strides=[1, 1, 1, 1],
            padding=pad))
        for name in ("max_pool", "avg_pool"):
            for key, ksize, strides in (("stride_n", [1, 1, 1, 1], [2, 1, 1, 1]),
                                        ("ksize_n", [2, 1, 1, 1], [1, 1, 1, 1]),
                                        ("ok", [1, 2, 2, 1], [1, 1, 1, 1])):
                out[f"{name}_{key}"] = _run(s, lambda: getattr(tf.nn, name)(
                    ph(), ksize=ksize, strides=strides, padding="SAME"))
    # Which unfed placeholder is named first is an order TF does not promise.
    return {k: [v[0], re.sub(r"'Placeholder_?\d*'", "'Placeholder'", v[1])]
            for k, v in out.items()}


def random_program(tf):
    out = {}
    with tf.Graph().as_default(), tf.Session() as s:
        for dt in ("int32", "int64"):
            out["uniform_int_vector_min_" + dt] = _build(lambda: tf.random_uniform(
                [1000], minval=[1, 2], maxval=3, dtype=getattr(tf, dt)))
            out["uniform_int_vector_max_" + dt] = _build(lambda: tf.random_uniform(
                [1000], minval=1, maxval=[2, 3], dtype=getattr(tf, dt)))
            out["uniform_int_degenerate_" + dt] = _run(s, lambda: tf.random_uniform(
                [1], minval=0, maxval=0, dtype=getattr(tf, dt)))
            out["uniform_int_degenerate_empty_" + dt] = _run(s, lambda: tf.random_uniform(
                [0], minval=0, maxval=0, dtype=getattr(tf, dt)))
    out = {k: [v[0], v[1].split(" for '")[0]] if v[:1] == ["ValueError"] else v
           for k, v in out.items()}
    return out


SECTIONS = ("scan", "cwise", "cast", "kernel_attrs", "random")


def program(tf):
    return {name: globals()[name + "_program"](tf) for name in SECTIONS}
