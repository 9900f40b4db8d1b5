"""`tf.train.GradientDescentOptimizer` and `tf.train.MomentumOptimizer`."""

from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.state import state_ops, training_ops
from flowloom.train.optimizer import Optimizer, cast_to


class GradientDescentOptimizer(Optimizer):
    """var -= learning_rate * gradient (ApplyGradientDescent; ScatterSub for sparse gradients).

    Args:
      learning_rate: a float, a scalar Tensor, or a callable returning one.
      use_locking: hold the variable's lock during updates.
      name: the name scope of the update ops ("GradientDescent").
    """

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate")

    def _apply_dense(self, grad, var):
        return training_ops.update_op(training_ops.apply_gradient_descent(
            var, cast_to(self._learning_rate_tensor, var), grad,
            use_locking=self._use_locking))

    def _apply_sparse_duplicate_indices(self, grad, var):
        # ScatterSub sums repeated indices itself: no de-duplication needed.
        delta = grad.values * cast_to(self._learning_rate_tensor, var)
        return state_ops.scatter_sub(var, grad.indices, delta, use_locking=self._use_locking)


class MomentumOptimizer(Optimizer):
    """accum = momentum * accum + gradient; var -= learning_rate * accum (or Nesterov's form).

    Slots: `momentum` (variable `<var>/Momentum`).
    """

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum",
                 use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate")
        self._momentum_tensor = convert_to_tensor(self._call_if_callable(self._momentum),
                                                  name="momentum")

    def _apply_dense(self, grad, var):
        return training_ops.update_op(training_ops.apply_momentum(
            var, self.get_slot(var, "momentum"), cast_to(self._learning_rate_tensor, var), grad,
            cast_to(self._momentum_tensor, var), use_locking=self._use_locking,
            use_nesterov=self._use_nesterov))

    def _apply_sparse(self, grad, var):
        return training_ops.update_op(training_ops.sparse_apply_momentum(
            var, self.get_slot(var, "momentum"), cast_to(self._learning_rate_tensor, var),
            grad.values, grad.indices, cast_to(self._momentum_tensor, var),
            use_locking=self._use_locking, use_nesterov=self._use_nesterov))
