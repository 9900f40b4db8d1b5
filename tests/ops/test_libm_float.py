"""float32 logf/sincosf as glibc computes them (flowloom/ops/random/libm_float.py), and the
float32 normals built on them compared bit for bit with TF 1.15's (digests of large outputs
recorded by tests/data/record_random_digests.py)."""

import ctypes
import ctypes.util
import importlib.util
import json
import os
import platform

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.random import libm_float

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")


def _recorder():
    path = os.path.join(DATA, "record_random_digests.py")
    spec = importlib.util.spec_from_file_location("record_random_digests", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(_recorder().CASES))
def test_large_normals_match_tf_bit_for_bit(name):
    recorder = _recorder()
    with open(os.path.join(DATA, "random_digests_tf1.json")) as f:
        want = json.load(f)["cases"][name]
    first, second = recorder.run(tf, *recorder.CASES[name])
    np.testing.assert_array_equal(first.ravel()[:4], np.array(want["head"], first.dtype))
    assert recorder.digest(first) == want["run1"]
    assert recorder.digest(second) == want["run2"]


def test_special_values():
    x = np.array([1.0, 0.0, -0.0, -1.0, np.inf, np.nan, 2.0 ** -140, 2.0], np.float32)
    with np.errstate(all="ignore"):
        got = libm_float.logf(x)
    assert got[0] == 0.0 and not np.signbit(got[0])
    assert got[1] == -np.inf and got[2] == -np.inf
    assert np.isnan(got[3]) and got[4] == np.inf and np.isnan(got[5])
    assert got[6] == np.float32(np.log(2.0 ** -140))
    assert got[7] == np.float32(0.6931472)
    s, c = libm_float.sincosf(np.array([0.0, 1e-5, 1.0, -3.0, 100.0, 1e6, np.inf], np.float32))
    assert s[0] == 0.0 and c[0] == 1.0 and s[1] == np.float32(1e-5) and c[1] == 1.0
    np.testing.assert_allclose(s[:6], np.sin(np.float64([0, 1e-5, 1, -3, 100, 1e6])), rtol=2e-7)
    np.testing.assert_allclose(c[:6], np.cos(np.float64([0, 1e-5, 1, -3, 100, 1e6])), rtol=2e-7)
    assert np.isnan(s[6]) and np.isnan(c[6])


def _glibc_libm():
    name, version = platform.libc_ver()
    if name != "glibc" or tuple(int(v) for v in version.split(".")[:2]) < (2, 28):
        pytest.skip(f"needs glibc >= 2.28 (its logf/sincosf algorithms); this is {name} {version}")
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.logf.restype = ctypes.c_float
    libm.logf.argtypes = [ctypes.c_float]
    libm.sincosf.restype = None
    libm.sincosf.argtypes = [ctypes.c_float, ctypes.POINTER(ctypes.c_float),
                             ctypes.POINTER(ctypes.c_float)]
    return libm


def test_matches_this_machines_glibc():
    libm = _glibc_libm()
    rng = np.random.default_rng(7)
    # Box-Muller's inputs, and a wider spread for both fast paths
    u = (rng.integers(0, 2 ** 23, 3000) * 2.0 ** -23).astype(np.float32) + np.float32(1e-7)
    logs = np.concatenate([u, rng.integers(0x00800000, 0x7F800000, 2000, dtype=np.uint32)
                           .view(np.float32)])
    angles = np.concatenate([(2 * np.pi * u.astype(np.float64)).astype(np.float32),
                             (rng.random(2000) * 240 - 120).astype(np.float32)])
    want_log = np.array([libm.logf(float(v)) for v in logs], np.float32)
    s, c = ctypes.c_float(), ctypes.c_float()
    want_sin, want_cos = [], []
    for v in angles:
        libm.sincosf(float(v), ctypes.byref(s), ctypes.byref(c))
        want_sin.append(s.value)
        want_cos.append(c.value)
    np.testing.assert_array_equal(libm_float.logf(logs), want_log)
    got_sin, got_cos = libm_float.sincosf(angles)
    np.testing.assert_array_equal(got_sin, np.array(want_sin, np.float32))
    np.testing.assert_array_equal(got_cos, np.array(want_cos, np.float32))
