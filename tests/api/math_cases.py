"""tf.* functions of the TF1 top level: linear algebra, einsum/tensordot, sorting, counting,
grids (recorded from TF by tests/data/record_api.py)."""

import numpy as np

from tests.api.cases import Registry, f32, f64, spd

R = Registry()
case, error_case = R.case, R.error_case
EINSUM_NAMES = R.names_differ_from_tf(
    "TF 1.15 composes einsum from MatMul/Reshape; flowloom builds one Einsum op, as TF 2.x does")


@case
def band_part_and_diags(tf):
    x = tf.constant(f64("bp", 2, 4, 3))
    d = tf.constant(f64("bpd", 2, 3))
    return {"out": [tf.matrix_band_part(x, 1, 0), tf.matrix_band_part(x, -1, 1),
                    tf.matrix_diag(d), tf.matrix_diag_part(x), tf.matrix_set_diag(x, d),
                    tf.linalg.band_part(x, 0, -1)], "xs": [x]}


@case
def matrix_set_diag_grads(tf):
    x = tf.constant(f64("msd", 3, 3))
    d = tf.constant(f64("msdd", 3))
    return {"out": [tf.matrix_set_diag(x, d) * 2.0], "xs": [x, d]}


@case
def diag_any_rank(tf):
    d = tf.constant(f64("dg", 2, 3))
    return {"out": [tf.diag(d), tf.diag_part(tf.diag(d) * 3.0)], "xs": [d]}


@case
def eye_and_trace(tf):
    return {"out": [tf.eye(3), tf.eye(2, 4, dtype=tf.float64), tf.eye(2, batch_shape=[3]),
                    tf.trace(tf.constant(f64("tr", 2, 3, 3))),
                    tf.matrix_transpose(tf.constant(f64("mt", 2, 3, 4)))]}


@case
def inverse_and_determinant(tf):
    a = tf.constant(spd("inv", 3, (2,)))
    return {"out": [tf.matrix_determinant(a), tf.matrix_inverse(a),
                    tf.matrix_inverse(a, adjoint=True), tf.linalg.slogdet(a)[1],
                    tf.linalg.logdet(a)], "xs": [a]}


@case
def inverse_grad(tf):
    a = tf.constant(spd("invg", 3))
    return {"out": [tf.matrix_inverse(a)], "xs": [a]}


@case
def logdet_grad(tf):
    a = tf.constant(spd("ldg", 3, (2,)))
    return {"out": [tf.linalg.slogdet(a)[1]], "xs": [a]}


@case
def solve_variants(tf):
    a = tf.constant(spd("sv", 3, (2,)) + f64("sva", 2, 3, 3))
    b = tf.constant(f64("svb", 2, 3, 2))
    return {"out": [tf.matrix_solve(a, b), tf.matrix_solve(a, b, adjoint=True),
                    tf.matrix_triangular_solve(a, b), tf.matrix_triangular_solve(
                        a, b, lower=False, adjoint=True)], "xs": [a, b]}


@case
def cholesky_and_solve(tf):
    a = tf.constant(spd("ch", 4, (2,)))
    b = tf.constant(f64("chb", 2, 4, 1))
    c = tf.cholesky(a)
    return {"out": [c, tf.cholesky_solve(c, b)], "xs": [a]}


@case
def qr_svd_eig(tf):
    a = tf.constant(spd("qr", 3))
    q, r = tf.qr(a)
    s = tf.svd(a, compute_uv=False)
    e = tf.self_adjoint_eigvals(a)
    # Factors are unique only up to signs: compare invariants.
    return {"out": [tf.abs(q), tf.abs(r), s, e, tf.matmul(q, r)]}


@EINSUM_NAMES
@case
def einsum_forms(tf):
    a = tf.constant(f64("ea", 2, 3))
    b = tf.constant(f64("eb", 3, 4))
    c = tf.constant(f64("ec", 5, 2, 3))
    return {"out": [tf.einsum("ij,jk->ik", a, b), tf.einsum("ij->ji", a),
                    tf.einsum("ij,ij->", a, a), tf.einsum("bij,jk->bik", c, b),
                    tf.einsum("ij,jk", a, b), tf.einsum("...j,jk->...k", c, b)], "xs": [a]}


@EINSUM_NAMES
@case
def einsum_grad_b(tf):
    a = tf.constant(f64("egb", 2, 3))
    b = tf.constant(f64("egb2", 3, 4))
    c = tf.constant(f64("egb3", 4))
    return {"out": [tf.einsum("ij,jk,k->i", a, b, c)], "xs": [a, b, c]}


@case
def tensordot_forms(tf):
    a = tf.constant(f64("ta", 2, 3, 4))
    b = tf.constant(f64("tb", 4, 3, 5))
    return {"out": [tf.tensordot(a, b, [[1, 2], [1, 0]]), tf.tensordot(a, b, 1),
                    tf.tensordot(a, b, [[2], [0]]),
                    tf.tensordot(tf.constant(f64("tv", 3)), tf.constant(f64("tw", 3)), 1)],
            "xs": [a, b]}


@case
def tensordot_unknown_batch(tf):
    a = tf.placeholder(tf.float64, [None, 3])
    b = tf.constant(f64("tub", 3, 2))
    return {"out": [tf.tensordot(a, b, 1)], "feed": {a: f64("tua", 4, 3)}}


@case
def logsumexp(tf):
    x = tf.constant(f64("lse", 3, 4) * 30)
    return {"out": [tf.reduce_logsumexp(x), tf.reduce_logsumexp(x, 1),
                    tf.reduce_logsumexp(x, axis=0, keepdims=True)], "xs": [x]}


@case
def logsumexp_inf(tf):
    x = tf.constant(np.array([[-np.inf, -np.inf], [0.0, -np.inf]]))
    return {"out": [tf.reduce_logsumexp(x, 1)]}


@case
def linspace_meshgrid(tf):
    x, y = tf.meshgrid(tf.range(3), tf.range(4))
    u, v = tf.meshgrid(tf.linspace(0.0, 1.0, 3), tf.lin_space(-1.0, 1.0, 2), indexing="ij")
    return {"out": [tf.linspace(-2.0, 3.0, 7), tf.lin_space(0.0, 1.0, 1), x, y, u, v]}


@case
def unique_counts(tf):
    x = tf.constant([4, 1, 4, 2, 1, 4])
    y, idx, count = tf.unique_with_counts(x)
    y2, idx2 = tf.unique(tf.constant([3.0, 1.0, 3.0]))
    return {"out": [y, idx, count, y2, idx2]}


@case
def sort_argsort(tf):
    x = tf.constant(f32("srt", 3, 5))
    return {"out": [tf.sort(x), tf.sort(x, direction="DESCENDING"), tf.sort(x, axis=0),
                    tf.argsort(x), tf.argsort(x, axis=0, direction="DESCENDING"),
                    tf.argsort(tf.constant([2, 1, 2, 1]))], "xs": [x]}


@case
def bincount_histogram(tf):
    arr = tf.constant([1, 3, 3, 0, 7, 3])
    values = tf.constant(np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0, 3.3]))
    return {"out": [tf.bincount(arr), tf.bincount(arr, minlength=10),
                    tf.bincount(arr, maxlength=4),
                    tf.bincount(arr, weights=tf.constant(f32("bw", 6))),
                    tf.histogram_fixed_width(values, np.array([0.0, 5.0]), nbins=5),
                    tf.histogram_fixed_width_bins(values, np.array([0.0, 5.0]), nbins=5)]}


@case
def roll_and_grad(tf):
    x = tf.constant(f64("roll", 3, 4))
    return {"out": [tf.roll(x, 1, 0), tf.roll(x, [-1, 2], [0, 1]), tf.manip.roll(x, 5, 1)],
            "xs": [x]}


@case
def norms(tf):
    x = tf.constant(f64("nrm", 3, 4))
    return {"out": [tf.norm(x), tf.norm(x, axis=1), tf.norm(x, ord=1, axis=0),
                    tf.norm(x, ord=np.inf, axis=1), tf.norm(x, ord=3, axis=1, keepdims=True),
                    tf.norm(x, ord="fro", axis=[0, 1]), tf.norm(x, ord=1, axis=[0, 1])],
            "xs": [x]}


@case
def small_math(tf):
    x = tf.constant(f64("sm", 2, 3))
    pos = tf.constant(f64("smp", 2, 3, lo=0.5, hi=3.0))
    return {"out": [tf.log_sigmoid(x), tf.scalar_mul(3.0, x), tf.lbeta(pos),
                    tf.math.reduce_std(x, 1), tf.math.reduce_variance(x),
                    tf.is_non_decreasing([1, 2, 2]), tf.is_strictly_increasing([1, 2, 2]),
                    tf.accumulate_n([x, x, pos]), tf.floor_div(tf.constant([7, -7]), 2),
                    tf.cumprod(x, 1, exclusive=True), tf.math.squared_difference(x, pos)],
            "xs": [x]}


@case
def ensure_shape_ok(tf):
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.ensure_shape(x, [2, None])
    return {"out": [y * 2.0], "feed": {x: f32("es", 2, 3)}}


@error_case
def ensure_shape_wrong(tf):
    x = tf.placeholder_with_default(f32("esw", 2, 3), [None, 3])
    return tf.ensure_shape(x, [3, 3])


@error_case
def ensure_shape_static_mismatch(tf):
    return tf.ensure_shape(tf.constant(f32("ess", 2, 3)), [2, 4])


@error_case
def cholesky_not_pd(tf):
    return tf.cholesky(tf.constant([[1.0, 2.0], [2.0, 1.0]]))


@error_case
def inverse_not_square(tf):
    return tf.matrix_inverse(tf.constant(f32("ns", 2, 3)))


@error_case
def bincount_negative(tf):
    return tf.bincount(tf.constant([1, -1]))


@error_case
def sort_bad_direction(tf):
    return tf.sort([1, 2], direction="UP")


@case
def count_up_to_steps(tf):
    v = tf.Variable(3, name="counter")
    c = tf.count_up_to(v, 5)
    return {"out": [v.read_value() if hasattr(v, "read_value") else tf.identity(v)],
            "init": True, "before": [(c, None), (c, None)]}


@error_case
def count_up_to_limit(tf):
    v = tf.Variable(5, name="counter")
    with tf.control_dependencies([v.initializer]):
        return tf.count_up_to(v, 5)


# -- Python functions as ops ------------------------------------------------------------------
def _moments(x):
    return x.mean(axis=0).astype(np.float32), np.float32(x.std())


@case
def py_func_forms(tf):
    x = tf.constant(f32("pf", 3, 2))
    m, s = tf.py_func(_moments, [x], [tf.float32, tf.float32])
    doubled = tf.numpy_function(lambda v: v * 2, [x], tf.float32)
    pure = tf.py_func(lambda a, b: (a + b).astype(np.int64), [tf.constant([1, 2], tf.int64),
                                                               tf.constant(3, tf.int64)],
                      tf.int64, stateful=False)
    eager = tf.py_function(lambda v: v.numpy() + 1.0, [x], tf.float32)
    text = tf.py_func(lambda: b"bytes out", [], tf.string)
    return {"out": [m, s, doubled, pure, eager, text]}


@error_case
def py_func_wrong_dtype(tf):
    return tf.py_func(lambda: np.zeros(2), [], tf.float32)


@error_case
def py_func_raises_value_error(tf):
    def fail(v):
        raise ValueError("bad value")
    return tf.py_func(fail, [tf.constant(1.0)], tf.float32)


@error_case
def py_func_raises_runtime_error(tf):
    def fail(v):
        raise RuntimeError("broken")
    return tf.py_func(fail, [tf.constant(1.0)], tf.float32)


@error_case
def py_func_wrong_count(tf):
    return tf.py_func(lambda: (np.float32(1), np.float32(2)), [], [tf.float32])


@case
def cross_product(tf):
    a = tf.constant(f64("cra", 4, 3))
    b = tf.constant(f64("crb", 4, 3))
    return {"out": [tf.cross(a, b), tf.linalg.cross(a, b)], "xs": [a, b]}


@case
def edit_distances(tf):
    hyp = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 0, 1], [1, 0, 2]],
                          tf.constant(["a", "b", "c", "d", "e"]), [2, 2, 3])
    truth = tf.SparseTensor([[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 0, 1]],
                            tf.constant(["a", "x", "c", "e"]), [2, 2, 2])
    return {"out": [tf.edit_distance(hyp, truth), tf.edit_distance(hyp, truth, normalize=False)]}


@error_case
def cross_wrong_dim(tf):
    return tf.cross(tf.constant(f32("cw", 2, 4)), tf.constant(f32("cw2", 2, 4)))
