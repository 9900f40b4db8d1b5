"""Programs run on TF 1.15 (record_tfmath_kernels.py writes tfmath_kernels_tf.json) and on
flowloom (tests/ops/test_tfmath_kernels_vs_tf.py): the math kernels, casts, shape checks
and errors that TF 1.15's kernel tests exercise. Each entry is a value (nested lists), a
dtype name, a static shape, or [error class, first line of the message]."""

import numpy as np


def _value(x):
    if isinstance(x, (list, tuple)):
        return [_value(v) for v in x]
    x = np.asarray(x)
    if x.dtype.kind == "c":
        return [[float(v.real), float(v.imag)] for v in x.reshape(-1)] + [list(x.shape)]
    if x.dtype.kind == "f":
        return [None if np.isnan(v) else float(v) for v in x.reshape(-1)] + [list(x.shape)]
    if x.dtype.kind in "SO":
        return [v if isinstance(v, str) else bytes(v).decode() for v in x.reshape(-1)]
    return x.tolist()


def _error(e):
    message = getattr(e, "message", None) or str(e)
    return [type(e).__name__, message.split("\n")[0]]


def _run(s, fn):
    try:
        return _value(s.run(fn()))
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return _error(e)


def _build(fn):
    """What building `fn()` gives: its static shape and dtype, or the error."""
    try:
        t = fn()
    except Exception as e:  # noqa: BLE001
        return _error(e)
    return [None if t.shape.ndims is None else t.shape.as_list(), t.dtype.name]


def scan_program(tf):
    out = {}
    with tf.Graph().as_default(), tf.Session() as s:
        for name in ("cumsum", "cumprod"):
            for exclusive in (True, False):
                for reverse in (True, False):
                    out[f"{name}_empty_{exclusive}_{reverse}"] = _run(s, lambda: getattr(
                        tf, name)(np.zeros([0, 3], np.float32), 0, exclusive, reverse))
                    out[f"{name}_empty1_{exclusive}_{reverse}"] = _run(s, lambda: getattr(
                        tf, name)(np.zeros([2, 0], np.int32), 1, exclusive, reverse))
    return out


SECTIONS = ("scan",)


def program(tf):
    return {name: globals()[name + "_program"](tf) for name in SECTIONS}
