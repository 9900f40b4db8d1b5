"""Programs run on TF 1.15 (record_tfmath.py writes tfmath_tf.json) and on flowloom
(tests/ops/test_tfmath_vs_tf.py): segment reductions (sorted, unsorted, sparse, their *Grad
ops and gradients) with their error messages, and the other math ops of TF 1.15's kernel
tests. Each entry is a value (nested lists), a static shape, or [error class, first line of
the message]."""

import numpy as np


def _value(x):
    if isinstance(x, (list, tuple)):
        return [_value(v) for v in x]
    x = np.asarray(x)
    if x.dtype.kind == "c":
        return [[float(v.real), float(v.imag)] for v in x.reshape(-1)]
    if x.dtype.kind == "f":
        return [None if np.isnan(v) else float(v) for v in x.reshape(-1)] + [list(x.shape)]
    return x.tolist()


def _run(s, fn):
    try:
        return _value(s.run(fn()))
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        message = getattr(e, "message", None) or str(e)
        return [type(e).__name__, message.split("\n")[0]]


def _shape(t):
    return None if t.shape.ndims is None else t.shape.as_list()


def segment_program(tf):
    x = np.arange(1, 13, dtype=np.float64).reshape(6, 2) * np.array([1.0, -1.0])
    ix = np.arange(1, 13, dtype=np.int32).reshape(6, 2)
    out = {}
    with tf.Graph().as_default(), tf.Session() as s:
        for name in ("segment_sum", "segment_mean", "segment_prod", "segment_min",
                     "segment_max"):
            fn = getattr(tf, name)
            out[name] = _run(s, lambda: fn(x, [0, 0, 1, 3, 3, 3]))
            out[name + "_int"] = _run(s, lambda: fn(ix, [0, 0, 0, 2, 2, 4]))
            for bad in ([0, 1, 0, 1, 2, 2], [-1, -1, 0, 0, 1, 1], [0, 1, 2, 0, 0, 0],
                        [0, 0, 0, 0, 0, -1], [0, 0, 0, 0, 0, -2], [0, 1]):
                out[f"{name}_bad_{bad}"] = _run(s, lambda: fn(x, bad))
        out["segment_shape"] = _shape(tf.segment_max(tf.zeros([4, 3, 2]), [0, 0, 1, 1]))
        out["segment_rank_error"] = _run(s, lambda: tf.segment_sum(tf.zeros([4]),
                                                                   [[0, 1], [2, 3]]))
        out["segment_complex_min"] = _run(s, lambda: tf.segment_min(
            tf.constant([1 + 1j]), [0]))
        ids = np.array([0, 4, 0, -1, 3, -1, 4, 7, 7, 3], np.int32)
        y = np.arange(1, 21, dtype=np.float32).reshape(10, 2) - 7.5
        for name in ("unsorted_segment_sum", "unsorted_segment_prod", "unsorted_segment_min",
                     "unsorted_segment_max", "unsorted_segment_mean",
                     "unsorted_segment_sqrt_n"):
            fn = getattr(tf, name)
            out[name] = _run(s, lambda: fn(y, ids, 9))
            out[name + "_2d"] = _run(s, lambda: fn(y.reshape(5, 2, 2), ids.reshape(5, 2), 9))
        out["unsorted_min_int"] = _run(s, lambda: tf.unsorted_segment_min(
            ix, [0, 0, 1, 1, 3, 3], 5))
        out["unsorted_max_f16"] = _run(s, lambda: tf.unsorted_segment_max(
            x.astype(np.float16), [0, 0, 1, 1, 3, 3], 5))
        out["unsorted_bad_2d"] = _run(s, lambda: tf.unsorted_segment_sum([[17.0]], [[7]], 2))
        out["unsorted_bad_1d"] = _run(s, lambda: tf.unsorted_segment_sum(y, ids, 5))
        out["unsorted_bad_prefix"] = _run(s, lambda: tf.unsorted_segment_max(
            y, tf.placeholder_with_default(ids[:4], [None]), 9))
        out["unsorted_shape"] = _shape(tf.unsorted_segment_max(tf.zeros([5, 2, 3]),
                                                               tf.zeros([5, 2], tf.int32), 7))
        data = np.arange(40, dtype=np.float64).reshape(10, 4) / 4.0
        for name in ("sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n"):
            fn = getattr(tf, name)
            out[name] = _run(s, lambda: fn(data, [8, 3, 0, 9, 9, 1, 2, 2, 2, 2, 2, 2, 2, 2,
                                                  2, 2], [0, 2, 2, 2, 3] + [5] * 11))
            out[name + "_num"] = _run(s, lambda: fn(data, [8, 3, 0, 9], [0, 2, 2, 2],
                                                    num_segments=5))
            out[name + "_empty"] = _run(s, lambda: fn(tf.zeros([0, 4]), [], [],
                                                      num_segments=3))
            for indices, seg in (([8, -1, 0, 9], [0, 1, 2, 2]), ([8, 3, 0, 10], [0, 1, 2, 2]),
                                 ([8, 3, 0, 9], [0, 1, 0, 1]), ([8, 3, 0, 9], [0, 1, 2, 0]),
                                 ([8, 3, 0, 9], [-1, 0, 1, 1]), ([8, 3, 0, 9], [0, 0, 0, -1]),
                                 ([8, 3, 0, 9], [0, 0, 0, -2]), ([8, 3, 0], [0, 0, 1])):
                out[f"{name}_bad_{indices}_{seg}"] = _run(s, lambda: fn(data, indices, seg))
            out[name + "_num_small"] = _run(s, lambda: fn(data, [8, 3, 0, 9], [0, 1, 3, 5],
                                                          num_segments=5))
            try:
                fn(data, [8, 3, 0, 9], [0, 1, 3, 3], num_segments=-2)
                out[name + "_num_negative"] = None
            except ValueError as e:
                out[name + "_num_negative"] = [type(e).__name__, str(e).split("\n")[0][:40]]
        out["sparse_num_shape"] = _shape(tf.sparse_segment_sum(
            tf.zeros([10, 3]), [0, 1], [0, 0], num_segments=6))
        g = np.arange(12, dtype=np.float32).reshape(3, 4)
        for name in ("sparse_segment_mean_grad", "sparse_segment_sqrt_n_grad"):
            fn = _grad_fn(tf, name)
            out[name] = _run(s, lambda: fn(g, [8, 3, 0, 9], [0, 1, 2, 2], 10))
            for indices, seg, rows in (([8, 3, 0, 10], [0, 1, 2, 2], 3),
                                       ([8, 3, -1, 9], [0, 1, 2, 2], 3),
                                       ([8, 3, 0, 9], [0, 1, 1, 4], 3),
                                       ([8, 3, 0, 9], [0, 1, 2, 0], 1),
                                       ([8, 3, 0, 9], [-1, 0, 1, 1], 2),
                                       ([8, 3, 0, 9], [0, 1, 2, -1], 0)):
                out[f"{name}_bad_{indices}_{seg}_{rows}"] = _run(
                    s, lambda: fn(g[:rows], indices, seg, 10))
        # gradients
        xt = tf.constant(x)
        for name in ("segment_sum", "segment_mean", "segment_min", "segment_max"):
            r = getattr(tf, name)(xt, [0, 0, 1, 3, 3, 3])
            out[name + "_grad"] = _run(s, lambda: tf.gradients(r * r, xt)[0])
        yt = tf.constant(np.array([0, 0, 1, 0, 2, 2, 3, 3, 3], np.float32))
        for seg in ([0, 0, 0, 1, 1, 1, 2, 2, 2], [-1, 0, 0, -1, 1, 1, -1, 2, 2]):
            for name in ("unsorted_segment_prod", "unsorted_segment_max",
                         "unsorted_segment_min", "unsorted_segment_sum"):
                r = getattr(tf, name)(yt, seg, 3)
                out[f"{name}_grad_{seg}"] = _run(s, lambda: tf.gradients(r * r, yt)[0])
        dt = tf.constant(data)
        for name in ("sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n"):
            for kw in ({}, {"num_segments": 5}):
                r = getattr(tf, name)(dt, [8, 3, 0, 9, 3], [0, 1, 1, 1, 2], **kw)
                out[f"{name}_grad_{sorted(kw)}"] = _run(s, lambda: tf.gradients(r * r, dt)[0])
    return out


def _grad_fn(tf, name):
    """math_ops' SparseSegment*Grad wrapper (not in TF 1.15's public API)."""
    import importlib

    for module in ("tensorflow.python.ops.math_ops", "flowloom.ops.math.math_ops"):
        try:
            return getattr(importlib.import_module(module), name)
        except ImportError:
            continue
    raise ImportError(name)


def metrics_program(tf):
    """mean_cosine_distance, sensitivity/specificity at a point, careful PR AUC, metrics with
    inputs and weights of unknown rank (two update steps each)."""
    rng = np.random.RandomState(3)
    labels = (rng.uniform(size=(2, 12)) > 0.5).astype(np.float32)
    preds = rng.uniform(size=(2, 12)).astype(np.float32)
    weights = rng.uniform(size=(2, 12)).astype(np.float32)
    out = {}

    def steps(name, build, feeds=None):
        with tf.Graph().as_default(), tf.Session() as s:
            try:
                value, update = build()
                s.run(tf.local_variables_initializer())
                got = [float(s.run(update, feeds)) for _ in range(2)]
                out[name] = got + [float(s.run(value))]
            except Exception as e:  # noqa: BLE001
                out[name] = [type(e).__name__, (getattr(e, "message", None) or str(e))
                             .split("\n")[0]]

    a = np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0]], np.float32)
    b = np.array([[0.0, 1.0, 0.0], [0.6, 0.8, 0.0]], np.float32)
    steps("cosine", lambda: tf.metrics.mean_cosine_distance(a, b, dim=1))
    steps("cosine_w", lambda: tf.metrics.mean_cosine_distance(a, b, dim=1,
                                                              weights=[[1.0], [3.0]]))
    for spec in (0.2, 0.5, 0.8):
        steps(f"sens_at_spec_{spec}", lambda: tf.metrics.sensitivity_at_specificity(
            labels, preds, spec, weights=weights, num_thresholds=50))
        steps(f"spec_at_sens_{spec}", lambda: tf.metrics.specificity_at_sensitivity(
            labels, preds, spec, num_thresholds=50))
    steps("sens_bad", lambda: tf.metrics.sensitivity_at_specificity(labels, preds, 1.5))
    for method in ("careful_interpolation", "trapezoidal", "minoring", "majoring"):
        steps(f"auc_pr_{method}", lambda: tf.metrics.auc(labels, preds, weights=weights,
                                                         curve="PR", num_thresholds=20,
                                                         summation_method=method))
    ph = tf.placeholder(tf.float32)
    feeds = {}

    def with_placeholders():
        p, lab = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
        w = tf.placeholder(tf.float32)
        feeds.update({p: preds.reshape(2, 12, 1), lab: labels, w: weights.reshape(2, 12, 1)})
        return tf.metrics.precision(lab, p, weights=w)
    steps("precision_unknown_ranks", with_placeholders, feeds)
    feeds2 = {}

    def mean_unknown_weights():
        w = tf.placeholder(tf.float32)
        feeds2[w] = weights[0]
        return tf.metrics.mean(preds[0], w)
    steps("mean_unknown_weights", mean_unknown_weights, feeds2)
    feeds3 = {}

    def mean_bad_weights():
        v = tf.placeholder(tf.float32)
        feeds3[v] = preds
        return tf.metrics.mean(v, np.ones((2, 1, 1), np.float32))
    steps("mean_bad_weights", mean_bad_weights, feeds3)
    del ph
    return out


def math_program(tf):
    """Special functions, bitwise, unique along an axis, broadcast shapes, complex gradients,
    the gradient checker on complex numbers, unary ops on SparseTensors."""
    import importlib

    def internal(tf_module, flowloom_module, name):
        """TF's gen_* wrapper under TF, flowloom's op module's under flowloom."""
        module = "tensorflow.python.ops." + tf_module if tf.__name__ == "tensorflow" else \
            "flowloom.ops." + flowloom_module
        return getattr(importlib.import_module(module), name)

    out = {}
    x = np.array([-40.0, -5.0, -0.5, 0.0, 0.3, 2.0, 29.5, 31.0, 100.0])
    z = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j], np.complex128)
    with tf.Graph().as_default(), tf.Session() as s:
        out["i0e"] = _run(s, lambda: tf.math.bessel_i0e(x))
        out["i1e"] = _run(s, lambda: tf.math.bessel_i1e(x.astype(np.float32)))
        xt = tf.constant(x[1:7])
        out["i0e_grad"] = _run(s, lambda: tf.gradients(tf.math.bessel_i0e(xt), xt)[0])
        out["i1e_grad"] = _run(s, lambda: tf.gradients(tf.math.bessel_i1e(xt), xt)[0])
        pop = internal("gen_bitwise_ops", "math.special_math_ops", "population_count")
        for dt in (np.int8, np.uint16, np.int64):
            out[f"popcount_{dt.__name__}"] = _run(s, lambda: pop(
                np.array([0, 1, -1, 3, 127, -128, 100], np.int64).astype(dt)))
        uniq = internal("gen_array_ops", "math.segment_ops", "unique_with_counts_v2")
        m = np.array([[1, 0, 0], [1, 0, 0], [2, 0, 0]])
        for ax in ([0], [1], [-1], [2], [0, 1]):
            out[f"unique_v2_{ax}"] = _run(s, lambda: list(uniq(m, axis=ax)))
        out["unique_v2_empty_axis_2d"] = _run(s, lambda: list(uniq(m, axis=np.array([],
                                                                                  np.int32))))
        out["broadcast_args"] = _run(s, lambda: tf.broadcast_dynamic_shape([2, 1, 5], [3, 1]))
        out["broadcast_args_bad"] = _run(s, lambda: tf.broadcast_dynamic_shape([2, 3], [4]))
        out["broadcast_static"] = tf.broadcast_static_shape(tf.TensorShape([None, 1]),
                                                            tf.TensorShape([4])).as_list()
        approximate_equal = internal("math_ops", "math.extra_math_ops", "approximate_equal")
        out["approx_equal"] = _run(s, lambda: approximate_equal(
            [1.0, 2.0, 3.0], [1.000001, 2.1, 3.00009], tolerance=1e-4))
        out["nextafter"] = _run(s, lambda: tf.math.nextafter([1.0, 1.0, 0.0], [2.0, 0.0, -1.0]))
        out["polyval"] = _run(s, lambda: tf.math.polyval([2.0, -1.0, 3.0], [0.5, 2.0]))
        out["reciprocal_no_nan"] = _run(s, lambda: tf.math.reciprocal_no_nan([2.0, 0.0, -4.0]))
        out["squared_difference_complex"] = _run(s, lambda: tf.squared_difference(
            z, z[::-1].copy()))
        zt = tf.constant(z)
        w = tf.constant(z[::-1].copy())
        for name, fn in (("mul", lambda a: a * w), ("div", lambda a: a / w),
                         ("square", tf.square), ("exp", tf.exp), ("log", tf.log),
                         ("sqrt", tf.sqrt), ("rsqrt", tf.rsqrt), ("reciprocal", tf.reciprocal),
                         ("tanh", tf.tanh), ("sigmoid", tf.sigmoid), ("sin", tf.sin),
                         ("pow", lambda a: tf.pow(a, w)), ("asinh", tf.asinh),
                         ("conj", tf.conj),
                         ("prod", lambda a: tf.reduce_prod(tf.stack([a, w, a]), axis=0))):
            out[f"complex_grad_{name}"] = _run(s, lambda: tf.gradients(
                fn(zt), zt, grad_ys=tf.constant(np.array([1 - 1j, 2j, 0.5], np.complex128)))[0])
        with s.as_default():
            c = tf.constant(5 + 7j, tf.complex64)
            cx = tf.constant(11 - 13j, tf.complex64)
            ja, jn = tf.test.compute_gradient(cx, (), c * cx, ())
            out["checker_complex_mul"] = [ja.tolist(), np.round(jn, 1).tolist()]
        sp = tf.SparseTensor([[0, 0], [1, 2]], [-1.5, 4.0], [2, 3])
        for name in ("abs", "negative", "sign", "square", "sqrt", "erf", "tanh"):
            out[f"sparse_{name}"] = _run(s, lambda: getattr(tf, name)(sp).values)
        for axes in ((0, 0), (0, -2), (-1, 1, 0)):
            out[f"reduce_sum_axes_{axes}"] = _run(s, lambda: tf.reduce_sum(
                np.arange(6).reshape(2, 3), axis=axes))
            out[f"reduce_max_axes_{axes}_shape"] = _shape(tf.reduce_max(
                tf.zeros([2, 3]), axis=axes, keepdims=True))
        out["clip_by_average_norm"] = _run(s, lambda: tf.clip_by_average_norm(
            tf.constant([[-3.0, 0.0, 0.0], [4.0, 0.0, 0.0]]), 0.8))
        out["clip_by_norm_bad_shape"] = _run(s, lambda: tf.clip_by_norm(
            tf.zeros([2, 3, 1]), tf.constant([1.0, 2.0])))
        out["cumsum_axis_vector"] = None
    with tf.Graph().as_default(), tf.Session() as s:
        xp = tf.placeholder(tf.float32)
        yl = tf.log(xp)
        check = tf.add_check_numerics_ops()
        out["check_numerics_ok"] = _value(s.run([yl, check], {xp: 2.0})[0])
        out["check_numerics_nan"] = _run(s, lambda: s.run([yl, check], {xp: -1.0})[0])
    with tf.Graph().as_default(), tf.Session() as s:
        out["cumsum_axis_vector"] = _run(s, lambda: tf.cumsum([[1.0, 2.0]], [0]))
    return out


def program(tf):
    return {"segment": segment_program(tf), "metrics": metrics_program(tf),
            "math": math_program(tf)}
