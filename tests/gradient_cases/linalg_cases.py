"""Gradient-check builders for ops/math/linalg_ops.py, einsum, Roll and EnsureShape."""

import numpy as np

import flowloom as tf
from tests.gradient_cases import dims, ph


def _spd(rng, n, batch=()):
    a = rng.uniform(-1, 1, batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _square(fn, spd=False, batch=(2,)):
    def build(rng):
        n = int(rng.integers(2, 4))
        x, xv = ph(rng, batch + (n, n))
        if spd:
            xv = _spd(rng, n, batch)
        else:
            xv = xv + 3 * np.eye(n)
        return [(x, xv)], fn(x)
    return build


def _band(rng):
    x, xv = ph(rng, (2, 4, 3))
    return [(x, xv)], tf.matrix_band_part(x, 1, 0)


def _diag(rng):
    d, dv = ph(rng, (2, 3))
    return [(d, dv)], tf.matrix_diag(d)


def _diag_part(rng):
    x, xv = ph(rng, (2, 3, 4))
    return [(x, xv)], tf.matrix_diag_part(x)


def _set_diag(rng):
    x, xv = ph(rng, (3, 3))
    d, dv = ph(rng, (3,))
    return [(x, xv), (d, dv)], tf.matrix_set_diag(x, d)


def _tensor_diag(rng):
    d, dv = ph(rng, (2, 2))
    return [(d, dv)], tf.diag(d)


def _tensor_diag_part(rng):
    x, xv = ph(rng, (2, 3, 2, 3))
    return [(x, xv)], tf.diag_part(x)


def _solve(adjoint):
    def build(rng):
        a, av = ph(rng, (2, 3, 3))
        b, bv = ph(rng, (2, 3, 2))
        return [(a, av + 3 * np.eye(3)), (b, bv)], tf.matrix_solve(a, b, adjoint=adjoint)
    return build


def _triangular(lower, adjoint):
    def build(rng):
        a, av = ph(rng, (3, 3))
        b, bv = ph(rng, (3, 2))
        return [(a, av + 3 * np.eye(3)), (b, bv)], tf.matrix_triangular_solve(
            a, b, lower=lower, adjoint=adjoint)
    return build


def _cholesky(rng):
    x, _ = ph(rng, (2, 3, 3))
    # Differentiate through a symmetric input so the finite differences stay symmetric.
    sym = (x + tf.matrix_transpose(x)) * 0.5
    return [(x, _spd(rng, 3, (2,)))], tf.cholesky(sym), 1e-3


def _einsum(equation, *shapes):
    def build(rng):
        pairs = [ph(rng, s) for s in shapes]
        return pairs, tf.einsum(equation, *[p[0] for p in pairs])
    return build


def _roll(rng):
    x, xv = ph(rng, dims(rng, 2, 2, 5))
    return [(x, xv)], tf.roll(x, [1, -1], [0, 1])


def _ensure_shape(rng):
    x, xv = ph(rng, (2, 3), static=False)
    return [(x, xv)], tf.ensure_shape(x, [2, 3]) * 2.0


def _cross(rng):
    a, av = ph(rng, (2, 3))
    b, bv = ph(rng, (2, 3))
    return [(a, av), (b, bv)], tf.cross(a, b)


CASES = {
    "Cross": _cross,
    "MatrixBandPart": _band,
    "MatrixDiag": _diag,
    "MatrixDiagPart": _diag_part,
    "MatrixSetDiag": _set_diag,
    "Diag": _tensor_diag,
    "DiagPart": _tensor_diag_part,
    "MatrixInverse": [_square(tf.matrix_inverse),
                      _square(lambda x: tf.matrix_inverse(x, adjoint=True), batch=())],
    "MatrixDeterminant": _square(tf.matrix_determinant),
    "LogMatrixDeterminant": _square(lambda x: tf.linalg.slogdet(x)[1], spd=True),
    "MatrixSolve": [_solve(False), _solve(True)],
    "MatrixTriangularSolve": [_triangular(True, False), _triangular(False, True)],
    "Cholesky": _cholesky,
    "Einsum": [_einsum("ij,jk->ik", (2, 3), (3, 4)), _einsum("ij,jk,k->i", (2, 3), (3, 4), (4,)),
               _einsum("bij->bj", (2, 3, 4)), _einsum("...j,j->...", (2, 3, 4), (4,))],
    "Roll": _roll,
    "EnsureShape": _ensure_shape,
}
