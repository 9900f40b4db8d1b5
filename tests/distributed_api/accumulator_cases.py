"""ConditionalAccumulator cases, run under TF 1.15 (tests/data/record_distributed_api.py) and
flowloom (test_sync_replicas.py): values taken, counts, and run-time errors."""

import numpy as np


def _value(v):
    if hasattr(v, "indices"):
        shape = v.dense_shape if hasattr(v, "dense_shape") else v.shape
        return [_value(v.indices), _value(v.values), _value(shape)]
    if isinstance(v, (tuple, list)):
        return [_value(x) for x in v]
    return np.asarray(v).tolist()


def run(tf):
    """[[label, "ok" or error class, value or message], ...]."""
    out = []

    def case(label, build):
        graph = tf.Graph()
        with graph.as_default():
            steps = build()
            try:
                with tf.Session() as sess:
                    result = None
                    for fetch in steps:
                        result = sess.run(fetch)
                out.append([label, "ok", _value(result)])
            except Exception as e:  # noqa: BLE001 - the error is the result
                out.append([label, type(e).__name__, str(e).split("\n")[0]])

    def dense(reduction, dtype=None, shape=(2,)):
        dtype = dtype or tf.float32
        acc = tf.ConditionalAccumulator(dtype, shape=shape, reduction_type=reduction)
        return acc, [acc.apply_grad(tf.constant([1, 2], dtype)),
                     acc.apply_grad(tf.constant([4, 7], dtype))]

    def mean():
        acc, applies = dense("MEAN")
        return applies + [acc.num_accumulated(), acc.take_grad(2)]

    def total():
        acc, applies = dense("SUM")
        return applies + [acc.take_grad(2)]

    def ints():
        acc, applies = dense("MEAN", tf.int32)
        return applies + [acc.take_grad(2)]

    def stale():
        acc, applies = dense("MEAN")
        late = acc.apply_grad(tf.constant([9.0, 9.0]), local_step=0)
        fresh = acc.apply_grad(tf.constant([3.0, 3.0]), local_step=1)
        return applies + [acc.take_grad(2), late, fresh, acc.num_accumulated()]

    def set_step():
        acc, applies = dense("MEAN")
        return [acc.set_global_step(3), applies[0], acc.num_accumulated()]

    def zero_required():
        acc, applies = dense("MEAN")
        return applies + [acc.take_grad(0)]

    def shape_mismatch():
        acc = tf.ConditionalAccumulator(tf.float32)
        return [acc.apply_grad(tf.constant([1.0, 2.0])),
                acc.apply_grad(tf.constant([1.0, 2.0, 3.0]))]

    def sparse():
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=())
        a = acc.apply_grad([0, 2], [[1.0, 1.0], [2.0, 2.0]], grad_shape=[3, 2])
        b = acc.apply_grad([2, 1], [[4.0, 4.0], [6.0, 6.0]], grad_shape=[3, 2])
        c = acc.apply_grad([3, 0], [[1.0, 1.0], [5.0, 5.0]], grad_shape=[3, 2])
        return [a, b, c, acc.num_accumulated(), acc.take_indexed_slices_grad(3)]

    def sparse_sum_no_shape():
        acc = tf.SparseConditionalAccumulator(tf.float32, reduction_type="SUM")
        a = acc.apply_grad([1], [[1.0, 1.0]])
        b = acc.apply_grad([1, 3], [[2.0, 2.0], [5.0, 5.0]])
        return [a, b, acc.take_grad(2)]

    def sparse_known_shape():
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=[None, 2])
        a = acc.apply_grad([5, 1], [[1.0, 1.0], [2.0, 2.0]])
        return [a, acc.take_grad(1)]

    def sparse_bad_shape():
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=[4, 2])
        return [acc.apply_grad([1], [[1.0, 1.0]], grad_shape=[3, 2])]

    def sparse_errors(kind):
        def build():
            shape = {"index": [4, 2], "values_dim": [None, 2], "accum": None,
                     "rank": [4, 2, 1]}[kind]
            acc = tf.SparseConditionalAccumulator(tf.float32, shape=shape)
            if kind == "index":
                return [acc.apply_grad([5], [[1.0, 1.0]])]
            if kind == "values_dim":
                return [acc.apply_grad([1], [[1.0, 1.0, 1.0]])]
            if kind == "rank":
                return [acc.apply_grad([1], [[1.0]], grad_shape=[4, 1])]
            return [acc.apply_grad([1], [[1.0, 1.0]]), acc.apply_grad([2], [[1.0, 1.0, 1.0]])]
        return build

    def dense_unsorted_duplicates():
        acc = tf.SparseConditionalAccumulator(tf.float32)
        a = acc.apply_grad([4, 1, 4], [[1.0], [2.0], [3.0]])
        b = acc.apply_grad([1, 4], [[10.0], [20.0]])
        return [a, b, acc.take_grad(2)]

    for label, build in [("mean", mean), ("sum", total), ("int_mean", ints),
                         ("stale", stale), ("set_global_step", set_step),
                         ("zero_required", zero_required), ("shape_mismatch", shape_mismatch),
                         ("sparse_mean", sparse), ("sparse_sum_no_shape", sparse_sum_no_shape),
                         ("sparse_known_shape", sparse_known_shape),
                         ("sparse_bad_shape", sparse_bad_shape),
                         ("sparse_unsorted_duplicates", dense_unsorted_duplicates)] + [
            ("sparse_error_" + k, sparse_errors(k))
            for k in ("index", "values_dim", "accum", "rank")]:
        case(label, build)
    return out
