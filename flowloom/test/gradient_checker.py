"""Checks symbolic gradients against central finite differences (`tf.test.compute_gradient`)."""

import numpy as np

from flowloom.framework.graph import name_scope
from flowloom.framework.indexed_slices import IndexedSlicesValue
from flowloom.runtime.session import get_default_session


def _dense(value, shape):
    if isinstance(value, IndexedSlicesValue):
        out = np.zeros(shape, dtype=value.values.dtype)
        np.add.at(out, value.indices, value.values)
        return out
    return np.asarray(value)


def _theoretical_jacobian(sess, x, x_shape, dx, y_shape, dy, feeds):
    x_size = int(np.prod(x_shape))
    y_size = int(np.prod(y_shape))
    jacobian = np.zeros((x_size, y_size), dtype=np.float64)
    if dx is None:
        return jacobian
    dy_value = np.zeros(y_shape, dtype=dy.dtype.as_numpy_dtype)
    flat = dy_value.reshape(-1)
    for j in range(y_size):
        flat[:] = 0
        flat[j] = 1
        feeds[dy] = dy_value
        jacobian[:, j] = _dense(sess.run(dx, feeds), x_shape).reshape(-1)
    feeds.pop(dy, None)  # y may have no elements (no column fed it)
    return jacobian


def _numerical_jacobian(sess, x, x_shape, x_value, y, y_shape, delta, feeds):
    x_size = int(np.prod(x_shape))
    y_size = int(np.prod(y_shape))
    jacobian = np.zeros((x_size, y_size), dtype=np.float64)
    point = np.array(x_value, dtype=x.dtype.as_numpy_dtype).reshape(x_shape)
    flat = point.reshape(-1)
    for i in range(x_size):
        original = flat[i]
        flat[i] = original + delta
        feeds[x] = point
        y_plus = np.asarray(sess.run(y, feeds), dtype=np.float64)
        flat[i] = original - delta
        feeds[x] = point
        y_minus = np.asarray(sess.run(y, feeds), dtype=np.float64)
        flat[i] = original
        jacobian[i, :] = ((y_plus - y_minus) / (2 * delta)).reshape(-1)
    feeds[x] = point
    return jacobian


def _initial_value(x, x_shape, value):
    if value is not None:
        return np.asarray(value, dtype=x.dtype.as_numpy_dtype).reshape(x_shape)
    return np.random.random_sample(x_shape).astype(x.dtype.as_numpy_dtype)


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                     extra_feed_dict=None):
    """The theoretical and the numerical Jacobian of `y` with respect to `x`.

    Runs in the default session. The theoretical Jacobian comes from `tf.gradients` (one
    run per element of y, with a one-hot `grad_ys`); the numerical one from central
    differences `(y(x + delta) - y(x - delta)) / (2 delta)` (two runs per element of x).

    Args:
      x: a Tensor (fed during the check) or a list of them.
      x_shape: the shape of x, or a list of shapes.
      y: a Tensor.
      y_shape: the shape of y.
      x_init_value: the point to differentiate at (random in [0, 1) when None); a list
        when x is a list.
      delta: the finite-difference step.
      init_targets: ops to run first (variable initializers).
      extra_feed_dict: more feeds to hold fixed during the check.

    Returns:
      A pair `(theoretical, numerical)` of arrays of shape `[x_size, y_size]`, or a list of
      such pairs when x is a list.
    """
    from flowloom.framework.gradients_impl import gradients
    from flowloom.ops.array import array_ops

    sess = get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default session: run it inside "
                         "`with tf.Session():`")
    for op in init_targets or ():
        sess.run(op)
    is_list = isinstance(x, (list, tuple))
    xs = list(x) if is_list else [x]
    shapes = list(x_shape) if is_list else [x_shape]
    inits = list(x_init_value) if is_list and x_init_value is not None else \
        ([x_init_value] if not is_list else [None] * len(xs))
    shapes = [tuple(int(d) for d in s) for s in shapes]
    y_shape = tuple(int(d) for d in y_shape)
    with name_scope(None, "gradient_checker"):
        dy = array_ops.placeholder(y.dtype.base_dtype, shape=y_shape, name="dy")
        dxs = gradients(y, xs, grad_ys=dy)
    feeds = dict(extra_feed_dict or {})
    values = [_initial_value(xi, s, v) for xi, s, v in zip(xs, shapes, inits)]
    for xi, v in zip(xs, values):
        feeds[xi] = v
    results = []
    for xi, s, v, dx in zip(xs, shapes, values, dxs):
        theoretical = _theoretical_jacobian(sess, xi, s, dx, y_shape, dy, feeds)
        numerical = _numerical_jacobian(sess, xi, s, v, y, y_shape, delta, feeds)
        results.append((theoretical, numerical))
    return results if is_list else results[0]


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3,
                           init_targets=None, extra_feed_dict=None):
    """The largest absolute difference between the theoretical and numerical Jacobians.

    Takes the arguments of `compute_gradient`.
    """
    grads = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets,
                             extra_feed_dict)
    if isinstance(grads, tuple):
        grads = [grads]
    error = 0
    for theoretical, numerical in grads:
        if theoretical.size or numerical.size:
            # A NumPy scalar, as TF returns (callers format it with `%`).
            error = np.maximum(error, np.fabs(theoretical - numerical).max())
    return error
