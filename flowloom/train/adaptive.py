"""`tf.train.AdagradOptimizer`, `RMSPropOptimizer` and `AdadeltaOptimizer`."""

from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.state import init_ops, training_ops
from flowloom.train.optimizer import Optimizer, cast_to


class AdagradOptimizer(Optimizer):
    """accum += g^2; var -= lr * g / sqrt(accum). Slot `accumulator` (`<var>/Adagrad`).

    Raises:
      ValueError: initial_accumulator_value is not positive.
    """

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False,
                 name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s"
                             % initial_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            dtype = v.dtype.base_dtype
            if v.get_shape().is_fully_defined():
                init = init_ops.constant_initializer(self._initial_accumulator_value,
                                                     dtype=dtype)
            else:
                init = self._init_like(v, dtype)
            self._get_or_make_slot_with_initializer(v, init, v.get_shape(), dtype,
                                                    "accumulator", self._name)

    def _init_like(self, var, dtype):
        """A variable of unknown shape: its accumulator starts as a tensor of the variable's
        run-time shape (read once the variable is initialized)."""
        def init():
            from flowloom.ops.array import array_ops
            from flowloom.ops.math import math_ops

            shape = array_ops.shape(var.initialized_value())
            return math_ops.cast(array_ops.fill(shape, self._initial_accumulator_value), dtype)
        return init

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate")

    def _apply_dense(self, grad, var):
        return training_ops.apply_adagrad(
            var, self.get_slot(var, "accumulator"), cast_to(self._learning_rate_tensor, var),
            grad, use_locking=self._use_locking)

    def _apply_sparse(self, grad, var):
        return training_ops.sparse_apply_adagrad(
            var, self.get_slot(var, "accumulator"), cast_to(self._learning_rate_tensor, var),
            grad.values, grad.indices, use_locking=self._use_locking)


class RMSPropOptimizer(Optimizer):
    """RMSProp with optional momentum and centering. Slots `rms` (`<var>/RMSProp`, ones),
    `mg` when centered, `momentum`."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered

    def _create_slots(self, var_list):
        for v in var_list:
            if not v.get_shape().is_fully_defined():
                raise NotImplementedError("RMSPropOptimizer for a variable of unknown shape")
            init_rms = init_ops.ones_initializer(dtype=v.dtype.base_dtype)
            self._get_or_make_slot_with_initializer(v, init_rms, v.get_shape(),
                                                    v.dtype.base_dtype, "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate")
        self._decay_tensor = convert_to_tensor(self._call_if_callable(self._decay),
                                               name="decay")
        self._momentum_tensor = convert_to_tensor(self._call_if_callable(self._momentum),
                                                  name="momentum")
        self._epsilon_tensor = convert_to_tensor(self._call_if_callable(self._epsilon),
                                                 name="epsilon")

    def _hyper(self, var):
        return [cast_to(t, var) for t in (self._learning_rate_tensor, self._decay_tensor,
                                          self._momentum_tensor, self._epsilon_tensor)]

    def _apply_dense(self, grad, var):
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        if self._centered:
            return training_ops.update_op(training_ops.apply_centered_rms_prop(
                var, self.get_slot(var, "mg"), rms, mom, *self._hyper(var), grad,
                use_locking=self._use_locking))
        return training_ops.update_op(training_ops.apply_rms_prop(
            var, rms, mom, *self._hyper(var), grad, use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        if self._centered:
            return training_ops.sparse_apply_centered_rms_prop(
                var, self.get_slot(var, "mg"), rms, mom, *self._hyper(var), grad.values,
                grad.indices, use_locking=self._use_locking)
        return training_ops.sparse_apply_rms_prop(var, rms, mom, *self._hyper(var), grad.values,
                                                  grad.indices, use_locking=self._use_locking)


class AdadeltaOptimizer(Optimizer):
    """Adadelta (Zeiler, 2012). Slots `accum` (`<var>/Adadelta`) and `accum_update`
    (`<var>/Adadelta_1`)."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False,
                 name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._rho = rho
        self._epsilon = epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="lr")
        self._rho_t = convert_to_tensor(self._call_if_callable(self._rho), name="rho")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon),
                                            name="epsilon")

    def _hyper(self, var):
        return [cast_to(t, var) for t in (self._lr_t, self._rho_t, self._epsilon_t)]

    def _apply_dense(self, grad, var):
        return training_ops.update_op(training_ops.apply_adadelta(
            var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"),
            *self._hyper(var), grad, use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        return training_ops.sparse_apply_adadelta(
            var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"),
            *self._hyper(var), grad.values, grad.indices, use_locking=self._use_locking)
