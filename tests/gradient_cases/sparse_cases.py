"""Gradient-check builders for the sparse ops of feature columns (ops/array/sparse_*_ops.py)."""

import numpy as np

import flowloom as tf
from tests.gradient_cases import ph


def _sparse_fill_empty_rows(rng):
    values, vv = ph(rng, (3,))
    default, dv = ph(rng, ())
    st = tf.SparseTensor(np.array([[0, 1], [2, 0], [2, 1]], np.int64), values, [4, 2])
    filled, _ = tf.sparse_fill_empty_rows(st, default)
    weights = tf.constant(np.arange(1.0, 6.0))
    return [(values, vv), (default, dv)], tf.reduce_sum(filled.values * weights)


def _sparse_reorder(rng):
    from flowloom.ops.array.sparse_reorder_ops import sparse_reorder

    values, vv = ph(rng, (4,))
    st = tf.SparseTensor(np.array([[2, 1], [0, 1], [1, 0], [0, 0]], np.int64), values, [3, 2])
    weights = tf.constant(np.arange(1.0, 5.0))
    return [(values, vv)], tf.reduce_sum(sparse_reorder(st).values * weights)


def _sparse_add(rng):
    a_values, av = ph(rng, (3,))
    b_values, bv = ph(rng, (2,))
    a = tf.SparseTensor(np.array([[0, 0], [1, 1], [2, 0]], np.int64), a_values, [3, 2])
    b = tf.SparseTensor(np.array([[0, 0], [1, 0]], np.int64), b_values, [3, 2])
    weights = tf.constant(np.arange(1.0, 5.0))
    return [(a_values, av), (b_values, bv)], tf.reduce_sum(
        tf.square(tf.sparse_add(a, b).values) * weights)


def _sparse_tensor_dense_add(rng):
    values, vv = ph(rng, (2,))
    dense, dv = ph(rng, (2, 3))
    st = tf.SparseTensor(np.array([[0, 2], [1, 0]], np.int64), values, [2, 3])
    return [(values, vv), (dense, dv)], tf.reduce_sum(tf.square(tf.sparse_add(st, dense)))


def _sparse_tensor_dense_matmul(rng):
    values, vv = ph(rng, (3,))
    dense, dv = ph(rng, (3, 2))
    other, ov = ph(rng, (2, 4))
    st = tf.SparseTensor(np.array([[0, 1], [1, 0], [2, 2]], np.int64), values, [4, 3])
    product = tf.sparse_tensor_dense_matmul(st, dense)
    adjoint = tf.sparse_tensor_dense_matmul(st, other, adjoint_a=True, adjoint_b=True)
    return [(values, vv), (dense, dv), (other, ov)], tf.reduce_sum(tf.square(product)) + \
        tf.reduce_sum(adjoint * tf.constant(np.arange(1.0, 7.0).reshape(3, 2)))


CASES = {"SparseFillEmptyRows": _sparse_fill_empty_rows, "SparseReorder": _sparse_reorder,
         "SparseAdd": _sparse_add, "SparseTensorDenseAdd": _sparse_tensor_dense_add,
         "SparseTensorDenseMatMul": _sparse_tensor_dense_matmul}
