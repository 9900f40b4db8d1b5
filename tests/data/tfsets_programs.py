"""Programs run on TF 1.15 (record_tfsets.py writes tfsets_tf.json) and on flowloom
(tests/ops/test_tfsets_vs_tf.py): the set ops (tf.sets) with their checks, SparseTensorDenseMatMul
and its gradient, the *_at_k metrics, and the training functions of TF 1.15's training tests.
Each entry is a value (nested lists), a static shape, or [error class, first line of the
message]."""

import numpy as np


def _value(x):
    if isinstance(x, (list, tuple)) or type(x).__name__ == "SparseTensorValue":
        return [_value(v) for v in x]
    x = np.asarray(x)
    if x.dtype.kind == "f":
        return [None if np.isnan(v) else float(v) for v in x.reshape(-1)] + [list(x.shape)]
    if x.dtype.kind == "O":
        return [v.decode() if isinstance(v, bytes) else v for v in x.reshape(-1).tolist()]
    return x.tolist()


def _run(s, fn):
    try:
        return _value(s.run(fn()))
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        message = getattr(e, "message", None) or str(e)
        return [type(e).__name__, message.split("\n")[0]]


def _build(fn):
    try:
        fn()
        return "built"
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e).split("\n")[0]]


def _shape(t):
    return None if t.shape.ndims is None else t.shape.as_list()


def _sparse_shapes(st):
    return [_shape(st.indices), _shape(st.values), _shape(st.dense_shape)]


def sets_program(tf):
    out = {}
    with tf.Graph().as_default(), tf.Session() as s:
        ind = [[0, 0], [0, 1], [0, 2], [1, 0], [2, 0], [2, 1], [2, 2], [2, 3]]
        for dtype in (tf.int32, tf.int64, tf.uint8, tf.string):
            vals = [9, 1, 9, 3, 5, 5, 2, 7]
            vals = [str(v) for v in vals] if dtype == tf.string else vals
            sp = tf.SparseTensor(ind, tf.constant(vals, dtype), [4, 5])
            dense = [[1, 9, 9, 0], [4, 3, 3, 3], [7, 7, 6, 5], [8, 8, 8, 8]]
            dense = tf.constant([[str(v) for v in r] for r in dense] if dtype == tf.string
                                else dense, dtype)
            name = dtype.name
            out[f"size_{name}"] = _run(s, lambda: tf.sets.set_size(sp))
            for op in ("set_intersection", "set_union"):
                fn = getattr(tf.sets, op)
                out[f"{op}_dd_{name}"] = _run(s, lambda: fn(dense, dense[::-1]))
                out[f"{op}_ds_{name}"] = _run(s, lambda: fn(dense, sp))
                out[f"{op}_sd_{name}"] = _run(s, lambda: fn(sp, dense))
                out[f"{op}_ss_{name}"] = _run(s, lambda: fn(sp, sp))
            for aminusb in (True, False):
                out[f"diff_ds_{aminusb}_{name}"] = _run(
                    s, lambda: tf.sets.set_difference(dense, sp, aminusb=aminusb))
                out[f"diff_sd_{aminusb}_{name}"] = _run(
                    s, lambda: tf.sets.set_difference(sp, dense, aminusb=aminusb))
                out[f"diff_dd_{aminusb}_{name}"] = _run(
                    s, lambda: tf.sets.set_difference(dense, tf.reverse(dense, [1]),
                                                      aminusb=aminusb))
                out[f"diff_dd_rows_{aminusb}_{name}"] = _run(
                    s, lambda: tf.sets.set_difference(dense, dense[::-1], aminusb=aminusb))
        a3 = tf.SparseTensor([[0, 0, 0], [0, 1, 1], [1, 0, 2], [1, 1, 0]], [1, 2, 3, 4],
                             [2, 2, 3])
        b3 = tf.SparseTensor([[0, 1, 0], [1, 1, 0], [1, 1, 3]], [2, 5, 4], [2, 2, 4])
        out["union_3d"] = _run(s, lambda: tf.sets.union(a3, b3))
        out["size_3d"] = _run(s, lambda: tf.sets.size(a3))
        out["intersection_3d_shapes"] = _sparse_shapes(tf.sets.intersection(a3, b3))
        out["dd_shapes"] = _sparse_shapes(tf.sets.intersection(tf.zeros([2, 3, 4], tf.int32),
                                                               tf.zeros([2, 3, 2], tf.int32)))
        out["ds_shapes"] = _sparse_shapes(tf.sets.intersection(tf.zeros([2, 3, 4], tf.int32),
                                                               b3))
        out["size_shape"] = _shape(tf.sets.set_size(a3))
        bad_order = tf.SparseTensor([[0, 1], [0, 0]], [1, 2], [2, 2])
        repeated = tf.SparseTensor([[0, 1], [0, 1]], [1, 2], [2, 2])
        out_of_bounds = tf.SparseTensor([[0, 1], [0, 5]], [1, 2], [2, 2])
        good = tf.SparseTensor([[0, 0], [1, 1]], [1, 2], [2, 2])
        for key, st in (("order", bad_order), ("repeated", repeated), ("bounds", out_of_bounds)):
            out[f"size_bad_{key}"] = _run(s, lambda: tf.sets.set_size(st))
            out[f"ss_bad_first_{key}"] = _run(s, lambda: tf.sets.set_union(st, good))
            out[f"ss_bad_second_{key}"] = _run(s, lambda: tf.sets.set_union(good, st))
            out[f"ds_bad_{key}"] = _run(s, lambda: tf.sets.set_union([[1, 2], [3, 4]], st))
        out["dd_mismatch"] = _run(s, lambda: tf.sets.set_union(
            tf.placeholder_with_default([[1, 2], [3, 4]], [None, 2]), [[1, 2]]))
        out["ds_mismatch"] = _run(s, lambda: tf.sets.set_union(
            tf.placeholder_with_default([[1, 2], [3, 4], [5, 6]], None), good))
        out["ss_mismatch"] = _run(s, lambda: tf.sets.set_union(
            good, tf.SparseTensor([[0, 0]], [1], [3, 2])))
        rank1 = tf.SparseTensor([[0], [1]], [1, 2], [2])
        out["size_rank1"] = _run(s, lambda: tf.sets.set_size(rank1))
        out["dd_rank1_build"] = _build(lambda: tf.sets.set_union([1, 2], [1, 2]))
        out["ss_rank1_build"] = _build(lambda: tf.sets.set_union(rank1, rank1))
        out["dd_rank_mismatch_build"] = _build(lambda: tf.sets.set_union([[1, 2]], [[[1, 2]]]))
        out["dd_group_mismatch_build"] = _build(lambda: tf.sets.set_union([[1, 2]],
                                                                          [[1], [2]]))
        out["float_type"] = _build(lambda: tf.sets.set_union([[1.0]], [[1.0]]))
        out["types_differ"] = _build(lambda: tf.sets.set_union(
            tf.constant([[1]], tf.int32), tf.constant([[1]], tf.int64)))
        out["size_dense"] = _build(lambda: tf.sets.set_size([[1, 2]]))
        out["size_float"] = _build(lambda: tf.sets.set_size(
            tf.SparseTensor([[0, 0]], [1.0], [1, 1])))
        out["empty"] = _run(s, lambda: tf.sets.set_intersection(
            tf.SparseTensor(tf.zeros([0, 2], tf.int64), tf.zeros([0], tf.int32), [3, 2]),
            tf.constant([[1, 2], [3, 4], [5, 6]])))
        out["contrib_size"] = _run(s, lambda: tf.contrib.metrics.set_size(good))
    return out


def program(tf):
    return {"sets": sets_program(tf)}
