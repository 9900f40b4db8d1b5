"""tf.contrib.layers.batch_norm and layer_norm, as TF 1.15 builds them: the fused path for
rank-2 inputs (and zero-debiasing or other update collections), the `tf.layers` batch
normalization layer for the default case, the unfused moments for batch weights."""

from flowloom.contrib.framework import variables as contrib_variables
from flowloom.contrib.framework.arg_scope import add_arg_scope
from flowloom.contrib.layers import utils
from flowloom.contrib.layers.layers import (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC,
                                            _add_variable_to_collections,
                                            _build_variable_getter)
from flowloom.framework import dtypes
from flowloom.framework.graph import GraphKeys, add_to_collections, control_dependencies
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_util import constant_value
from flowloom.layers import normalization as norm_layers
from flowloom.layers.base import smart_cond
from flowloom.ops.array import array_ops
from flowloom.ops.nn import nn_impl
from flowloom.ops.state import init_ops
from flowloom.train import moving_averages
from flowloom.variable_scope import get_variable_scope, variable_scope


def _static(is_training):
    if isinstance(is_training, bool):
        return is_training
    if isinstance(is_training, Tensor):
        v = constant_value(is_training)
        return None if v is None else bool(v)
    return None


def _params(params_shape, dtype, center, scale, param_initializers, param_regularizers,
            variables_collections, trainable):
    """beta/gamma (constants when not learned) and the moving statistics."""
    initializers = param_initializers or {}
    regularizers = param_regularizers or {}
    collections = lambda name: utils.get_variable_collections(variables_collections, name)  # noqa: E731
    if center:
        beta = contrib_variables.model_variable(
            "beta", shape=params_shape, dtype=dtype,
            initializer=initializers.get("beta", init_ops.zeros_initializer()),
            regularizer=regularizers.get("beta"), collections=collections("beta"),
            trainable=trainable)
    else:
        beta = None
    if scale:
        gamma = contrib_variables.model_variable(
            "gamma", shape=params_shape, dtype=dtype,
            initializer=initializers.get("gamma", init_ops.ones_initializer()),
            regularizer=regularizers.get("gamma"), collections=collections("gamma"),
            trainable=trainable)
    else:
        gamma = None
    with variable_scope(get_variable_scope()):
        moving_mean = contrib_variables.model_variable(
            "moving_mean", shape=params_shape, dtype=dtype,
            initializer=initializers.get("moving_mean", init_ops.zeros_initializer()),
            trainable=False, collections=collections("moving_mean"))
        moving_variance = contrib_variables.model_variable(
            "moving_variance", shape=params_shape, dtype=dtype,
            initializer=initializers.get("moving_variance", init_ops.ones_initializer()),
            trainable=False, collections=collections("moving_variance"))
    return beta, gamma, moving_mean, moving_variance


def _updates(is_training, moving_mean, moving_variance, mean, variance, decay,
             zero_debias_moving_mean, updates_collections):
    """The moving-average updates: returned (forced) when `updates_collections` is None,
    otherwise put in those collections. Returns None or (update_mean, update_variance)."""

    def make():
        return (moving_averages.assign_moving_average(moving_mean, mean, decay,
                                                      zero_debias=zero_debias_moving_mean),
                moving_averages.assign_moving_average(moving_variance, variance, decay,
                                                      zero_debias=False))
    if updates_collections is None:
        return make
    update_mean, update_variance = smart_cond(is_training, make,
                                              lambda: (moving_mean, moving_variance))
    add_to_collections(updates_collections, update_mean)
    add_to_collections(updates_collections, update_variance)
    return None


def _fused_batch_norm(inputs, decay, center, scale, epsilon, activation_fn,
                      param_initializers, param_regularizers, updates_collections,
                      is_training, reuse, variables_collections, outputs_collections,
                      trainable, data_format, zero_debias_moving_mean, scope):
    if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with variable_scope(scope, "BatchNorm", [inputs], reuse=reuse) as sc:
        inputs = convert_to_tensor(inputs)
        original_inputs = inputs
        original_rank = inputs.get_shape().ndims
        if original_rank is None:
            raise ValueError("Inputs %s has undefined rank" % inputs.name)
        if original_rank not in [2, 4]:
            raise ValueError("Inputs %s has unsupported rank. Expected 2 or 4 but got %d"
                             % (inputs.name, original_rank))
        if original_rank == 2:
            channels = inputs.get_shape().dims[-1].value
            if channels is None:
                raise ValueError("`C` dimension must be known but is None")
            new_shape = [-1, channels, 1, 1] if data_format == DATA_FORMAT_NCHW else \
                [-1, 1, 1, channels]
            inputs = array_ops.reshape(inputs, new_shape)
        inputs_shape = inputs.get_shape()
        params_shape = inputs_shape[-1:] if data_format == DATA_FORMAT_NHWC else \
            inputs_shape[1:2]
        if not params_shape.is_fully_defined():
            raise ValueError("Inputs %s has undefined `C` dimension %s." % (inputs.name,
                                                                            params_shape))
        beta, gamma, moving_mean, moving_variance = _params(
            params_shape, dtypes.float32, center, scale, param_initializers,
            param_regularizers, variables_collections, trainable)
        if beta is None:
            beta = array_ops.constant(0.0, dtype=dtypes.float32, shape=params_shape.as_list())
        if gamma is None:
            gamma = array_ops.constant(1.0, dtype=dtypes.float32, shape=params_shape.as_list())
        outputs, mean, variance = smart_cond(
            is_training,
            lambda: nn_impl.fused_batch_norm(inputs, gamma, beta, epsilon=epsilon,
                                             data_format=data_format),
            lambda: nn_impl.fused_batch_norm(inputs, gamma, beta, mean=moving_mean,
                                             variance=moving_variance, epsilon=epsilon,
                                             is_training=False, data_format=data_format))
        if _static(is_training) is not False:
            force = _updates(is_training, moving_mean, moving_variance, mean, variance, decay,
                             zero_debias_moving_mean, updates_collections)
            if force is not None:
                def forced():
                    with control_dependencies(list(force())):
                        return array_ops.identity(outputs)
                outputs = smart_cond(is_training, forced, lambda: outputs)
        outputs.set_shape(inputs_shape)
        if original_rank == 2:
            outputs = array_ops.reshape(outputs, array_ops.shape(original_inputs))
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return utils.collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def batch_norm(inputs, decay=0.999, center=True, scale=False, epsilon=0.001,
               activation_fn=None, param_initializers=None, param_regularizers=None,
               updates_collections=GraphKeys.UPDATE_OPS, is_training=True, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               batch_weights=None, fused=None, data_format=DATA_FORMAT_NHWC,
               zero_debias_moving_mean=False, scope=None, renorm=False, renorm_clipping=None,
               renorm_decay=0.99, adjustment=None):
    """Batch normalization (Ioffe & Szegedy), default scope `BatchNorm`.

    In training (`is_training` true or a boolean tensor) it normalizes with the batch's
    moments and makes the updates `moving = moving - (moving - batch) * (1 - decay)`; they go
    to `updates_collections` (default UPDATE_OPS: run them with the train op), or, when that
    is None, run with every output. In inference it uses the moving statistics.

    Args:
      inputs: a tensor of rank >= 2 (batch first); the channel dimension is last (NHWC) or
        second (NCHW).
      decay, epsilon: the moving-average decay and the variance epsilon.
      center, scale: learn `beta` / `gamma` (gamma is off by default, as in TF).
      param_initializers, param_regularizers: dicts keyed beta/gamma/moving_mean/...
      fused: None or True uses the fused kernel where TF does.
    Returns:
      The normalized tensor.
    Raises:
      ValueError: undefined rank or channels, or a bad data_format.
      NotImplementedError: renorm and adjustment.
    """
    if renorm or adjustment is not None:
        raise NotImplementedError("tf.contrib.layers.batch_norm with renorm/adjustment")
    if fused is None:
        fused = True
    inputs = convert_to_tensor(inputs)
    rank = inputs.get_shape().ndims
    possible_to_fuse = batch_weights is None and rank in [2, 4]
    default_updates = updates_collections == GraphKeys.UPDATE_OPS
    if batch_weights is not None:
        raise NotImplementedError("tf.contrib.layers.batch_norm with batch_weights "
                                  "(tf.nn.weighted_moments)")
    if fused and possible_to_fuse and (zero_debias_moving_mean or rank == 2 or
                                       not default_updates):
        return _fused_batch_norm(inputs, decay, center, scale, epsilon, activation_fn,
                                 param_initializers, param_regularizers, updates_collections,
                                 is_training, reuse, variables_collections,
                                 outputs_collections, trainable, data_format,
                                 zero_debias_moving_mean, scope)
    if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with variable_scope(scope, "BatchNorm", [inputs], reuse=reuse,
                        custom_getter=_build_variable_getter()) as sc:
        if batch_weights is None and default_updates and not zero_debias_moving_mean:
            initializers = param_initializers or {}
            regularizers = param_regularizers or {}
            layer = norm_layers.BatchNormalization(
                axis=1 if data_format == DATA_FORMAT_NCHW else -1, momentum=decay,
                epsilon=epsilon, center=center, scale=scale,
                beta_initializer=initializers.get("beta", init_ops.zeros_initializer()),
                gamma_initializer=initializers.get("gamma", init_ops.ones_initializer()),
                moving_mean_initializer=initializers.get("moving_mean",
                                                         init_ops.zeros_initializer()),
                moving_variance_initializer=initializers.get("moving_variance",
                                                             init_ops.ones_initializer()),
                beta_regularizer=regularizers.get("beta"),
                gamma_regularizer=regularizers.get("gamma"), trainable=trainable,
                name=sc.name, _scope=sc, _reuse=reuse, fused=fused and possible_to_fuse)
            outputs = layer.apply(inputs, training=is_training)
            for name in ("moving_mean", "moving_variance", "beta", "gamma"):
                var = getattr(layer, name)
                if var is not None:
                    _add_variable_to_collections(var, variables_collections, name)
            if activation_fn is not None:
                outputs = activation_fn(outputs)
            return utils.collect_named_outputs(outputs_collections, sc.name, outputs)
        return _moments_batch_norm(inputs, decay, center, scale, epsilon, activation_fn,
                                   param_initializers, updates_collections, is_training,
                                   variables_collections, outputs_collections, trainable,
                                   data_format, zero_debias_moving_mean, sc)


def _moments_batch_norm(inputs, decay, center, scale, epsilon, activation_fn,
                        param_initializers, updates_collections, is_training,
                        variables_collections, outputs_collections, trainable, data_format, zero_debias_moving_mean, sc):
    inputs_shape = inputs.get_shape()
    rank = inputs_shape.ndims
    if rank is None:
        raise ValueError("Inputs %s has undefined rank." % inputs.name)
    nchw = data_format == DATA_FORMAT_NCHW
    if nchw:
        moments_axes = [0] + list(range(2, rank))
        params_shape = inputs_shape[1:2]
        broadcast = [1, inputs_shape.dims[1].value] + [1] * (rank - 2)
    else:
        moments_axes = list(range(rank - 1))
        params_shape = inputs_shape[-1:]
    if not params_shape.is_fully_defined():
        raise ValueError("Inputs %s has undefined channels dimension %s." % (inputs.name,
                                                                             params_shape))
    beta, gamma, moving_mean, moving_variance = _params(
        params_shape, inputs.dtype.base_dtype, center, scale, param_initializers, None,
        variables_collections, trainable)
    if _static(is_training) is not False:
        mean, variance = nn_impl.moments(inputs, moments_axes, keep_dims=nchw)
        if nchw:
            mean = array_ops.reshape(mean, [-1])
            variance = array_ops.reshape(variance, [-1])
        force = _updates(is_training, moving_mean, moving_variance, mean, variance, decay,
                         zero_debias_moving_mean, updates_collections)
        if force is not None:
            def forced():
                with control_dependencies(list(force())):
                    return array_ops.identity(mean), array_ops.identity(variance)
            mean, variance = smart_cond(is_training, forced,
                                        lambda: (moving_mean, moving_variance))
        else:
            batch = (mean, variance)
            mean, variance = smart_cond(is_training, lambda: batch,
                                        lambda: (moving_mean, moving_variance))
    else:
        mean, variance = moving_mean, moving_variance
    if nchw:
        mean = array_ops.reshape(mean, broadcast)
        variance = array_ops.reshape(variance, broadcast)
        beta = None if beta is None else array_ops.reshape(beta, broadcast)
        gamma = None if gamma is None else array_ops.reshape(gamma, broadcast)
    outputs = nn_impl.batch_normalization(inputs, mean, variance, beta, gamma, epsilon)
    outputs.set_shape(inputs_shape)
    if activation_fn is not None:
        outputs = activation_fn(outputs)
    return utils.collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def layer_norm(inputs, center=True, scale=True, activation_fn=None, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               begin_norm_axis=1, begin_params_axis=-1, scope=None):
    """Layer normalization (Ba et al.) over dimensions `begin_norm_axis:`, with `beta` and
    `gamma` shaped like dimensions `begin_params_axis:` (default scope `LayerNorm`).

    Raises:
      ValueError: undefined rank, axes out of range, or parameter dimensions unknown.
    """
    with variable_scope(scope, "LayerNorm", [inputs], reuse=reuse) as sc:
        inputs = convert_to_tensor(inputs)
        inputs_shape = inputs.shape
        rank = inputs_shape.ndims
        if rank is None:
            raise ValueError("Inputs %s has undefined rank." % inputs.name)
        dtype = inputs.dtype.base_dtype
        if begin_norm_axis < 0:
            begin_norm_axis = rank + begin_norm_axis
        if begin_params_axis >= rank or begin_norm_axis >= rank:
            raise ValueError("begin_params_axis (%d) and begin_norm_axis (%d) must be < "
                             "rank(inputs) (%d)" % (begin_params_axis, begin_norm_axis, rank))
        params_shape = inputs_shape[begin_params_axis:]
        if not params_shape.is_fully_defined():
            raise ValueError("Inputs %s: shape(inputs)[%s:] is not fully defined: %s"
                             % (inputs.name, begin_params_axis, inputs_shape))
        beta = gamma = None
        if center:
            beta = contrib_variables.model_variable(
                "beta", shape=params_shape, dtype=dtype,
                initializer=init_ops.zeros_initializer(),
                collections=utils.get_variable_collections(variables_collections, "beta"),
                trainable=trainable)
        if scale:
            gamma = contrib_variables.model_variable(
                "gamma", shape=params_shape, dtype=dtype,
                initializer=init_ops.ones_initializer(),
                collections=utils.get_variable_collections(variables_collections, "gamma"),
                trainable=trainable)
        norm_axes = list(range(begin_norm_axis, rank))
        mean, variance = nn_impl.moments(inputs, norm_axes, keep_dims=True)
        epsilon = 1e-12 if dtype != dtypes.float16 else 1e-3
        outputs = nn_impl.batch_normalization(inputs, mean, variance, offset=beta, scale=gamma,
                                              variance_epsilon=epsilon)
        outputs.set_shape(inputs_shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return utils.collect_named_outputs(outputs_collections, sc.name, outputs)
