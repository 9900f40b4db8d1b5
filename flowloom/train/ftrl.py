"""`tf.train.FtrlOptimizer`: FTRL-Proximal (McMahan et al., 2013), as TF1 builds it."""

from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops
from flowloom.ops.state import training_ops
from flowloom.train.optimizer import Optimizer, cast_to


class FtrlOptimizer(Optimizer):
    """FTRL-Proximal with L1, L2 and L2-shrinkage regularization.

    Slots `accum` (`<var>/Ftrl`, started at initial_accumulator_value) and `linear`
    (`<var>/Ftrl_1`). Update ops ApplyFtrl, or ApplyFtrlV2 with L2 shrinkage (SparseApply*
    for sparse gradients).

    Raises:
      ValueError: a negative accumulator value or regularization strength, or a positive
        learning_rate_power.
    """

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="Ftrl", accum_name=None, linear_name=None,
                 l2_shrinkage_regularization_strength=0.0, beta=None):
        super().__init__(use_locking, name)
        checks = [(initial_accumulator_value, "initial_accumulator_value"),
                  (l1_regularization_strength, "l1_regularization_strength"),
                  (l2_regularization_strength, "l2_regularization_strength")]
        for value, what in checks:
            if value < 0.0:
                raise ValueError("%s %f needs to be positive or zero" % (what, value))
        if learning_rate_power > 0.0:
            raise ValueError("learning_rate_power %f needs to be negative or zero"
                             % learning_rate_power)
        if l2_shrinkage_regularization_strength < 0.0:
            raise ValueError("l2_shrinkage_regularization_strength %f needs to be positive or "
                             "zero" % l2_shrinkage_regularization_strength)
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage = l2_shrinkage_regularization_strength
        self._accum_name = accum_name
        self._linear_name = linear_name

    def _create_slots(self, var_list):
        def accum_initializer(shape, dtype=None, partition_info=None):
            return array_ops.ones(shape=shape, dtype=dtype) * self._initial_accumulator_value

        for v in var_list:
            self._get_or_make_slot_with_initializer(
                v, accum_initializer, v.get_shape(), v.dtype.base_dtype, "accum",
                self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate,
                                                       name="learning_rate")
        self._l1_tensor = convert_to_tensor(self._l1, name="l1_regularization_strength")
        # The L2 strength with beta folded in, so the update ops need no beta.
        self._adjusted_l2_tensor = convert_to_tensor(
            self._l2 + self._beta / (2. * math_ops.maximum(self._learning_rate, 1e-36)),
            name="adjusted_l2_regularization_strength")
        self._beta_tensor = convert_to_tensor(self._beta, name="beta")
        self._l2_shrinkage_tensor = convert_to_tensor(
            self._l2_shrinkage, name="l2_shrinkage_regularization_strength")
        self._learning_rate_power_tensor = convert_to_tensor(self._learning_rate_power,
                                                             name="learning_rate_power")

    def _hyper(self, var):
        hyper = [self._learning_rate_tensor, self._l1_tensor, self._adjusted_l2_tensor]
        if self._l2_shrinkage > 0.0:
            hyper.append(self._l2_shrinkage_tensor)
        hyper.append(self._learning_rate_power_tensor)
        return [cast_to(t, var) for t in hyper]

    def _apply_dense(self, grad, var):
        accum, linear = self.get_slot(var, "accum"), self.get_slot(var, "linear")
        apply = training_ops.apply_ftrl if self._l2_shrinkage <= 0.0 else \
            training_ops.apply_ftrl_v2
        return apply(var, accum, linear, grad, *self._hyper(var),
                     use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        accum, linear = self.get_slot(var, "accum"), self.get_slot(var, "linear")
        apply = training_ops.sparse_apply_ftrl if self._l2_shrinkage <= 0.0 else \
            training_ops.sparse_apply_ftrl_v2
        return apply(var, accum, linear, grad.values, grad.indices, *self._hyper(var),
                     use_locking=self._use_locking)
