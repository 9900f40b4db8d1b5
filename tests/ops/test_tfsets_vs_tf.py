"""The set ops (tf.sets), SparseTensorDenseMatMul, the *_at_k metrics and the training
functions of TF 1.15's training tests give what TF 1.15 gave (tests/data/tfsets_tf.json, made
by tests/data/record_tfsets.py from tests/data/tfsets_programs.py): values, static shapes,
error classes and messages."""

import json
import os
import sys

import numpy as np
import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import tfsets_programs  # noqa: E402

with open(os.path.join(DATA, "tfsets_tf.json")) as f:
    EXPECTED = json.load(f)
GOT = {}


def _close(got, want):
    if isinstance(want, list) and len(want) == 2 and want[0] == "ValueError" and got and \
            got[0] == "ValueError":
        # build-time errors: TF 1.15 and flowloom word the node context differently
        return got[1].split(" for '")[0] == want[1].split(" for '")[0]
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want):
        return all(_close(g, w) for g, w in zip(got, want))
    if isinstance(want, float) and isinstance(got, (int, float)):
        return bool(np.isclose(got, want, rtol=1e-5, atol=1e-6)) or got == want
    return got == want


def _program(section):
    if section not in GOT:
        GOT[section] = json.loads(json.dumps(getattr(tfsets_programs, section + "_program")(tf)))
    return GOT[section]


@pytest.mark.parametrize("key", sorted(EXPECTED["sets"]))
def test_set_ops_match_tf(key):
    got = _program("sets")[key]
    assert _close(got, EXPECTED["sets"][key]), (got, EXPECTED["sets"][key])


@pytest.mark.parametrize("key", sorted(EXPECTED["metrics"]))
def test_metrics_at_k_match_tf(key):
    got = _program("metrics")[key]
    assert _close(got, EXPECTED["metrics"][key]), (got, EXPECTED["metrics"][key])


@pytest.mark.parametrize("key", sorted(EXPECTED["sparse_concat"]))
def test_sparse_concat_matches_tf(key):
    got = _program("sparse_concat")[key]
    assert _close(got, EXPECTED["sparse_concat"][key]), (got, EXPECTED["sparse_concat"][key])


@pytest.mark.parametrize("key", sorted(EXPECTED["sparse_matmul"]))
def test_sparse_tensor_dense_matmul_matches_tf(key):
    got = _program("sparse_matmul")[key]
    assert _close(got, EXPECTED["sparse_matmul"][key]), (got, EXPECTED["sparse_matmul"][key])


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


@pytest.mark.parametrize("key", sorted(EXPECTED["training"]))
def test_training_functions_match_tf(key):
    got = _program("training")[key]
    assert _close(got, EXPECTED["training"][key]), (got, EXPECTED["training"][key])


@pytest.mark.parametrize("key", sorted(EXPECTED["init_from_checkpoint"]))
def test_init_from_checkpoint_matches_tf(key):
    got = _program("init_from_checkpoint")[key]
    assert _close(got, EXPECTED["init_from_checkpoint"][key]), (
        got, EXPECTED["init_from_checkpoint"][key])


@pytest.mark.parametrize("key", sorted(EXPECTED["run_options"]))
def test_monitored_session_merges_run_options_as_tf(key):
    got = _program("run_options")[key]
    assert _close(got, EXPECTED["run_options"][key]), (got, EXPECTED["run_options"][key])


@pytest.mark.parametrize("key", sorted(EXPECTED["recovery"]))
def test_monitored_session_non_preemption_error_stops_as_tf(key):
    got = _program("recovery")[key]
    assert _close(got, EXPECTED["recovery"][key]), (got, EXPECTED["recovery"][key])
