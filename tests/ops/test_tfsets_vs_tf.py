"""The set ops (tf.sets), SparseTensorDenseMatMul, the *_at_k metrics and the training
functions of TF 1.15's training tests give what TF 1.15 gave (tests/data/tfsets_tf.json, made
by tests/data/record_tfsets.py from tests/data/tfsets_programs.py): values, static shapes,
error classes and messages."""

import numpy as np
import pytest

import flowloom as tf
from tests.ops.recorded import Recording

RECORDING = Recording("tfsets_programs", "tfsets_tf.json")


@pytest.mark.parametrize("section,key", RECORDING.cases())
def test_matches_tf_1_15(section, key):
    RECORDING.check(section, key)


@pytest.mark.parametrize("adjoint_b", [False, True])
def test_sparse_tensor_dense_matmul_adjoint_a_conjugates(adjoint_b):
    # TF 1.15's CPU kernel skips the conjugation of adjoint_a (fixed in TF 2.x, which gives
    # (1-2j) for a = [[0, 1+2j], [0, 0]], b = [[1, 0], [3+4j, 0]]); the adjoint is conjugated.
    a = np.array([[0, 1 + 2j, 0], [2 - 1j, 0, 0.5j], [0, 0, 3]], np.complex128)
    b = (np.arange(9.0).reshape(3, 3) + 1j * np.arange(9.0)[::-1].reshape(3, 3))
    rows, cols = np.nonzero(a)
    with tf.Graph().as_default(), tf.Session() as s:
        sp = tf.SparseTensor(np.stack([rows, cols], 1), a[rows, cols], a.shape)
        got = s.run(tf.sparse_tensor_dense_matmul(sp, b.conj().T if adjoint_b else b,
                                                  adjoint_a=True, adjoint_b=adjoint_b))
    np.testing.assert_allclose(got, a.conj().T @ b)
