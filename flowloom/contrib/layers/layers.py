"""tf.contrib.layers' layer functions (the ones slim re-exports), with TF 1.15's variable names
(`<scope>/weights`, `<scope>/biases`), default scopes (`fully_connected`, `Conv`, `MaxPool2D`,
...) and arg_scope support. Built on flowloom's `tf.layers` classes and `tf.nn` ops."""

import functools

from flowloom.contrib.framework import variables as contrib_variables
from flowloom.contrib.framework.arg_scope import add_arg_scope
from flowloom.contrib.layers import initializers, utils
from flowloom.framework import dtypes
from flowloom.framework.graph import add_to_collection, get_collection, name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.layers import convolutional as conv_layers
from flowloom.layers import core as core_layers
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops
from flowloom.ops.nn import activation_ops, nn_ops
from flowloom.ops.state import init_ops
from flowloom.variable_scope import variable_scope

DATA_FORMAT_NCHW = "NCHW"
DATA_FORMAT_NHWC = "NHWC"


def _model_variable_getter(getter, name, shape=None, dtype=None, initializer=None,
                           regularizer=None, trainable=True, collections=None,
                           caching_device=None, partitioner=None, rename=None,
                           use_resource=None, **_):
    """A getter making the layers' weights model variables, renamed (kernel -> weights)."""
    short_name = name.split("/")[-1]
    if rename and short_name in rename:
        parts = name.split("/")
        parts[-1] = rename[short_name]
        name = "/".join(parts)
    return contrib_variables.model_variable(
        name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
        collections=collections, trainable=trainable, caching_device=caching_device,
        partitioner=partitioner, custom_getter=getter, use_resource=use_resource)


def _build_variable_getter(rename=None):
    def layer_variable_getter(getter, *args, **kwargs):
        kwargs["rename"] = rename
        return _model_variable_getter(getter, *args, **kwargs)
    return layer_variable_getter


_WEIGHTS_GETTER = {"bias": "biases", "kernel": "weights"}


def _add_variable_to_collections(variable, collections_set, collections_name):
    for collection in utils.get_variable_collections(collections_set, collections_name) or []:
        if variable not in get_collection(collection):
            add_to_collection(collection, variable)


def _finish(layer, outputs, sc, normalizer_fn, normalizer_params, activation_fn,
            variables_collections, outputs_collections):
    _add_variable_to_collections(layer.kernel, variables_collections, "weights")
    if layer.bias is not None:
        _add_variable_to_collections(layer.bias, variables_collections, "biases")
    if normalizer_fn is not None:
        outputs = normalizer_fn(outputs, **(normalizer_params or {}))
    if activation_fn is not None:
        outputs = activation_fn(outputs)
    return utils.collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def fully_connected(inputs, num_outputs, activation_fn=nn_ops.relu, normalizer_fn=None,
                    normalizer_params=None,
                    weights_initializer=initializers.xavier_initializer(),
                    weights_regularizer=None,
                    biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None,
                    reuse=None, variables_collections=None, outputs_collections=None,
                    trainable=True, scope=None):
    """Adds a fully connected layer: `activation_fn(normalizer_fn(inputs @ weights) or
    inputs @ weights + biases)`.

    Args:
      inputs: a tensor of rank >= 2 with a known last dimension.
      num_outputs: int, the number of output units.
      activation_fn: default tf.nn.relu; None for a linear layer.
      normalizer_fn: applied instead of the biases (e.g. `batch_norm`), with
        `normalizer_params`.
      weights_initializer, weights_regularizer, biases_initializer, biases_regularizer: for the
        variables `<scope>/weights` and `<scope>/biases` (no biases if the initializer is None).
      reuse, scope: variable sharing and the scope (default `fully_connected`).
      variables_collections: extra collections for the variables (a list, or a dict keyed
        'weights'/'biases').
      outputs_collections: collections to add the output to (aliased by the scope name).
      trainable: whether the variables are trainable.
    Returns:
      The output tensor.
    Raises:
      ValueError: `num_outputs` is not an int, or the last input dimension is unknown.
    """
    if not isinstance(num_outputs, int) or isinstance(num_outputs, bool):
        raise ValueError("num_outputs type should be one of %s, got %s." % ([int],
                                                                            type(num_outputs)))
    with variable_scope(scope, "fully_connected", [inputs], reuse=reuse,
                        custom_getter=_build_variable_getter(_WEIGHTS_GETTER)) as sc:
        inputs = convert_to_tensor(inputs)
        layer = core_layers.Dense(
            units=num_outputs, activation=None,
            use_bias=not normalizer_fn and biases_initializer is not None,
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
            trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
            _reuse=reuse)
        outputs = layer.apply(inputs)
        return _finish(layer, outputs, sc, normalizer_fn, normalizer_params, activation_fn,
                       variables_collections, outputs_collections)


@add_arg_scope
def convolution(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None,
                rate=1, activation_fn=nn_ops.relu, normalizer_fn=None, normalizer_params=None,
                weights_initializer=initializers.xavier_initializer(), weights_regularizer=None,
                biases_initializer=init_ops.zeros_initializer(), biases_regularizer=None,
                reuse=None, variables_collections=None, outputs_collections=None,
                trainable=True, scope=None, conv_dims=None):
    """Adds a convolution (2-D inputs of rank 4; default scope `Conv`) with variables
    `<scope>/weights` [kh, kw, in, out] and `<scope>/biases`, then the optional normalizer and
    activation. Arguments as `fully_connected`, plus kernel_size, stride, padding ('SAME' or
    'VALID'), data_format ('NHWC' or 'NCHW') and rate (dilation).

    Raises:
      ValueError: a bad data_format, or an input rank other than 4 (1-D and 3-D convolutions
        raise NotImplementedError).
    """
    if data_format not in [None, "NWC", "NCW", "NHWC", "NCHW", "NDHWC", "NCDHW"]:
        raise ValueError("Invalid data_format: %r" % (data_format,))
    with variable_scope(scope, "Conv", [inputs], reuse=reuse,
                        custom_getter=_build_variable_getter(_WEIGHTS_GETTER)) as sc:
        inputs = convert_to_tensor(inputs)
        input_rank = inputs.get_shape().ndims
        if conv_dims is not None and conv_dims + 2 != input_rank:
            raise ValueError("Convolution expects input with rank %d, got %d"
                             % (conv_dims + 2, input_rank))
        if input_rank in (3, 5):
            raise NotImplementedError("tf.contrib.layers.convolution of rank-%d inputs "
                                      "(%d-D convolution)" % (input_rank, input_rank - 2))
        if input_rank != 4:
            raise ValueError("Convolution not supported for input with rank", input_rank)
        df = "channels_first" if data_format and data_format.startswith("NC") else \
            "channels_last"
        layer = conv_layers.Conv2D(
            filters=num_outputs, kernel_size=kernel_size, strides=stride, padding=padding,
            data_format=df, dilation_rate=rate, activation=None,
            use_bias=not normalizer_fn and biases_initializer is not None,
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
            trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
            _reuse=reuse)
        outputs = layer.apply(inputs)
        return _finish(layer, outputs, sc, normalizer_fn, normalizer_params, activation_fn,
                       variables_collections, outputs_collections)


@add_arg_scope
def convolution2d(inputs, num_outputs, kernel_size, stride=1, padding="SAME",
                  data_format=None, rate=1, activation_fn=nn_ops.relu, normalizer_fn=None,
                  normalizer_params=None,
                  weights_initializer=initializers.xavier_initializer(),
                  weights_regularizer=None, biases_initializer=init_ops.zeros_initializer(),
                  biases_regularizer=None, reuse=None, variables_collections=None,
                  outputs_collections=None, trainable=True, scope=None):
    """A 2-D `convolution` (tf.contrib.layers.conv2d)."""
    return convolution(inputs, num_outputs, kernel_size, stride, padding, data_format, rate,
                       activation_fn, normalizer_fn, normalizer_params, weights_initializer,
                       weights_regularizer, biases_initializer, biases_regularizer, reuse,
                       variables_collections, outputs_collections, trainable, scope,
                       conv_dims=2)


class _Conv2DTranspose(conv_layers.Conv2D):
    """The transposed 2-D convolution layer: kernel [kh, kw, filters, in_channels]."""

    _base_name = "conv2d_transpose"

    def build(self, input_shape):
        from flowloom.framework import tensor_shape

        input_shape = tensor_shape.as_shape(input_shape)
        channels = input_shape[1 if self.data_format == "NCHW" else -1].value
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found "
                             "`None`.")
        self.kernel = self.add_weight("kernel", list(self.kernel_size) + [self.filters, channels],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer)
        self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer) if self.use_bias else None
        self.built = True

    def call(self, inputs):
        nchw = self.data_format == "NCHW"
        h_axis, w_axis = (2, 3) if nchw else (1, 2)
        shape = inputs.shape.as_list()
        dynamic = array_ops.shape(inputs)

        def out_size(axis, k, s):
            size = shape[axis]
            size = dynamic[axis] if size is None else size
            if self.padding == "VALID":
                return size * s + max(k - s, 0)
            return size * s

        out_h = out_size(h_axis, self.kernel_size[0], self.strides[0])
        out_w = out_size(w_axis, self.kernel_size[1], self.strides[1])
        batch = shape[0] if shape[0] is not None else dynamic[0]
        dims = [batch, self.filters, out_h, out_w] if nchw else \
            [batch, out_h, out_w, self.filters]
        strides = [1, 1] + list(self.strides) if nchw else [1] + list(self.strides) + [1]
        if all(isinstance(d, int) for d in dims):
            output_shape = dims
        else:
            output_shape = array_ops.stack(dims)
        out = nn_ops.conv2d_transpose(inputs, self.kernel, output_shape, strides,
                                      padding=self.padding, data_format=self.data_format)
        if self.use_bias:
            out = nn_ops.bias_add(out, self.bias, data_format=self.data_format)
        return out


@add_arg_scope
def convolution2d_transpose(inputs, num_outputs, kernel_size, stride=1, padding="SAME",
                            data_format=DATA_FORMAT_NHWC, activation_fn=nn_ops.relu,
                            normalizer_fn=None, normalizer_params=None,
                            weights_initializer=initializers.xavier_initializer(),
                            weights_regularizer=None,
                            biases_initializer=init_ops.zeros_initializer(),
                            biases_regularizer=None, reuse=None, variables_collections=None,
                            outputs_collections=None, trainable=True, scope=None):
    """Adds a transposed convolution (default scope `Conv2d_transpose`): the output is
    `input size * stride` ('SAME') or `input size * stride + max(kernel - stride, 0)`
    ('VALID'), with variables `<scope>/weights` [kh, kw, num_outputs, in] and `biases`."""
    with variable_scope(scope, "Conv2d_transpose", [inputs], reuse=reuse,
                        custom_getter=_build_variable_getter(_WEIGHTS_GETTER)) as sc:
        if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
            raise ValueError("data_format has to be either NCHW or NHWC.")
        inputs = convert_to_tensor(inputs)
        df = "channels_first" if data_format.startswith("NC") else "channels_last"
        layer = _Conv2DTranspose(
            filters=num_outputs, kernel_size=kernel_size, strides=stride, padding=padding,
            data_format=df, activation=None,
            use_bias=not normalizer_fn and biases_initializer is not None,
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
            trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
            _reuse=reuse)
        outputs = layer.apply(inputs)
        return _finish(layer, outputs, sc, normalizer_fn, normalizer_params, activation_fn,
                       variables_collections, outputs_collections)


def _pool(kind, default_scope, inputs, kernel_size, stride, padding, data_format,
          outputs_collections, scope):
    if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with name_scope(scope, default_scope, [inputs]) as sc:
        inputs = convert_to_tensor(inputs)
        kh, kw = utils.two_element_tuple(kernel_size)
        sh, sw = utils.two_element_tuple(stride)
        if data_format == DATA_FORMAT_NHWC:
            ksize, strides = [1, kh, kw, 1], [1, sh, sw, 1]
        else:
            ksize, strides = [1, 1, kh, kw], [1, 1, sh, sw]
        pool = nn_ops.max_pool if kind == "max" else nn_ops.avg_pool
        outputs = pool(inputs, ksize=ksize, strides=strides, padding=padding.upper(),
                       data_format=data_format,
                       name="MaxPool" if kind == "max" else "AvgPool")
        return utils.collect_named_outputs(outputs_collections, sc, outputs)


@add_arg_scope
def max_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format=DATA_FORMAT_NHWC,
               outputs_collections=None, scope=None):
    """2-D max pooling (default scope `MaxPool2D`); kernel_size and stride: an int or a pair.

    Raises:
      ValueError: data_format is neither NHWC nor NCHW.
    """
    return _pool("max", "MaxPool2D", inputs, kernel_size, stride, padding, data_format,
                 outputs_collections, scope)


@add_arg_scope
def avg_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format=DATA_FORMAT_NHWC,
               outputs_collections=None, scope=None):
    """2-D average pooling (default scope `AvgPool2D`); kernel_size and stride: an int or a
    pair."""
    return _pool("avg", "AvgPool2D", inputs, kernel_size, stride, padding, data_format,
                 outputs_collections, scope)


@add_arg_scope
def flatten(inputs, outputs_collections=None, scope=None):
    """Flattens all but the first dimension: [batch, ...] -> [batch, k] (scope `Flatten`).

    Raises:
      ValueError: the rank of `inputs` is unknown.
    """
    with name_scope(scope, "Flatten", [inputs]) as sc:
        inputs = convert_to_tensor(inputs)
        layer = core_layers.Flatten()
        if inputs.shape.ndims is None:
            layer._set_scope()
            raise ValueError("Input 0 of layer %s is incompatible with the layer: its rank is "
                             "undefined, but the layer requires a defined rank."
                             % layer._scope.name)
        outputs = layer.apply(inputs)
        return utils.collect_named_outputs(outputs_collections, sc, outputs)


@add_arg_scope
def dropout(inputs, keep_prob=0.5, noise_shape=None, is_training=True,
            outputs_collections=None, scope=None, seed=None):
    """Dropout with keep probability `keep_prob` when `is_training` (a bool or a boolean
    tensor); the identity otherwise. Default scope `Dropout`."""
    with variable_scope(scope, "Dropout", [inputs], custom_getter=_model_variable_getter) as sc:
        inputs = convert_to_tensor(inputs)
        layer = core_layers.Dropout(rate=1 - keep_prob, noise_shape=noise_shape, seed=seed,
                                    name=sc.name, _scope=sc)
        outputs = layer.apply(inputs, training=is_training)
        return utils.collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def bias_add(inputs, activation_fn=None, initializer=init_ops.zeros_initializer(),
             regularizer=None, reuse=None, variables_collections=None,
             outputs_collections=None, trainable=True, data_format=DATA_FORMAT_NHWC,
             scope=None):
    """Adds a bias variable `<scope>/biases` (scope `BiasAdd`) and an optional activation.

    Raises:
      ValueError: unknown rank or channel dimension, or NCHW on a tensor not of rank 4.
    """
    if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with variable_scope(scope, "BiasAdd", [inputs], reuse=reuse) as sc:
        inputs = convert_to_tensor(inputs)
        rank = inputs.get_shape().ndims
        if rank is None:
            raise ValueError("Dims of shape must be known but is None")
        if rank != 4 and data_format == DATA_FORMAT_NCHW:
            raise ValueError("Data format NCHW only supports 4D Tensor")
        axis = 1 if data_format == DATA_FORMAT_NCHW else -1
        num_features = inputs.get_shape().dims[axis].value
        if num_features is None:
            raise ValueError("`C` dimension must be known but is None")
        biases = contrib_variables.model_variable(
            "biases", shape=[num_features], dtype=inputs.dtype.base_dtype,
            initializer=initializer, regularizer=regularizer,
            collections=utils.get_variable_collections(variables_collections, "biases"),
            trainable=trainable)
        outputs = nn_ops.bias_add(inputs, biases, data_format=data_format)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return utils.collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def one_hot_encoding(labels, num_classes, on_value=1.0, off_value=0.0,
                     outputs_collections=None, scope=None):
    """One-hot float encoding of integer `labels` (scope `OneHotEncoding`)."""
    with name_scope(scope, "OneHotEncoding", [labels, num_classes]) as sc:
        labels = convert_to_tensor(labels)
        if labels.dtype == dtypes.int32:
            labels = math_ops.to_int64(labels)
        outputs = array_ops.one_hot(labels, num_classes, on_value=on_value,
                                    off_value=off_value)
        return utils.collect_named_outputs(outputs_collections, sc, outputs)


def _layer_name(layer, default):
    if hasattr(layer, "__name__"):
        return layer.__name__
    if hasattr(layer, "func") and hasattr(layer.func, "__name__"):
        return layer.func.__name__
    return default


def repeat(inputs, repetitions, layer, *args, **kwargs):
    """Applies `layer(outputs, *args, **kwargs)` `repetitions` times, in scopes
    `<scope>/<scope>_1`, `<scope>/<scope>_2`, ... (scope defaults to the layer's name)."""
    scope = kwargs.pop("scope", None)
    with variable_scope(scope, "Repeat", [inputs]):
        inputs = convert_to_tensor(inputs)
        if scope is None:
            scope = _layer_name(layer, "repeat")
        outputs = inputs
        for i in range(repetitions):
            kwargs["scope"] = scope + "_" + str(i + 1)
            outputs = layer(outputs, *args, **kwargs)
        return outputs


def stack(inputs, layer, stack_args, **kwargs):
    """Applies `layer` once per element of `stack_args` (its positional arguments), in scopes
    `<scope>/<scope>_1`, ...

    Raises:
      ValueError: `stack_args` is not a list or tuple.
    """
    scope = kwargs.pop("scope", None)
    if not isinstance(stack_args, (list, tuple)):
        raise ValueError("stack_args need to be a list or tuple")
    with variable_scope(scope, "Stack", [inputs]):
        inputs = convert_to_tensor(inputs)
        if scope is None:
            scope = _layer_name(layer, "stack")
        outputs = inputs
        for i, layer_args in enumerate(stack_args):
            kwargs["scope"] = scope + "_" + str(i + 1)
            if not isinstance(layer_args, (list, tuple)):
                layer_args = [layer_args]
            outputs = layer(outputs, *layer_args, **kwargs)
        return outputs


@add_arg_scope
def softmax(logits, scope=None):
    """Softmax over the last dimension of a tensor of any rank >= 2."""
    with variable_scope(scope, "softmax", [logits]):
        num_logits = utils.last_dimension(logits.get_shape(), min_rank=2)
        logits_2d = array_ops.reshape(logits, [-1, num_logits])
        predictions = activation_ops.softmax(logits_2d)
        predictions = array_ops.reshape(predictions, array_ops.shape(logits))
        predictions.set_shape(logits.get_shape())
        return predictions


@add_arg_scope
def unit_norm(inputs, dim, epsilon=1e-7, scope=None):
    """Normalizes `inputs` to unit L2 norm along dimension `dim`."""
    with variable_scope(scope, "UnitNorm", [inputs]):
        if not inputs.get_shape():
            raise ValueError("The input rank must be known.")
        rank = len(inputs.get_shape().as_list())
        if dim < 0 or dim >= rank:
            raise ValueError("dim must be positive but smaller than the input rank.")
        lengths = math_ops.sqrt(epsilon + math_ops.reduce_sum(math_ops.square(inputs), dim,
                                                              True))
        multiples = []
        if dim > 0:
            multiples.append(array_ops.ones([dim], dtypes.int32))
        multiples.append(array_ops.strided_slice(array_ops.shape(inputs), [dim], [dim + 1]))
        if dim < rank - 1:
            multiples.append(array_ops.ones([rank - 1 - dim], dtypes.int32))
        multiples = array_ops.concat(multiples, 0)
        return math_ops.div(inputs, array_ops.tile(lengths, multiples))


conv2d = convolution2d
conv2d_transpose = convolution2d_transpose
linear = functools.partial(fully_connected, activation_fn=None)
relu = functools.partial(fully_connected, activation_fn=nn_ops.relu)
relu6 = functools.partial(fully_connected, activation_fn=activation_ops.relu6)
