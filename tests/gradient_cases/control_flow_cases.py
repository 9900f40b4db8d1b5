"""Gradient-check builders for the control-flow and TensorArray op types.

These gradients only make sense inside a cond or a while loop, so each builder builds one;
the Ref variants are reached through a variable's reference fed as the point to check.
"""

import numpy as np

import flowloom as tf
from tests.gradient_cases import dims, ph


def _cond(rng, take_true=True):
    (x, xv) = ph(rng, dims(rng, 2))
    y = tf.cond(tf.constant(take_true), lambda: tf.sin(x) * 2.0, lambda: tf.cos(x))
    return [(x, xv)], y


def _while(rng):
    (x, xv) = ph(rng, (3,))
    _, out = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.sin(v) * 1.5),
                           [tf.constant(0), x])
    return [(x, xv)], out


def _tensor_array(rng):
    (x, xv) = ph(rng, (4, 2))
    ta = tf.TensorArray(tf.float64, size=4).unstack(x)
    read = ta.read(1) * 3.0
    gathered = ta.gather([0, 2])
    stacked = tf.TensorArray(tf.float64, size=2).write(0, read).write(1, tf.square(read))
    scattered = tf.TensorArray(tf.float64, size=4).scatter([3, 1, 0, 2], x * 2.0)
    split = tf.TensorArray(tf.float64, size=2, infer_shape=False).split(
        tf.reshape(x, [8]), [3, 5])
    y = (tf.reduce_sum(stacked.stack()) + tf.reduce_sum(gathered ** 2) +
         tf.reduce_sum(scattered.concat() * 0.5) + tf.reduce_sum(split.concat() ** 2))
    return [(x, xv)], y


def _ref_cond(rng):
    shape = dims(rng, 1)
    v = tf.Variable(np.zeros(shape), dtype=tf.float64)
    xv = rng.uniform(-1, 1, size=shape)
    y = tf.cond(tf.constant(True), lambda: tf.identity(v._ref()) * 2.0,
                lambda: tf.zeros(shape, tf.float64))
    return [(v._ref(), xv)], y


CASES = {
    "Switch": [_cond, lambda rng: _cond(rng, False)], "Merge": _cond, "RefSwitch": _ref_cond,
    "Enter": _while, "Exit": _while, "NextIteration": _while,
    "TensorArrayWriteV3": _tensor_array, "TensorArrayReadV3": _tensor_array,
    "TensorArrayGatherV3": _tensor_array, "TensorArrayScatterV3": _tensor_array,
    "TensorArrayConcatV3": _tensor_array, "TensorArraySplitV3": _tensor_array,
}
