"""Learning-rate schedules of TF1: functions of the global step built from graph ops."""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops


def _check_step(global_step, fn_name):
    if global_step is None:  # TF 1.15's words: its cast of the step refuses None
        raise ValueError("None values not supported.")


def _progress(learning_rate, global_step, decay_steps, staircase):
    """(learning rate tensor, its dtype, global_step / decay_steps floored when staircase)."""
    lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
    dtype = lr.dtype.base_dtype
    p = math_ops.cast(global_step, dtype) / math_ops.cast(decay_steps, dtype)
    if staircase:
        p = math_ops.floor(p)
    return lr, dtype, p


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """learning_rate * decay_rate ^ (global_step / decay_steps) (the exponent floored when
    `staircase`).

    Raises:
      ValueError: global_step is None.
    """
    _check_step(global_step, "exponential_decay")
    with name_scope(name, "ExponentialDecay") as scope:
        lr, dtype, p = _progress(learning_rate, global_step, decay_steps, staircase)
        return math_ops.multiply(lr, math_ops.pow(math_ops.cast(decay_rate, dtype), p),
                                 name=scope)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                       name=None):
    """learning_rate / (1 + decay_rate * global_step / decay_steps).

    Raises:
      ValueError: global_step is None.
    """
    _check_step(global_step, "inverse_time_decay")
    with name_scope(name, "InverseTimeDecay") as scope:
        lr, dtype, p = _progress(learning_rate, global_step, decay_steps, staircase)
        one = math_ops.cast(array_ops.constant(1), dtype)
        denom = math_ops.add(one, math_ops.multiply(math_ops.cast(decay_rate, dtype), p))
        return math_ops.divide(lr, denom, name=scope)


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001,
                     power=1.0, cycle=False, name=None):
    """(lr - end) * (1 - step / decay_steps) ^ power + end, the step clipped at decay_steps
    (or decay_steps grown to the next multiple when `cycle`).

    Raises:
      ValueError: global_step is None.
    """
    _check_step(global_step, "polynomial_decay")
    with name_scope(name, "PolynomialDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype.base_dtype
        end = math_ops.cast(end_learning_rate, dtype)
        power = math_ops.cast(power, dtype)
        step = math_ops.cast(global_step, dtype)
        steps = math_ops.cast(decay_steps, dtype)
        if cycle:
            multiplier = array_ops.where(
                math_ops.equal(step, 0), array_ops.ones_like(step),
                math_ops.ceil(step / convert_to_tensor(decay_steps, dtype=dtype)))
            steps = math_ops.multiply(steps, multiplier)
        else:
            step = math_ops.minimum(step, steps)
        p = math_ops.divide(step, steps)
        return math_ops.add(math_ops.multiply(lr - end, math_ops.pow(1 - p, power)), end,
                            name=scope)


def piecewise_constant(x, boundaries, values, name=None):
    """values[0] for x <= boundaries[0], values[i] for boundaries[i-1] < x <= boundaries[i],
    values[-1] after the last boundary.

    TF builds this with tf.case; flowloom selects with Select ops (the same values).

    Raises:
      ValueError: a boundary's dtype is not x's (int32 boundaries widen to an int64 x), the
        values' dtypes differ, or len(values) != len(boundaries) + 1.
    """
    boundaries = [convert_to_tensor(b) for b in boundaries]
    values = [convert_to_tensor(v) for v in values]
    x = convert_to_tensor(x)
    x_dtype = x.dtype.base_dtype
    for i, b in enumerate(boundaries):
        if b.dtype.base_dtype != x_dtype:
            # int32 boundaries (Python ints) widen to an int64 x without loss; any other
            # conversion could change the comparisons, so TF refuses it.
            if b.dtype.base_dtype == dtypes.int32 and x_dtype == dtypes.int64:
                boundaries[i] = math_ops.cast(b, x_dtype)
            else:
                raise ValueError(f"Boundaries ({b.dtype.base_dtype}) must have the same dtype "
                                 f"as x ({x_dtype}).")
    for v in values[1:]:
        if v.dtype.base_dtype != values[0].dtype.base_dtype:
            raise ValueError(f"Values must have elements all with the same dtype "
                             f"({values[0].dtype.base_dtype} vs {v.dtype.base_dtype}).")
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with name_scope(name, "PiecewiseConstant"):
        result = values[-1]
        for b, v in zip(reversed(boundaries), reversed(values[:-1])):
            result = array_ops.where(math_ops.less_equal(x, b), v, result)
        return result



def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """learning_rate * exp(-decay_rate * global_step / decay_steps) (floored when
    `staircase`).

    Raises:
      ValueError: global_step is None.
    """
    _check_step(global_step, "natural_exp_decay")
    rate = math_ops.exp(math_ops.negative(decay_rate))
    return exponential_decay(learning_rate, global_step, decay_steps, rate, staircase, name)


def _pi(dtype):
    return array_ops.constant(np.pi, dtype=dtype)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps))
    + alpha) (Loshchilov & Hutter's SGDR without restarts).

    Raises:
      ValueError: global_step is None.
    """
    _check_step(global_step, "cosine_decay")
    with name_scope(name, "CosineDecay"):
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype.base_dtype
        steps = math_ops.cast(decay_steps, dtype)
        step = math_ops.minimum(math_ops.cast(global_step, dtype), steps)
        fraction = step / steps
        cosine = 0.5 * (1.0 + math_ops.cos(_pi(dtypes.float32) * fraction))
        return math_ops.multiply(lr, (1 - alpha) * cosine + alpha)


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0,
                          alpha=0.0, name=None):
    """Cosine decay with warm restarts: periods grow by `t_mul`, peaks shrink by `m_mul`.

    TF picks the restart arithmetic with tf.cond on t_mul == 1; flowloom selects it.

    Raises:
      ValueError: global_step is None.
    """
    _check_step(global_step, "cosine_decay_restarts")
    with name_scope(name, "SGDRDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype.base_dtype
        first = math_ops.cast(first_decay_steps, dtype)
        alpha_t, t_mul_t, m_mul_t = (math_ops.cast(v, dtype) for v in (alpha, t_mul, m_mul))
        fraction = math_ops.cast(global_step, dtype) / first
        i_linear = math_ops.floor(fraction)
        linear = math_ops.equal(t_mul_t, 1.0)
        # The geometric branch is computed either way: keep it finite when t_mul == 1.
        t_geo = array_ops.where(linear, array_ops.ones_like(t_mul_t) * 2.0, t_mul_t)
        i_geometric = math_ops.floor(math_ops.log(1.0 - fraction * (1.0 - t_geo)) /
                                     math_ops.log(t_geo))
        sum_r = (1.0 - t_geo ** i_geometric) / (1.0 - t_geo)
        i_restart = array_ops.where(linear, i_linear, i_geometric)
        fraction = array_ops.where(linear, fraction - i_linear,
                                   (fraction - sum_r) / t_geo ** i_geometric)
        cosine = 0.5 * m_mul_t ** i_restart * (1.0 + math_ops.cos(_pi(dtypes.float32) *
                                                                   fraction))
        return math_ops.multiply(lr, (1 - alpha_t) * cosine + alpha_t, name=scope)


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0,
                        beta=0.001, name=None):
    """learning_rate * ((alpha + linear) * cosine + beta), linear going from 1 to 0 over
    decay_steps and cosine making `num_periods` periods.

    Raises:
      ValueError: global_step is None.
    """
    _check_step(global_step, "linear_cosine_decay")
    with name_scope(name, "LinearCosineDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype.base_dtype
        steps = math_ops.cast(decay_steps, dtype)
        periods, alpha_t, beta_t = (math_ops.cast(v, dtype) for v in (num_periods, alpha, beta))
        step = math_ops.minimum(math_ops.cast(global_step, dtype), steps)
        linear = (steps - step) / steps
        fraction = 2.0 * periods * (step / steps)
        cosine = 0.5 * (1.0 + math_ops.cos(_pi(dtypes.float32) * fraction))
        return math_ops.multiply(lr, (alpha_t + linear) * cosine + beta_t, name=scope)


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0,
                              variance_decay=0.55, num_periods=0.5, alpha=0.0, beta=0.001,
                              name=None):
    """linear_cosine_decay with Gaussian noise on its linear part:
    learning_rate * ((alpha + linear + eps) * cosine + beta), eps ~ N(0, variance) with
    variance = initial_variance / (1 + global_step) ^ variance_decay (a new draw per run).

    Raises:
      ValueError: global_step is None.
    """
    from flowloom.ops.random.random_ops import random_normal

    _check_step(global_step, "noisy_linear_cosine_decay")
    with name_scope(name, "NoisyLinearCosineDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype.base_dtype
        steps = math_ops.cast(decay_steps, dtype)
        variance0, var_decay, periods, alpha_t, beta_t = (
            math_ops.cast(v, dtype)
            for v in (initial_variance, variance_decay, num_periods, alpha, beta))
        step = math_ops.minimum(math_ops.cast(global_step, dtype), steps)
        linear = (steps - step) / steps
        variance = variance0 / math_ops.pow(1.0 + step, var_decay)
        noisy_linear = linear + random_normal(linear.shape, stddev=math_ops.sqrt(variance))
        fraction = 2.0 * periods * (step / steps)
        cosine = 0.5 * (1.0 + math_ops.cos(_pi(dtypes.float32) * fraction))
        return math_ops.multiply(lr, (alpha_t + noisy_linear) * cosine + beta_t, name=scope)
