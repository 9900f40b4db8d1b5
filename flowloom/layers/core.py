"""Dense, Dropout and Flatten layers, as `tf.layers` builds them."""

import numpy as np

from flowloom.framework import tensor_shape
from flowloom.framework.ops import convert_to_tensor
from flowloom.layers.base import Layer, smart_cond
from flowloom.ops.array import array_ops
from flowloom.ops.state import init_ops
from flowloom.ops.math import math_ops
from flowloom.ops.nn import nn_ops


class Dense(Layer):
    """`outputs = activation(inputs @ kernel + bias)`."""

    _base_name = "dense"

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint

    def build(self, input_shape):
        input_shape = tensor_shape.as_shape(input_shape)
        last = input_shape[-1].value
        if last is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. "
                             "Found `None`.")
        self.kernel = self.add_weight("kernel", [last, self.units],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", [self.units], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def compute_output_shape(self, input_shape):
        input_shape = tensor_shape.TensorShape(input_shape).with_rank_at_least(2)
        if input_shape[-1].value is None:
            raise ValueError("The innermost dimension of input_shape must be defined, but saw: "
                             f"{input_shape}")
        return input_shape[:-1].concatenate(self.units)

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        rank = inputs.shape.ndims
        if rank is not None and rank > 2:
            from flowloom.ops.math.einsum_ops import tensordot

            # As TF: a tensordot over the last axis, static shape kept.
            out = tensordot(inputs, self.kernel, [[rank - 1], [0]])
            out.set_shape(inputs.shape[:-1].concatenate([self.units]))
        else:
            out = math_ops.matmul(inputs, self.kernel)
        if self.use_bias:
            out = nn_ops.bias_add(out, self.bias)
        if self.activation is not None:
            out = self.activation(out)
        return out


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None,
          bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
          bias_constraint=None, trainable=True, name=None, reuse=None):
    """A densely-connected layer: `activation(inputs @ kernel + bias)`.

    Variables are `<name>/kernel` and `<name>/bias` (name defaults to dense, dense_1, ...).
    """
    layer = Dense(units, activation=activation, use_bias=use_bias,
                  kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                  kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                  activity_regularizer=activity_regularizer, trainable=trainable, name=name,
                  _scope=name, _reuse=reuse)
    return layer.apply(inputs)


class Dropout(Layer):
    """Randomly zeroes a fraction `rate` of the inputs during training."""

    _base_name = "dropout"

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def call(self, inputs, training=False):
        from flowloom import nn

        return smart_cond(training,
                          lambda: nn.dropout(inputs, noise_shape=self.noise_shape,
                                             seed=self.seed, rate=self.rate),
                          lambda: array_ops.identity(inputs))


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Dropout applied only when `training` is true."""
    return Dropout(rate, noise_shape=noise_shape, seed=seed, name=name).apply(
        inputs, training=training)


class Flatten(Layer):
    """Flattens all but the first dimension."""

    _base_name = "flatten"

    def __init__(self, data_format=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.data_format = data_format

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        shape = inputs.shape
        if self.data_format == "channels_first" and shape.ndims and shape.ndims > 2:
            perm = [0] + list(range(2, shape.ndims)) + [1]
            inputs = array_ops.transpose(inputs, perm)
            shape = inputs.shape
        if shape.ndims is not None and all(d is not None for d in shape.as_list()[1:]):
            flat = int(np.prod(shape.as_list()[1:]))
            return array_ops.reshape(inputs, array_ops.constant([-1, flat]))
        out = array_ops.reshape(inputs, array_ops.stack([array_ops.shape(inputs)[0], -1]))
        out.set_shape(self.compute_output_shape(shape))
        return out

    def compute_output_shape(self, input_shape):
        dims = tensor_shape.as_shape(input_shape).as_list()
        if not dims:
            return tensor_shape.TensorShape([1])
        rest = dims[1:]
        return tensor_shape.TensorShape(
            [dims[0], int(np.prod(rest)) if all(rest) else None])


def flatten(inputs, name=None, data_format="channels_last"):
    """Flattens `inputs` to [batch, -1]."""
    return Flatten(data_format=data_format, name=name).apply(inputs)
