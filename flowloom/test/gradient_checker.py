"""Checks symbolic gradients against central finite differences (`tf.test.compute_gradient`)."""

import numpy as np

from flowloom.framework.graph import name_scope
from flowloom.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from flowloom.runtime.session import get_default_session


_ALLOWED = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")


def _real_np(dtype):
    """The NumPy type of the real components of `dtype` (complex64 -> float32)."""
    return {"complex64": np.float32, "complex128": np.float64}.get(
        dtype.base_dtype.name, dtype.base_dtype.as_numpy_dtype)


def _theoretical_jacobian(sess, x, x_shape, x_data, dx, y_shape, dy, feeds):
    """One column per (real component of an) element of y: the backprop of a one-hot dy.
    Complex tensors count as twice as many reals (real, imaginary interleaved)."""
    if x.dtype.is_complex:
        x_shape = tuple(x_shape) + (2,)
    x_size = int(np.prod(x_shape))
    x_row = int(np.prod(x_shape[1:]))  # elements per row of a sparse (IndexedSlices) gradient
    dy_size = int(np.prod(y_shape)) * (2 if dy.dtype.is_complex else 1)
    jacobian = np.zeros((x_size, dy_size), dtype=_real_np(x.dtype))
    dy_data = np.zeros(y_shape, dtype=dy.dtype.as_numpy_dtype)
    dy_flat = dy_data.reshape(-1).view(_real_np(dy.dtype))
    run_feeds = dict(feeds)
    run_feeds[x] = x_data
    run_feeds[dy] = dy_data
    for col in range(dy_size):
        dy_flat[col] = 1
        if dx is None:
            pass
        elif isinstance(dx, IndexedSlices):
            indices, values = sess.run([dx.indices, dx.values], run_feeds)
            for i, v in zip(indices, values):
                jacobian[i * x_row:(i + 1) * x_row, col] += np.asarray(v).reshape(-1).view(
                    jacobian.dtype) if np.iscomplexobj(v) else np.asarray(v).reshape(-1)
        else:
            backprop = np.asarray(sess.run(dx, run_feeds))
            jacobian[:, col] = backprop.reshape(-1).view(jacobian.dtype) if \
                np.iscomplexobj(backprop) else backprop.reshape(-1)
        dy_flat[col] = 0
    if not dy_size and dx is not None:
        # An empty output: run the gradient once; it must be zeros of x's shape.
        backprop = _dense(sess.run(dx, run_feeds), np.shape(x_data))
        if backprop.shape != np.shape(x_data):
            raise ValueError(f"Empty gradient has wrong shape: expected {np.shape(x_data)}, "
                             f"got {backprop.shape}")
        if np.any(backprop):
            raise ValueError("Empty tensor with nonzero gradients")
    return jacobian


def _dense(value, shape):
    if isinstance(value, IndexedSlicesValue):
        out = np.zeros(shape, dtype=value.values.dtype)
        np.add.at(out, value.indices, value.values)
        return out
    return np.asarray(value)


def _numerical_jacobian(sess, x, x_shape, x_data, y, y_shape, delta, feeds):
    """One row per (real component of an) element of x: central differences
    (y(x + delta) - y(x - delta)) / (2 delta), in y's precision."""
    x_size = int(np.prod(x_shape)) * (2 if x.dtype.is_complex else 1)
    y_size = int(np.prod(y_shape)) * (2 if y.dtype.is_complex else 1)
    x_real, y_real = _real_np(x.dtype), _real_np(y.dtype)
    x_data = np.asarray(x_data, dtype=x.dtype.as_numpy_dtype)
    scale = np.asarray(2 * delta, dtype=y_real)[()]
    jacobian = np.zeros((x_size, y_size), dtype=x_real)
    run_feeds = dict(feeds)
    for row in range(x_size):
        x_pos, x_neg = x_data.copy(), x_data.copy()
        x_pos.reshape(-1).view(x_real)[row] += delta
        run_feeds[x] = x_pos
        y_pos = np.asarray(sess.run(y, run_feeds))
        x_neg.reshape(-1).view(x_real)[row] -= delta
        run_feeds[x] = x_neg
        y_neg = np.asarray(sess.run(y, run_feeds))
        diff = np.asarray((y_pos - y_neg) / scale)
        jacobian[row, :] = diff.reshape(-1).view(y_real) if np.iscomplexobj(diff) else \
            diff.reshape(-1)
    return jacobian


def _initial_value(x, x_shape, value):
    if value is not None:
        value = np.asarray(value)
        if list(value.shape) != list(x_shape):
            raise AssertionError(f"x_shape = {list(x_shape)}, init_data shape = "
                                 f"{list(value.shape)}")
        return value.astype(x.dtype.as_numpy_dtype, copy=False)
    data = np.random.random_sample(x_shape).astype(x.dtype.as_numpy_dtype)
    if x.dtype.is_complex:
        data.imag = np.random.random_sample(x_shape)
    return data


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
    for t in xs + [y]:
        if t.dtype.base_dtype.name not in _ALLOWED:
            raise AssertionError(f"Don't support type {t.dtype.base_dtype.name} for "
                                 f"{'y' if t is y else 'x'}")
    with name_scope(None, "gradient_checker"):
        dy = array_ops.placeholder(y.dtype.base_dtype, shape=y_shape, name="dy")
        dxs = gradients(y, xs, grad_ys=dy)
    feeds = dict(extra_feed_dict or {})
    values = [_initial_value(xi, s, v) for xi, s, v in zip(xs, shapes, inits)]
    results = []
    for xi, s, v, dx in zip(xs, shapes, values, dxs):
        point = dict(feeds)
        for xj, vj in zip(xs, values):
            point.setdefault(xj, vj)
        theoretical = _theoretical_jacobian(sess, xi, s, v, dx, y_shape, dy, point)
        numerical = _numerical_jacobian(sess, xi, s, v, y, y_shape, delta, point)
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
            # np.maximum keeps a NaN (a NaN gradient must fail `error < tolerance`); the
            # result stays a NumPy scalar, as TF returns (callers format it with `%`).
            error = np.maximum(error, np.fabs(theoretical - numerical).max())
    return error
