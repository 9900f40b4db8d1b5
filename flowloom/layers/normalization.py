"""Batch normalization layer, with moving-average updates in GraphKeys.UPDATE_OPS."""

from flowloom.framework import tensor_shape
from flowloom.framework.graph import colocate_with, name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.layers.base import Layer, smart_cond
from flowloom.ops.state import init_ops
from flowloom.ops.math import math_ops
from flowloom.ops.state import state_ops


def _assign_moving_average(variable, value, momentum):
    with name_scope(None, "AssignMovingAvg", [variable, value, momentum]) as scope:
        with colocate_with(variable):
            if isinstance(momentum, (int, float)):
                decay = convert_to_tensor(1.0 - momentum, name="decay")
            else:
                decay = 1.0 - momentum
            if decay.dtype != variable.dtype.base_dtype:
                decay = math_ops.cast(decay, variable.dtype.base_dtype)
            delta = (variable - math_ops.cast(value, variable.dtype.base_dtype)) * decay
            return state_ops.assign_sub(variable, delta, name=scope)


class BatchNormalization(Layer):
    """Normalizes with batch statistics in training and moving averages in inference."""

    _base_name = "batch_normalization"

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=init_ops.zeros_initializer(),
                 gamma_initializer=init_ops.ones_initializer(),
                 moving_mean_initializer=init_ops.zeros_initializer(),
                 moving_variance_initializer=init_ops.ones_initializer(),
                 beta_regularizer=None, gamma_regularizer=None, trainable=True, name=None,
                 fused=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        self.axis = axis
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.fused = fused

    def build(self, input_shape):
        input_shape = tensor_shape.as_shape(input_shape)
        ndims = input_shape.ndims
        axis = self.axis if self.axis >= 0 else ndims + self.axis
        self._axis = axis
        depth = input_shape[axis].value
        if depth is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined "
                             "dimension but the layer received an input with shape "
                             f"{input_shape}.")
        if self.fused is None:
            self.fused = ndims == 4 and axis in (1, 3)
        self._data_format = "NCHW" if axis == 1 and ndims == 4 else "NHWC"
        self.gamma = self.add_weight("gamma", [depth], initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer) if self.scale else None
        self.beta = self.add_weight("beta", [depth], initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer) if self.center else None
        self.moving_mean = self.add_weight("moving_mean", [depth],
                                           initializer=self.moving_mean_initializer,
                                           trainable=False)
        self.moving_variance = self.add_weight("moving_variance", [depth],
                                               initializer=self.moving_variance_initializer,
                                               trainable=False)
        self.built = True

    def call(self, inputs, training=False):
        from flowloom import nn
        from flowloom.ops.array import array_ops

        inputs = convert_to_tensor(inputs)
        depth = self.moving_mean.shape[0].value
        gamma = self.gamma if self.gamma is not None else array_ops.ones([depth])
        beta = self.beta if self.beta is not None else array_ops.zeros([depth])
        if self.fused:
            def train_branch():
                return nn.fused_batch_norm(inputs, gamma, beta, epsilon=self.epsilon,
                                           data_format=self._data_format, is_training=True)

            def infer_branch():
                return nn.fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean,
                                           variance=self.moving_variance, epsilon=self.epsilon,
                                           data_format=self._data_format, is_training=False)
            output, mean, variance = smart_cond(training, train_branch, infer_branch)
        else:
            reduce_axes = [i for i in range(inputs.shape.ndims) if i != self._axis]

            def train_stats():
                return nn.moments(inputs, reduce_axes)

            def infer_stats():
                return self.moving_mean.value(), self.moving_variance.value()
            mean, variance = smart_cond(training, train_stats, infer_stats)
            output = nn.batch_normalization(inputs, mean, variance, beta, gamma, self.epsilon)
        is_training = training if isinstance(training, bool) else None
        if is_training is not False:
            momentum = self.momentum if is_training else smart_cond(
                training, lambda: self.momentum, lambda: 1.0)
            self.add_update(_assign_moving_average(self.moving_mean, mean, momentum))
            self.add_update(_assign_moving_average(self.moving_variance, variance, momentum))
        return output


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=init_ops.zeros_initializer(),
                        gamma_initializer=init_ops.ones_initializer(),
                        moving_mean_initializer=init_ops.zeros_initializer(),
                        moving_variance_initializer=init_ops.ones_initializer(),
                        beta_regularizer=None, gamma_regularizer=None, training=False,
                        trainable=True, name=None, reuse=None, fused=None):
    """Batch normalization; in training, its moving-average updates go to UPDATE_OPS."""
    layer = BatchNormalization(axis=axis, momentum=momentum, epsilon=epsilon, center=center,
                               scale=scale, beta_initializer=beta_initializer,
                               gamma_initializer=gamma_initializer,
                               moving_mean_initializer=moving_mean_initializer,
                               moving_variance_initializer=moving_variance_initializer,
                               beta_regularizer=beta_regularizer,
                               gamma_regularizer=gamma_regularizer, trainable=trainable,
                               name=name, fused=fused, _scope=name, _reuse=reuse)
    return layer.apply(inputs, training=training)
