"""Learning-rate schedules of TF1: functions of the global step built from graph ops."""

from flowloom.framework import dtypes
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops import array_ops, math_ops


def _check_step(global_step, fn_name):
    if global_step is None:
        raise ValueError(f"global_step is required for {fn_name}.")


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """learning_rate * decay_rate ^ (global_step / decay_steps) (the exponent floored when
    `staircase`).

    Raises:
      ValueError: global_step is None.
    """
    _check_step(global_step, "exponential_decay")
    with name_scope(name, "ExponentialDecay") as scope:
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype.base_dtype
        p = math_ops.cast(global_step, dtype) / math_ops.cast(decay_steps, dtype)
        if staircase:
            p = math_ops.floor(p)
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
        lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype.base_dtype
        p = math_ops.cast(global_step, dtype) / math_ops.cast(decay_steps, dtype)
        if staircase:
            p = math_ops.floor(p)
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
      ValueError: len(values) != len(boundaries) + 1, or the values' dtypes differ.
    """
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with name_scope(name, "PiecewiseConstant"):
        x = convert_to_tensor(x)
        boundaries = [convert_to_tensor(b) for b in boundaries]
        values = [convert_to_tensor(v) for v in values]
        for v in values[1:]:
            if v.dtype.base_dtype != values[0].dtype.base_dtype:
                raise ValueError(f"Values must have elements all with the same dtype "
                                 f"({values[0].dtype.base_dtype} vs {v.dtype.base_dtype}).")
        boundaries = [b if b.dtype.base_dtype == x.dtype.base_dtype
                      else math_ops.cast(b, x.dtype.base_dtype) for b in boundaries]
        result = values[-1]
        for b, v in zip(reversed(boundaries), reversed(values[:-1])):
            result = array_ops.where(math_ops.less_equal(x, b), v, result)
        return result


del dtypes
