"""One program run on TF 1.15 (record_array_extra.py) and on flowloom
(tests/ops/test_array_extra_ops.py): tf.repeat, ConjugateTranspose, GuaranteeConst,
EuclideanNorm, reductions over no axes, math_ops.reduced_shape, and the build-time checks of
ExpandDims (one-element dim) and reductions (axes of rank <= 1). `reduced_shape` is
math_ops.reduced_shape of the module under test (TF keeps it out of the public API)."""


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__
    return None


def program(tf, reduced_shape):
    def c(z):
        return [[float(v.real), float(v.imag)] for v in z.reshape(-1)]

    with tf.Graph().as_default(), tf.Session() as s:
        out = {
            "rep0": s.run(tf.repeat([[1, 2], [3, 4]], [2, 3], axis=0)).tolist(),
            "rep1": s.run(tf.repeat([[1, 2], [3, 4]], 2, axis=1)).tolist(),
            "repflat": s.run(tf.repeat([[1, 2], [3, 4]], [1, 0, 2, 1])).tolist(),
            "repshape": tf.repeat(tf.zeros([3, 2]), [1, 2, 3], axis=0).shape.as_list(),
            "eucl": s.run(tf.math.reduce_euclidean_norm([[3.0, 4.0], [5.0, 12.0]], 1)).tolist(),
            "eucl_int": s.run(tf.math.reduce_euclidean_norm([[1, 2], [3, 4]], 0)).tolist(),
            "eucl_complex_no_axes": c(s.run(tf.math.reduce_euclidean_norm(
                tf.constant([1 + 2j, 1 - 2j], tf.complex64), []))),
            "noaxes": s.run(tf.reduce_mean([[1, 2], [3, 4]], [])).tolist(),
            "reduced_shape": s.run(reduced_shape([5, 3, 2], [0, -1])).tolist(),
            "reduced_shape_empty": s.run(reduced_shape([3, 0], [])).tolist(),
            "conj_transpose": c(s.run(tf.transpose(tf.constant([[1 + 2j, 3 - 1j]]), conjugate=True))),
            "conj_transpose_type": tf.transpose(tf.constant([[1 + 2j]]), conjugate=True).op.type,
            "real_transpose_type": tf.transpose(tf.constant([[1.0]]), conjugate=True).op.type,
            "guarantee_const": s.run(tf.guarantee_const(tf.constant([1.0, 2.0]))).tolist(),
            "expand_dims_two_axes": _err(lambda: tf.expand_dims(1, axis=[0, 1])),
            "reduce_axes_rank2": _err(lambda: tf.reduce_sum(tf.placeholder(tf.float32),
                                                            [[1], [2]])),
            "sequence_mask_maxlen": _err(lambda: tf.sequence_mask([10, 20], [10, 20])),
        }
    return out
