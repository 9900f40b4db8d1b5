"""Batch normalization layer (TF 1.15's tf.layers.BatchNormalization), with moving-average
updates in GraphKeys.UPDATE_OPS.

As TF 1.15 builds it: one or several normalized axes, the fused kernel (FusedBatchNormV3) for
4-D inputs normalized over axis 1 or 3, batch renormalization (renorm), ghost batches
(virtual_batch_size) and a training-time `adjustment`; float16 inputs keep float32 parameters.
"""

from flowloom.framework import dtypes, tensor_shape
from flowloom.framework.graph import colocate_with, name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_util import constant_value
from flowloom.layers.base import Layer, smart_cond
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops
from flowloom.ops.state import init_ops, state_ops


def _constant_value(pred):
    """A Python bool for a known `training` (bool, int or constant tensor), else None."""
    if isinstance(pred, (bool, int)):
        return bool(pred)
    if isinstance(pred, Tensor):
        value = constant_value(pred)
        return None if value is None else bool(value)
    return None


class BatchNormalization(Layer):
    """Normalizes with batch statistics in training and moving averages in inference.

    Args:
      axis: the axis (or list of axes) normalized, typically the features axis.
      momentum: of the moving averages.
      epsilon: added to the variance.
      center, scale: whether to add `beta` / multiply by `gamma`.
      renorm: batch renormalization (extra moving statistics; `renorm_clipping` may bound
        r and d with keys rmax, rmin, dmax; `renorm_momentum` their moving averages').
      fused: None or True: the fused kernel when possible; False: never.
      virtual_batch_size: normalize ghost batches of this many examples separately.
      adjustment: a function of the input's dynamic shape returning (scale, bias) applied
        to the normalized values in training.
    """

    _base_name = "batch_normalization"

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=init_ops.zeros_initializer(),
                 gamma_initializer=init_ops.ones_initializer(),
                 moving_mean_initializer=init_ops.zeros_initializer(),
                 moving_variance_initializer=init_ops.ones_initializer(),
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None,
                 adjustment=None, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name, **kwargs)
        if isinstance(axis, list):
            self.axis = axis[:]
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(f"axis must be int or list, type given: {type(axis)}")
        self.momentum, self.epsilon = momentum, epsilon
        self.center, self.scale = center, scale
        self.beta_initializer, self.gamma_initializer = beta_initializer, gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.beta_constraint, self.gamma_constraint = beta_constraint, gamma_constraint
        self.renorm = renorm
        self.virtual_batch_size = virtual_batch_size
        self.adjustment = adjustment
        # TF 1.15 (Keras's V1 layer): None means "fused when possible".
        self.fused = True if fused is None else fused
        self._bessels_correction_test_only = True
        if renorm:
            renorm_clipping = renorm_clipping or {}
            unknown = set(renorm_clipping) - {"rmax", "rmin", "dmax"}
            if unknown:
                raise ValueError(f"renorm_clipping {renorm_clipping} contains keys not in "
                                 "['rmax', 'rmin', 'dmax']")
            self.renorm_clipping = renorm_clipping
            self.renorm_momentum = renorm_momentum

    def _fused_can_be_used(self):
        axis = [self.axis] if isinstance(self.axis, int) else self.axis
        return not (self.renorm or len(axis) > 1 or axis[0] not in (-3, -1, 1, 3) or
                    self.virtual_batch_size is not None or self.adjustment is not None)

    @property
    def _param_dtype(self):
        if self.dtype in ("float16", "bfloat16"):
            return dtypes.float32
        return dtypes.as_dtype(self.dtype or dtypes.float32)

    def build(self, input_shape):
        input_shape = tensor_shape.TensorShape(input_shape)
        if not input_shape.ndims:
            raise ValueError("Input has undefined rank:", input_shape)
        ndims = input_shape.ndims
        if isinstance(self.axis, int):
            self.axis = [self.axis]
        self.axis = [x + ndims if x < 0 else x for x in self.axis]
        for x in self.axis:
            if x < 0 or x >= ndims:
                raise ValueError(f"Invalid axis: {x}")
        if len(self.axis) != len(set(self.axis)):
            raise ValueError(f"Duplicate axis: {self.axis}")
        if self.virtual_batch_size is not None:
            if self.virtual_batch_size <= 0:
                raise ValueError("virtual_batch_size must be a positive integer that divides "
                                 "the true batch size of the input Tensor")
            if 0 in self.axis:
                raise ValueError("When using virtual_batch_size, the batch dimension must be "
                                 "0 and thus axis cannot include 0")
            if self.adjustment is not None:
                raise ValueError("When using virtual_batch_size, adjustment cannot be "
                                 "specified")
        if self.fused in (None, True):
            self.fused = ndims == 4 and self._fused_can_be_used()
        if self.fused:
            self._data_format = "NCHW" if self.axis == [1] else "NHWC"
        axis_to_dim = {x: input_shape.dims[x].value for x in self.axis}
        if any(d is None for d in axis_to_dim.values()):
            raise ValueError("Input has undefined `axis` dimension. Input shape: ",
                             input_shape)
        if len(axis_to_dim) == 1 and self.virtual_batch_size is None:
            param_shape = [list(axis_to_dim.values())[0]]
        else:
            param_shape = [axis_to_dim.get(i, 1) for i in range(ndims)]
            if self.virtual_batch_size is not None:
                param_shape.insert(1, 1)
                self.axis = [x + 1 for x in self.axis]  # the added ghost-batch dimension
        dtype = self._param_dtype
        self.gamma = self.add_weight(
            "gamma", param_shape, dtype=dtype, initializer=self.gamma_initializer,
            regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
            trainable=True) if self.scale else None
        self.beta = self.add_weight(
            "beta", param_shape, dtype=dtype, initializer=self.beta_initializer,
            regularizer=self.beta_regularizer, constraint=self.beta_constraint,
            trainable=True) if self.center else None
        if self.fused:
            self._gamma_const = None if self.scale else array_ops.constant(
                1.0, dtype=dtype, shape=param_shape)
            self._beta_const = None if self.center else array_ops.constant(
                0.0, dtype=dtype, shape=param_shape)
        scope = self._scope
        partitioner = scope.partitioner if scope is not None else None
        if partitioner is not None:
            scope.set_partitioner(None)  # moving statistics are never partitioned
        try:
            def statistic(name, initializer):
                return self.add_weight(name, param_shape, dtype=dtype,
                                       initializer=initializer, trainable=False)
            self.moving_mean = statistic("moving_mean", self.moving_mean_initializer)
            self.moving_variance = statistic("moving_variance",
                                             self.moving_variance_initializer)
            if self.renorm:
                def stddev_initializer(*args, **kwargs):
                    return math_ops.sqrt(self.moving_variance_initializer(*args, **kwargs))
                self.moving_stddev = statistic("moving_stddev", stddev_initializer)
                self.renorm_mean = statistic("renorm_mean", self.moving_mean_initializer)
                self.renorm_stddev = statistic("renorm_stddev", stddev_initializer)
        finally:
            if partitioner is not None:
                scope.set_partitioner(partitioner)
        self.built = True

    # -- Updates ------------------------------------------------------------------------------
    def _assign_moving_average(self, variable, value, momentum):
        with name_scope(None, "AssignMovingAvg", [variable, value, momentum]) as scope:
            with colocate_with(variable):
                decay = convert_to_tensor(1.0 - momentum, name="decay")
                if decay.dtype != variable.dtype.base_dtype:
                    decay = math_ops.cast(decay, variable.dtype.base_dtype)
                delta = (variable - math_ops.cast(value, variable.dtype.base_dtype)) * decay
                return state_ops.assign_sub(variable, delta, name=scope)

    def _assign_new_value(self, variable, value):
        with name_scope(None, "AssignNewValue", [variable, value]) as scope:
            with colocate_with(variable):
                return state_ops.assign(variable, value, name=scope)

    def _renormalized_stddev_update(self, variance, momentum):
        from flowloom.ops.nn.nn_ops import relu

        stddev = self._assign_moving_average(
            self.moving_stddev, math_ops.sqrt(variance + self.epsilon), momentum)
        return self._assign_new_value(self.moving_variance,
                                      relu(stddev * stddev - self.epsilon))

    # -- Fused kernel -------------------------------------------------------------------------
    def _fused_batch_norm(self, inputs, training):
        from flowloom.ops.nn.nn_impl import fused_batch_norm

        beta = self.beta if self.center else self._beta_const
        gamma = self.gamma if self.scale else self._gamma_const

        def train():
            return fused_batch_norm(inputs, gamma, beta, epsilon=self.epsilon,
                                    data_format=self._data_format)

        def infer():
            return fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean,
                                    variance=self.moving_variance, epsilon=self.epsilon,
                                    is_training=False, data_format=self._data_format)
        output, mean, variance = smart_cond(training, train, infer)
        if not self._bessels_correction_test_only:
            # The fused kernel's variance has Bessel's correction; the layer's does not.
            size = math_ops.cast(array_ops.size(inputs) / array_ops.size(variance),
                                 variance.dtype)
            variance *= (size - math_ops.cast(1.0, variance.dtype)) / size
        value = _constant_value(training)
        momentum = smart_cond(training, lambda: self.momentum, lambda: 1.0) if value is None \
            else convert_to_tensor(self.momentum)
        if value or value is None:
            self.add_update(lambda: self._assign_moving_average(self.moving_mean, mean,
                                                                momentum))
            self.add_update(
                (lambda: self._renormalized_stddev_update(variance, momentum)) if self.renorm
                else (lambda: self._assign_moving_average(self.moving_variance, variance,
                                                          momentum)))
        return output

    # -- Renorm -------------------------------------------------------------------------------
    def _renorm_correction_and_moments(self, mean, variance, training):
        stddev = math_ops.sqrt(variance + self.epsilon)
        renorm_mean = self.renorm_mean
        renorm_stddev = math_ops.maximum(self.renorm_stddev, math_ops.sqrt(self.epsilon))
        r = stddev / renorm_stddev
        d = (mean - renorm_mean) / renorm_stddev
        from flowloom.framework.graph import control_dependencies

        with control_dependencies([r, d]):
            mean = array_ops.identity(mean)
            stddev = array_ops.identity(stddev)
        rmin, rmax, dmax = (self.renorm_clipping.get(k) for k in ("rmin", "rmax", "dmax"))
        if rmin is not None:
            r = math_ops.maximum(r, rmin)
        if rmax is not None:
            r = math_ops.minimum(r, rmax)
        if dmax is not None:
            d = math_ops.minimum(math_ops.maximum(d, -dmax), dmax)
        r = smart_cond(training, lambda: r, lambda: array_ops.ones_like(r))
        d = smart_cond(training, lambda: d, lambda: array_ops.zeros_like(d))

        def update(var, value):
            value = array_ops.identity(value)
            return smart_cond(
                training,
                lambda: self._assign_moving_average(var, value, self.renorm_momentum),
                lambda: array_ops.identity(var))
        new_mean = update(self.renorm_mean, mean)
        new_stddev = update(self.renorm_stddev, stddev)
        with control_dependencies([new_mean, new_stddev]):
            return r, d, array_ops.identity(mean), array_ops.identity(variance)

    # -- Call ---------------------------------------------------------------------------------
    def call(self, inputs, training=False):
        from flowloom.ops.nn.nn_impl import batch_normalization, moments

        if training is None:
            training = False
        inputs = convert_to_tensor(inputs)
        if self.virtual_batch_size is not None:
            original_shape = [-1] + inputs.shape.as_list()[1:]
            inputs = array_ops.reshape(inputs, [self.virtual_batch_size, -1] +
                                       original_shape[1:])

            def undo(outputs):
                return array_ops.reshape(outputs, original_shape)
        else:
            def undo(outputs):
                return outputs
        if self.fused:
            return undo(self._fused_batch_norm(inputs, training))
        input_shape = inputs.shape
        ndims = input_shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        if self.virtual_batch_size is not None:
            del reduction_axes[1]  # not over the ghost batches
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = input_shape.dims[self.axis[0]].value

        def broadcast(v):
            if v is not None and v.shape.ndims != ndims and \
                    reduction_axes != list(range(ndims - 1)):
                return array_ops.reshape(v, broadcast_shape)
            return v

        def compose(scale, offset, then_scale, then_offset):
            if then_scale is not None:
                scale *= then_scale
                offset *= then_scale
            if then_offset is not None:
                offset += then_offset
            return scale, offset
        scale, offset = broadcast(self.gamma), broadcast(self.beta)
        if _constant_value(training) is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            if self.adjustment:
                adj_scale, adj_bias = self.adjustment(array_ops.shape(inputs))
                adj_scale = smart_cond(training, lambda: adj_scale,
                                       lambda: array_ops.ones_like(adj_scale))
                adj_bias = smart_cond(training, lambda: adj_bias,
                                      lambda: array_ops.zeros_like(adj_bias))
                scale, offset = compose(adj_scale, adj_bias, scale, offset)
            keep_dims = self.virtual_batch_size is not None or len(self.axis) > 1
            mean, variance = moments(math_ops.cast(inputs, self._param_dtype), reduction_axes,
                                     keep_dims=keep_dims)
            moving_mean, moving_variance = self.moving_mean, self.moving_variance
            mean = smart_cond(training, lambda: mean, lambda: convert_to_tensor(moving_mean))
            variance = smart_cond(training, lambda: variance,
                                  lambda: convert_to_tensor(moving_variance))
            if self.virtual_batch_size is not None:
                new_mean = math_ops.reduce_mean(mean, axis=1, keepdims=True)
                new_variance = math_ops.reduce_mean(variance, axis=1, keepdims=True)
            else:
                new_mean, new_variance = mean, variance
            if self.renorm:
                r, d, new_mean, new_variance = self._renorm_correction_and_moments(
                    new_mean, new_variance, training)
                r = broadcast(array_ops.stop_gradient(r, name="renorm_r"))
                d = broadcast(array_ops.stop_gradient(d, name="renorm_d"))
                scale, offset = compose(r, d, scale, offset)

            def mean_update():
                return smart_cond(
                    training,
                    lambda: self._assign_moving_average(self.moving_mean, new_mean,
                                                        self.momentum),
                    lambda: self.moving_mean)

            def variance_update():
                if self.renorm:
                    true_branch = lambda: self._renormalized_stddev_update(  # noqa: E731
                        new_variance, self.momentum)
                else:
                    true_branch = lambda: self._assign_moving_average(  # noqa: E731
                        self.moving_variance, new_variance, self.momentum)
                return smart_cond(training, true_branch, lambda: self.moving_variance)
            self.add_update(mean_update)
            self.add_update(variance_update)
        dtype = inputs.dtype.base_dtype
        mean, variance = math_ops.cast(mean, dtype), math_ops.cast(variance, dtype)
        offset = None if offset is None else math_ops.cast(offset, dtype)
        scale = None if scale is None else math_ops.cast(scale, dtype)
        outputs = batch_normalization(inputs, broadcast(mean), broadcast(variance), offset,
                                      scale, self.epsilon)
        outputs.set_shape(input_shape)
        return undo(outputs)

    def compute_output_shape(self, input_shape):
        return input_shape


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=init_ops.zeros_initializer(),
                        gamma_initializer=init_ops.ones_initializer(),
                        moving_mean_initializer=init_ops.zeros_initializer(),
                        moving_variance_initializer=init_ops.ones_initializer(),
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                        gamma_constraint=None, training=False, trainable=True, name=None,
                        reuse=None, renorm=False, renorm_clipping=None, renorm_momentum=0.99,
                        fused=None, virtual_batch_size=None, adjustment=None):
    """Batch normalization; in training, its moving-average updates go to UPDATE_OPS.

    Arguments as BatchNormalization; `training`: a Python bool or a boolean tensor; `name`
    is also the variable scope, `reuse` reuses its variables.
    """
    layer = BatchNormalization(
        axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
        beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
        beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
        beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, renorm=renorm,
        renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum, fused=fused,
        trainable=trainable, virtual_batch_size=virtual_batch_size, adjustment=adjustment,
        name=name, _reuse=reuse, _scope=name)
    return layer.apply(inputs, training=training)


BatchNorm = BatchNormalization
batch_norm = batch_normalization
