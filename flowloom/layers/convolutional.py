"""Convolution and pooling layers, as `tf.layers` builds them."""

from flowloom.framework import tensor_shape
from flowloom.layers.base import Layer
from flowloom.ops.state import init_ops
from flowloom.ops.nn import nn_ops


def tf1_dilation_rate_const(dilation_rate):
    """TF 1.15's conv layers build an `nn.Convolution`, which makes a `dilation_rate` Const;
    under TF 1.15's seed rule (every op counts in later default op seeds) flowloom makes it."""
    from flowloom.ops.array import array_ops
    from flowloom.ops.random.random_ops import seed_rules

    if seed_rules() == "1":
        array_ops.constant(list(dilation_rate), dtype="int32", name="dilation_rate")


def normalize_tuple(value, n, name):
    """`value` (an int or n ints) as a tuple of n ints (TF's conv_utils.normalize_tuple).

    Raises:
      ValueError: not an int nor a sequence of n ints, naming the argument.
    """
    if isinstance(value, int):
        return (value,) * n
    message = f"The `{name}` argument must be a tuple of {n} integers. Received: {value}"
    try:
        values = tuple(value)
    except TypeError:
        raise ValueError(message) from None
    if len(values) != n:
        raise ValueError(message)
    for v in values:
        try:
            int(v)
        except (ValueError, TypeError):
            raise ValueError(f"{message} including element {v} of type {type(v)}") from None
    return values


def _pair(v, name):
    return normalize_tuple(v, 2, name)


def _nn_format(data_format):
    if data_format in (None, "channels_last"):
        return "NHWC"
    if data_format == "channels_first":
        return "NCHW"
    raise ValueError(f"The `data_format` argument must be one of \"channels_first\", "
                     f"\"channels_last\". Received: {data_format}")


class Conv2D(Layer):
    """2-D convolution layer: `activation(conv2d(inputs, kernel) + bias)`."""

    _base_name = "conv2d"

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1), activation=None,
                 use_bias=True, kernel_initializer=None,
                 bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.filters = int(filters)
        self.kernel_size = _pair(kernel_size, "kernel_size")
        self.strides = _pair(strides, "strides")
        self.padding = padding.upper()
        self.data_format = _nn_format(data_format)
        self.dilation_rate = _pair(dilation_rate, "dilation_rate")
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
        channels = input_shape[1 if self.data_format == "NCHW" else -1].value
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found "
                             "`None`.")
        self.kernel = self.add_weight("kernel", list(self.kernel_size) + [channels, self.filters],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        tf1_dilation_rate_const(self.dilation_rate)
        self.built = True

    def call(self, inputs):
        if self.data_format == "NCHW":
            strides = [1, 1] + list(self.strides)
            dilations = [1, 1] + list(self.dilation_rate)
        else:
            strides = [1] + list(self.strides) + [1]
            dilations = [1] + list(self.dilation_rate) + [1]
        out = nn_ops.conv2d(inputs, self.kernel, strides=strides, padding=self.padding,
                            data_format=self.data_format, dilations=dilations)
        if self.use_bias:
            out = nn_ops.bias_add(out, self.bias, data_format=self.data_format)
        if self.activation is not None:
            out = self.activation(out)
        return out


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1), activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=init_ops.zeros_initializer(),
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
           kernel_constraint=None, bias_constraint=None, trainable=True, name=None, reuse=None):
    """A 2-D convolution layer; variables `<name>/kernel` and `<name>/bias`."""
    layer = Conv2D(filters, kernel_size, strides=strides, padding=padding,
                   data_format=data_format, dilation_rate=dilation_rate, activation=activation,
                   use_bias=use_bias, kernel_initializer=kernel_initializer,
                   bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                   bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                   bias_constraint=bias_constraint, activity_regularizer=activity_regularizer,
                   trainable=trainable, name=name, _scope=name, _reuse=reuse)
    return layer.apply(inputs)


class _Pooling2D(Layer):
    _pool = None

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = _pair(pool_size, "pool_size")
        self.strides = _pair(strides, "strides")
        self.padding = padding.upper()
        self.data_format = _nn_format(data_format)

    def call(self, inputs):
        from flowloom import nn

        if self.data_format == "NCHW":
            ksize = [1, 1] + list(self.pool_size)
            strides = [1, 1] + list(self.strides)
        else:
            ksize = [1] + list(self.pool_size) + [1]
            strides = [1] + list(self.strides) + [1]
        return getattr(nn, self._pool)(inputs, ksize=ksize, strides=strides,
                                       padding=self.padding, data_format=self.data_format)


class MaxPooling2D(_Pooling2D):
    """Max pooling over 2-D windows."""

    _base_name = "max_pooling2d"
    _pool = "max_pool"


class AveragePooling2D(_Pooling2D):
    """Average pooling over 2-D windows."""

    _base_name = "average_pooling2d"
    _pool = "avg_pool"


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """Max pooling layer."""
    return MaxPooling2D(pool_size, strides, padding, data_format, name=name).apply(inputs)


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                      name=None):
    """Average pooling layer."""
    return AveragePooling2D(pool_size, strides, padding, data_format, name=name).apply(inputs)
