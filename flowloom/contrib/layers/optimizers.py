"""tf.contrib.layers.optimize_loss: the train op of a loss in one call (optimizer by name,
class, instance or function; learning-rate variable and decay; gradient noise, multipliers
and clipping; training summaries)."""

from flowloom import summary
from flowloom.framework.graph import GraphKeys, get_collection
from flowloom.framework.indexed_slices import IndexedSlices
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.math import clip_ops, math_ops
from flowloom.ops.random import random_ops
from flowloom.ops.state import init_ops
from flowloom import train
from flowloom.train.optimizer import Optimizer
from flowloom.variable_scope import get_variable, variable_scope

OPTIMIZER_CLS_NAMES = {
    "Adagrad": train.AdagradOptimizer,
    "Adam": train.AdamOptimizer,
    "Ftrl": train.FtrlOptimizer,
    "Momentum": lambda learning_rate: train.MomentumOptimizer(learning_rate, momentum=0.9),
    "RMSProp": train.RMSPropOptimizer,
    "SGD": train.GradientDescentOptimizer,
}

OPTIMIZER_SUMMARIES = ["learning_rate", "loss", "gradients", "gradient_norm",
                       "global_gradient_norm"]


def _make_optimizer(optimizer, lr, learning_rate):
    if isinstance(optimizer, str):
        if lr is None:
            raise ValueError("Learning rate is None, but should be specified if optimizer is "
                             "string (%s)." % optimizer)
        if optimizer not in OPTIMIZER_CLS_NAMES:
            raise ValueError("Optimizer name should be one of [%s], you provided %s."
                             % (", ".join(OPTIMIZER_CLS_NAMES), optimizer))
        return OPTIMIZER_CLS_NAMES[optimizer](learning_rate=lr)
    if isinstance(optimizer, type) and issubclass(optimizer, Optimizer):
        if lr is None:
            raise ValueError("Learning rate is None, but should be specified if optimizer is "
                             "class (%s)." % optimizer)
        return optimizer(learning_rate=lr)
    if isinstance(optimizer, Optimizer):
        return optimizer
    if callable(optimizer):
        opt = optimizer(lr) if learning_rate is not None else optimizer()
        if not isinstance(opt, Optimizer):
            raise ValueError("Unrecognized optimizer: function should return subclass of "
                             "Optimizer. Got %s." % str(opt))
        return opt
    raise ValueError("Unrecognized optimizer: should be string, subclass of Optimizer, "
                     "instance of subclass of Optimizer or function with one argument. Got "
                     "%s." % str(optimizer))


def optimize_loss(loss, global_step, learning_rate, optimizer, gradient_noise_scale=None,
                  gradient_multipliers=None, clip_gradients=None, learning_rate_decay_fn=None,
                  update_ops=None, variables=None, name=None, summaries=None,
                  colocate_gradients_with_ops=False, increment_global_step=True):
    """The train op minimizing `loss` (variable scope `OptimizeLoss`).

    Args:
      loss: a scalar tensor.
      global_step: the step to increment (None: the graph's global step, if any).
      learning_rate: a float (becomes the variable `OptimizeLoss/learning_rate`) or a scalar
        tensor.
      optimizer: 'SGD', 'Adam', 'Adagrad', 'Ftrl', 'Momentum', 'RMSProp', an Optimizer
        class or instance, or a function `lr -> Optimizer`.
      gradient_noise_scale: add truncated-normal noise of this scale to the gradients.
      gradient_multipliers: {variable or name: factor}.
      clip_gradients: a float (clip by global norm) or a function on (gradient, variable)
        pairs.
      learning_rate_decay_fn: `fn(lr, global_step) -> lr`.
      summaries: some of OPTIMIZER_SUMMARIES (default loss, learning_rate,
        global_gradient_norm).
    Returns:
      The loss, after the update.
    Raises:
      ValueError: a bad learning rate, optimizer, summary name or clip_gradients.
    """
    loss = convert_to_tensor(loss)
    if loss.get_shape().ndims not in (0, None):
        raise ValueError("Unexpected shape %s for %s." % (loss.get_shape(), loss.name))
    if global_step is None:
        global_step = train.get_global_step()
    else:
        train.assert_global_step(global_step)
    with variable_scope(name, "OptimizeLoss", [loss, global_step]):
        if update_ops is None:
            update_ops = set(get_collection(GraphKeys.UPDATE_OPS))
        if update_ops:
            loss = control_flow_ops.with_dependencies(sorted(update_ops, key=lambda o: o.name),
                                                      loss)
        lr = None
        if learning_rate is not None:
            if isinstance(learning_rate, Tensor) and learning_rate.get_shape().ndims == 0:
                lr = learning_rate
            elif isinstance(learning_rate, float):
                if learning_rate < 0.0:
                    raise ValueError("Invalid learning_rate %s." % learning_rate)
                lr = get_variable("learning_rate", [], trainable=False,
                                  initializer=init_ops.constant_initializer(learning_rate))
            else:
                raise ValueError("Learning rate should be 0d Tensor or float. Got %s of type %s"
                                 % (str(learning_rate), str(type(learning_rate))))
        if summaries is None:
            summaries = ["loss", "learning_rate", "global_gradient_norm"]
        else:
            for summ in summaries:
                if summ not in OPTIMIZER_SUMMARIES:
                    raise ValueError("Summaries should be one of [%s], you provided %s."
                                     % (", ".join(OPTIMIZER_SUMMARIES), summ))
        if learning_rate is not None and learning_rate_decay_fn is not None:
            if global_step is None:
                raise ValueError("global_step is required for learning_rate_decay_fn.")
            lr = learning_rate_decay_fn(lr, global_step)
            if "learning_rate" in summaries:
                summary.scalar("learning_rate", lr)
        opt = _make_optimizer(optimizer, lr, learning_rate)
        if variables is None:
            from flowloom.variables import trainable_variables

            variables = trainable_variables()
        gradients = opt.compute_gradients(loss, variables,
                                          colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gradient_noise_scale is not None:
            gradients = _add_scaled_noise_to_gradients(gradients, gradient_noise_scale)
        if gradient_multipliers is not None:
            gradients = _multiply_gradients(gradients, gradient_multipliers)
            if not gradients:
                raise ValueError("Empty list of (gradient, var) pairs encountered. This is most "
                                 "likely to be caused by an improper value of "
                                 "gradient_multipliers.")
        if "global_gradient_norm" in summaries or "gradient_norm" in summaries:
            summary.scalar("global_norm/gradient_norm",
                           clip_ops.global_norm(list(zip(*gradients))[0]))
        if isinstance(clip_gradients, float):
            gradients = _clip_gradients_by_norm(gradients, clip_gradients)
        elif callable(clip_gradients):
            gradients = clip_gradients(gradients)
        elif clip_gradients is not None:
            raise ValueError("Unknown type %s for clip_gradients" % type(clip_gradients))
        if "loss" in summaries:
            summary.scalar("loss", loss)
        for gradient, variable in gradients:
            values = gradient.values if isinstance(gradient, IndexedSlices) else gradient
            if values is not None:
                var_name = variable.name.replace(":", "_")
                if "gradients" in summaries:
                    summary.histogram("gradients/%s" % var_name, values)
                if "gradient_norm" in summaries:
                    summary.scalar("gradient_norm/%s" % var_name,
                                   clip_ops.global_norm([values]))
        if clip_gradients is not None and ("global_gradient_norm" in summaries or
                                           "gradient_norm" in summaries):
            summary.scalar("global_norm/clipped_gradient_norm",
                           clip_ops.global_norm(list(zip(*gradients))[0]))
        grad_updates = opt.apply_gradients(
            gradients, global_step=global_step if increment_global_step else None,
            name="train")
        return control_flow_ops.with_dependencies([grad_updates], loss)


def _clip_gradients_by_norm(grads_and_vars, clip_gradients):
    gradients, variables = zip(*grads_and_vars)
    clipped, _ = clip_ops.clip_by_global_norm(gradients, clip_gradients)
    return list(zip(clipped, variables))


def _add_scaled_noise_to_gradients(grads_and_vars, gradient_noise_scale):
    gradients, variables = zip(*grads_and_vars)
    noisy = []
    for gradient in gradients:
        if gradient is None:
            noisy.append(None)
            continue
        shape = gradient.dense_shape if isinstance(gradient, IndexedSlices) else \
            gradient.get_shape()
        noisy.append(gradient + random_ops.truncated_normal(shape) * gradient_noise_scale)
    return list(zip(noisy, variables))


def _multiply_gradients(grads_and_vars, gradient_multipliers):
    out = []
    for grad, var in grads_and_vars:
        if grad is not None and (var in gradient_multipliers or
                                 var.name in gradient_multipliers):
            key = var if var in gradient_multipliers else var.name
            multiplier = gradient_multipliers[key]
            if isinstance(grad, IndexedSlices):
                grad = IndexedSlices(grad.values * multiplier, grad.indices, grad.dense_shape)
            else:
                grad = grad * math_ops.cast(multiplier, grad.dtype)
        out.append((grad, var))
    return out


def adaptive_clipping_fn(std_factor=2.0, decay=0.95, static_max_norm=None, global_step=None,
                         report_summary=False, epsilon=1e-8, name=None):
    """A clip_gradients function scaling the gradients down when their global norm exceeds
    exp(mean + std_factor * std) of its log's moving statistics."""
    from flowloom.framework import dtypes
    from flowloom.train import moving_averages

    def gradient_clipping(grads_and_vars):
        grads, variables = zip(*grads_and_vars)
        norm = clip_ops.global_norm(grads)
        with variable_scope(name, "AdaptiveMaxNorm", [norm]):
            log_norm = math_ops.log(norm + epsilon)

            def moving_average(var_name, value, decay_value):
                var = get_variable(var_name, shape=value.get_shape(), dtype=value.dtype,
                                   initializer=init_ops.zeros_initializer(), trainable=False)
                return moving_averages.assign_moving_average(var, value, decay_value,
                                                             zero_debias=False)
            decay_value = decay
            if global_step is not None:
                n = math_ops.cast(global_step, dtypes.float32)
                decay_value = math_ops.minimum(decay, n / (n + 1.0))
            mean = moving_average("mean", log_norm, decay_value)
            sq_mean = moving_average("sq_mean", math_ops.square(log_norm), decay_value)
            std = math_ops.sqrt(math_ops.maximum(epsilon, sq_mean - math_ops.square(mean)))
            max_norm = math_ops.exp(mean + std_factor * std)
        if report_summary:
            summary.scalar("global_norm/adaptive_max_gradient_norm", max_norm)
        factor = array_ops.where(norm < max_norm, array_ops.ones_like(norm),
                                 math_ops.exp(mean) / norm)
        if static_max_norm is not None:
            factor = math_ops.minimum(static_max_norm / norm, factor)
        clipped = []
        for grad in grads:
            if grad is None:
                clipped.append(None)
            elif isinstance(grad, IndexedSlices):
                clipped.append(IndexedSlices(grad.values * factor, grad.indices,
                                             grad.dense_shape))
            else:
                clipped.append(grad * factor)
        return list(zip(clipped, variables))
    return gradient_clipping
