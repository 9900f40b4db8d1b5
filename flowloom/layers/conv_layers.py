"""The convolution and pooling layers beyond 2-D: Conv1D/Conv3D, Conv2DTranspose/
Conv3DTranspose, SeparableConv1D/2D, pooling in 1-D and 3-D — the graphs TF 1.x's tf.layers
(Keras layers in TF1 variable scopes) build, with their variable names."""

from flowloom.framework import tensor_shape
from flowloom.layers.base import Layer
from flowloom.layers.convolutional import _nn_format, normalize_tuple, tf1_dilation_rate_const
from flowloom.ops.array import array_ops
from flowloom.ops.nn import conv3d_ops, nn_impl, nn_ops
from flowloom.ops.state import init_ops


def _tuple(v, n, name):
    return tuple(int(x) for x in normalize_tuple(v, n, name))


def _channels_first(data_format):
    _nn_format(data_format)  # validates
    return data_format == "channels_first"


class InputSpec:
    """What a layer expects of its input: dtype, shape or rank bounds, known axes."""

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None):
        self.dtype, self.shape = dtype, shape
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim, self.min_ndim, self.axes = max_ndim, min_ndim, axes or {}


class _Conv(Layer):
    """N-D convolution: `activation(conv(inputs, kernel) + bias)`, kernel [*k, in, filters]."""

    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, activation=None,
                 use_bias=True, kernel_initializer=None,
                 bias_initializer=init_ops.zeros_initializer(), kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.filters = int(filters)
        self.kernel_size = _tuple(kernel_size, self.rank, "kernel_size")
        self.strides = _tuple(strides, self.rank, "strides")
        self.padding = padding.lower()
        if self.padding not in ("valid", "same") + (("causal",) if self.rank == 1 else ()):
            raise ValueError(f"The `padding` argument must be one of \"valid\", \"same\". "
                             f"Received: {padding}")
        self.channels_first = _channels_first(data_format)
        self.data_format = data_format
        self.dilation_rate = _tuple(dilation_rate, self.rank, "dilation_rate")
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _input_channels(self, input_shape):
        input_shape = tensor_shape.as_shape(input_shape)
        if input_shape.ndims is not None and input_shape.ndims != self.rank + 2:
            raise ValueError(f"Input 0 of layer {self.name} is incompatible with the layer: "
                             f"expected ndim={self.rank + 2}, found ndim={input_shape.ndims}. "
                             f"Full shape received: {input_shape.as_list()}")
        channels = input_shape[1 if self.channels_first else -1].value
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found "
                             "`None`.")
        return channels

    def _kernel_shape(self, channels):
        return list(self.kernel_size) + [channels, self.filters]

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        self.kernel = self.add_weight("kernel", self._kernel_shape(channels),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        tf1_dilation_rate_const(self.dilation_rate)
        self.built = True

    def _full(self, values):
        return [1, 1] + list(values) if self.channels_first else [1] + list(values) + [1]

    def _convolve(self, inputs):
        padding = "VALID" if self.padding == "causal" else self.padding.upper()
        if self.rank == 1:
            return nn_ops.conv1d(inputs, self.kernel, stride=list(self.strides), padding=padding,
                                 data_format="NCW" if self.channels_first else "NWC",
                                 dilations=list(self.dilation_rate))
        if self.rank == 2:
            return nn_ops.conv2d(inputs, self.kernel, strides=self._full(self.strides),
                                 padding=padding,
                                 data_format="NCHW" if self.channels_first else "NHWC",
                                 dilations=self._full(self.dilation_rate))
        return conv3d_ops.conv3d(inputs, self.kernel, strides=self._full(self.strides),
                                 padding=padding,
                                 data_format="NCDHW" if self.channels_first else "NDHWC",
                                 dilations=self._full(self.dilation_rate))

    def _add_bias(self, outputs):
        if not self.use_bias:
            return outputs
        if self.channels_first and self.rank == 1:
            # bias_add takes no 3-D NCW input: TF reshapes the bias instead.
            return outputs + array_ops.reshape(self.bias, (1, self.filters, 1))
        return nn_ops.bias_add(outputs, self.bias,
                               data_format="NCHW" if self.channels_first else "NHWC")

    def call(self, inputs):
        if self.padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            pad = [[0, 0], [0, 0], [left, 0]] if self.channels_first else \
                [[0, 0], [left, 0], [0, 0]]
            inputs = array_ops.pad(inputs, pad)
        outputs = self._add_bias(self._convolve(inputs))
        return self.activation(outputs) if self.activation is not None else outputs


class Conv1D(_Conv):
    """1-D convolution layer (temporal convolution); 'causal' padding pads on the left."""

    rank = 1
    _base_name = "conv1d"


class Conv3D(_Conv):
    """3-D convolution layer over [batch, depth, height, width, channels]."""

    rank = 3
    _base_name = "conv3d"


def _deconv_length(size, k, padding, stride, dilation):
    """conv_utils.deconv_output_length (sizes are ints or scalar tensors)."""
    if size is None:
        return None
    k = k + (k - 1) * (dilation - 1)
    if padding == "valid":
        return size * stride + max(k - stride, 0)
    return size * stride


class _ConvTranspose(_Conv):
    def _kernel_shape(self, channels):
        return list(self.kernel_size) + [self.filters, channels]

    def call(self, inputs):
        dynamic = array_ops.shape(inputs)
        axes = list(range(2, 2 + self.rank)) if self.channels_first else \
            list(range(1, 1 + self.rank))
        sizes = [_deconv_length(dynamic[a], k, self.padding, s, d) for a, k, s, d in
                 zip(axes, self.kernel_size, self.strides, self.dilation_rate)]
        dims = [dynamic[0], self.filters] + sizes if self.channels_first else \
            [dynamic[0]] + sizes + [self.filters]
        output_shape = array_ops.stack(dims)
        if self.rank == 2:
            if self.dilation_rate != (1, 1):
                raise NotImplementedError("tf.layers.Conv2DTranspose with dilation_rate "
                                          "(atrous_conv2d_transpose)")
            outputs = nn_ops.conv2d_transpose(inputs, self.kernel, output_shape,
                                              self._full(self.strides),
                                              padding=self.padding.upper(),
                                              data_format="NCHW" if self.channels_first
                                              else "NHWC")
        else:
            outputs = conv3d_ops.conv3d_transpose(inputs, self.kernel, output_shape,
                                                  self._full(self.strides),
                                                  padding=self.padding.upper(),
                                                  data_format="NCDHW" if self.channels_first
                                                  else "NDHWC")
        outputs.set_shape(self._static_output_shape(inputs._shape))
        outputs = self._add_bias(outputs)
        return self.activation(outputs) if self.activation is not None else outputs

    def _static_output_shape(self, shape):
        dims = shape.as_list()
        axes = list(range(2, 2 + self.rank)) if self.channels_first else \
            list(range(1, 1 + self.rank))
        out = list(dims)
        for a, k, s, d in zip(axes, self.kernel_size, self.strides, self.dilation_rate):
            out[a] = _deconv_length(dims[a], k, self.padding, s, d)
        out[1 if self.channels_first else -1] = self.filters
        return out


class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution ("deconvolution"): kernel [kh, kw, filters, in]."""

    rank = 2
    _base_name = "conv2d_transpose"


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution: kernel [kd, kh, kw, filters, in]."""

    rank = 3
    _base_name = "conv3d_transpose"


class _SeparableConv(_Conv):
    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=init_ops.zeros_initializer(),
                 depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         bias_constraint=bias_constraint, trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.depthwise_initializer = depthwise_initializer
        self.pointwise_initializer = pointwise_initializer
        self.depthwise_regularizer = depthwise_regularizer
        self.pointwise_regularizer = pointwise_regularizer
        self.depthwise_constraint = depthwise_constraint
        self.pointwise_constraint = pointwise_constraint

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", list(self.kernel_size) + [channels, self.depth_multiplier],
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel", [1] * self.rank + [self.depth_multiplier * channels,
                                                   self.filters],
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def _bias_4d(self, outputs):
        if not self.use_bias:
            return outputs
        return nn_ops.bias_add(outputs, self.bias,
                               data_format="NCHW" if self.channels_first else "NHWC")


class SeparableConv2D(_SeparableConv):
    """Depthwise then pointwise 2-D convolution."""

    rank = 2
    _base_name = "separable_conv2d"

    def call(self, inputs):
        outputs = nn_impl.separable_conv2d(
            inputs, self.depthwise_kernel, self.pointwise_kernel,
            strides=self._full(self.strides), padding=self.padding.upper(),
            rate=self.dilation_rate, data_format="NCHW" if self.channels_first else "NHWC")
        outputs = self._bias_4d(outputs)
        return self.activation(outputs) if self.activation is not None else outputs


class SeparableConv1D(_SeparableConv):
    """Depthwise then pointwise 1-D convolution (built on the 2-D ops, as TF does)."""

    rank = 1
    _base_name = "separable_conv1d"

    def call(self, inputs):
        if self.padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            inputs = array_ops.pad(inputs, [[0, 0], [0, 0], [left, 0]] if self.channels_first
                                   else [[0, 0], [left, 0], [0, 0]])
        spatial = 2 if self.channels_first else 1
        strides = [1, 1] + list(self.strides) * 2 if self.channels_first else \
            [1] + list(self.strides) * 2 + [1]
        inputs = array_ops.expand_dims(inputs, spatial)
        depthwise = array_ops.expand_dims(self.depthwise_kernel, 0)
        pointwise = array_ops.expand_dims(self.pointwise_kernel, 0)
        padding = "VALID" if self.padding == "causal" else self.padding.upper()
        outputs = nn_impl.separable_conv2d(
            inputs, depthwise, pointwise, strides=strides, padding=padding,
            rate=(1,) + self.dilation_rate, data_format="NCHW" if self.channels_first
            else "NHWC")
        outputs = array_ops.squeeze(self._bias_4d(outputs), [spatial])
        return self.activation(outputs) if self.activation is not None else outputs


# -- pooling -----------------------------------------------------------------------------------
class _Pooling1D(Layer):
    _pool = None

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = _tuple(pool_size, 1, "pool_size")
        self.strides = _tuple(strides, 1, "strides")
        self.padding = padding.upper()
        self.channels_first = _channels_first(data_format)

    def call(self, inputs):
        pad_axis = 3 if self.channels_first else 2
        x = array_ops.expand_dims(inputs, pad_axis)
        full = (lambda v: [1, 1] + list(v) + [1]) if self.channels_first else \
            (lambda v: [1] + list(v) + [1, 1])
        out = getattr(nn_ops, self._pool)(x, full(self.pool_size), full(self.strides),
                                          padding=self.padding,
                                          data_format="NCHW" if self.channels_first
                                          else "NHWC")
        return array_ops.squeeze(out, [pad_axis])


class MaxPooling1D(_Pooling1D):
    """Max pooling over 1-D windows."""

    _base_name = "max_pooling1d"
    _pool = "max_pool"


class AveragePooling1D(_Pooling1D):
    """Average pooling over 1-D windows."""

    _base_name = "average_pooling1d"
    _pool = "avg_pool"


class _Pooling3D(Layer):
    _pool = None

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.pool_size = _tuple(pool_size, 3, "pool_size")
        self.strides = _tuple(strides, 3, "strides")
        self.padding = padding.upper()
        self.channels_first = _channels_first(data_format)

    def call(self, inputs):
        if self.channels_first:
            inputs = array_ops.transpose(inputs, (0, 2, 3, 4, 1))
        out = getattr(conv3d_ops, self._pool)(inputs, [1] + list(self.pool_size) + [1],
                                              [1] + list(self.strides) + [1],
                                              padding=self.padding)
        if self.channels_first:
            out = array_ops.transpose(out, (0, 4, 1, 2, 3))
        return out


class MaxPooling3D(_Pooling3D):
    """Max pooling over 3-D windows."""

    _base_name = "max_pooling3d"
    _pool = "max_pool3d"


class AveragePooling3D(_Pooling3D):
    """Average pooling over 3-D windows."""

    _base_name = "average_pooling3d"
    _pool = "avg_pool3d"


# -- the functional forms ----------------------------------------------------------------------
def _functional(cls, doc):
    def fn(inputs, filters, kernel_size, *args, name=None, reuse=None, **kwargs):
        layer = cls(filters, kernel_size, *args, name=name, _scope=name, _reuse=reuse,
                    **kwargs)
        return layer.apply(inputs)
    fn.__name__ = cls._base_name
    fn.__doc__ = doc
    return fn


conv1d = _functional(Conv1D, "1-D convolution layer; variables `<name>/kernel`, `bias`.")
conv3d = _functional(Conv3D, "3-D convolution layer; variables `<name>/kernel`, `bias`.")
conv2d_transpose = _functional(Conv2DTranspose, "Transposed 2-D convolution layer; kernel "
                               "[kh, kw, filters, in_channels].")
conv3d_transpose = _functional(Conv3DTranspose, "Transposed 3-D convolution layer.")
separable_conv1d = _functional(SeparableConv1D, "Depthwise separable 1-D convolution layer; "
                               "variables `depthwise_kernel`, `pointwise_kernel`, `bias`.")
separable_conv2d = _functional(SeparableConv2D, "Depthwise separable 2-D convolution layer; "
                               "variables `depthwise_kernel`, `pointwise_kernel`, `bias`.")


def _pool_functional(cls):
    def fn(inputs, pool_size, strides, padding="valid", data_format="channels_last",
           name=None):
        return cls(pool_size, strides, padding, data_format, name=name).apply(inputs)
    fn.__name__ = cls._base_name
    fn.__doc__ = f"{cls.__doc__}"
    return fn


max_pooling1d = _pool_functional(MaxPooling1D)
average_pooling1d = _pool_functional(AveragePooling1D)
max_pooling3d = _pool_functional(MaxPooling3D)
average_pooling3d = _pool_functional(AveragePooling3D)
