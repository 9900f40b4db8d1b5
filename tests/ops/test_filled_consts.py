"""tf.zeros / tf.ones of a small static shape: one Const holding the filled array, built
directly; it must be the Const tf.constant makes of that array (dtype, value, name, shape,
read-only), for every dtype and for the names zeros/ones take."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import dtypes

DTYPES = [tf.float16, tf.float32, tf.float64, tf.bfloat16, tf.int8, tf.uint8, tf.int16,
          tf.uint16, tf.int32, tf.int64, tf.uint32, tf.uint64, tf.bool, tf.complex64,
          tf.complex128, tf.string]


def _const_of(t):
    op = t.op
    return (op.name, op.type, op._attrs["dtype"], str(t.shape), t.dtype,
            op._attrs["value"].dtype, op._attrs["value"].tolist(),
            op._attrs["value"].flags.writeable)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("shape", [[], [3], [2, 0, 4], (5, 1)])
def test_zeros_and_ones_are_the_const_of_the_filled_array(dtype, shape):
    g = tf.Graph()
    with g.as_default():
        got = [tf.zeros(shape, dtype), tf.zeros(shape, dtype, name="z")]
        if dtype is not tf.string:
            got.append(tf.ones(shape, dtype))
        npt = dtype.as_numpy_dtype
        zero = b"" if dtype is tf.string else (False if dtype.is_bool else 0)
        one = True if dtype.is_bool else 1
        want = [tf.constant(np.full(shape, zero, dtype=npt), dtype=dtype, name="zeros"),
                tf.constant(np.full(shape, zero, dtype=npt), dtype=dtype, name="z")]
        if dtype is not tf.string:
            want.append(tf.constant(np.full(shape, one, dtype=npt), dtype=dtype, name="ones"))
    for a, b in zip(got, want):
        ga, gb = _const_of(a), _const_of(b)
        assert gb[0] == ga[0] + "_1"  # (made second: the same name, uniquified)
        assert ga[1:] == gb[1:]
        assert a.op.node_def.attr["value"] == b.op.node_def.attr["value"]


def test_zeros_names_and_user_site():
    g = tf.Graph()
    with g.as_default():
        a = tf.zeros([2], name=b"bz")
        b = tf.zeros([2], name=None)
        c = tf.zeros([2])  # the user's line is this one
    assert (a.op.name, b.op.name, c.op.name) == ("bz", "Const", "zeros")
    assert c.op._traceback[0] == __file__ and c.op._traceback[2] == \
        "test_zeros_names_and_user_site"
    assert c.op._attrs["dtype"] is dtypes.float32
