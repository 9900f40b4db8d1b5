"""`tf.train.ProximalGradientDescentOptimizer`: gradient descent with L1/L2 proximal steps."""

from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.state import training_ops
from flowloom.train.optimizer import Optimizer, cast_to


class ProximalGradientDescentOptimizer(Optimizer):
    """var = prox(var - learning_rate * grad): L1 shrinks towards 0 by learning_rate * l1,
    L2 divides by 1 + learning_rate * l2 (ApplyProximalGradientDescent, and its sparse and
    resource forms).

    Args:
      learning_rate: a float, a scalar Tensor, or a callable returning one.
      l1_regularization_strength, l2_regularization_strength: floats >= 0.
      use_locking: hold the variable's lock during updates.
      name: the name scope of the update ops ("ProximalGradientDescent").
    """

    def __init__(self, learning_rate, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False,
                 name="ProximalGradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate")
        self._l1_tensor = convert_to_tensor(self._l1, name="l1_regularization_strength")
        self._l2_tensor = convert_to_tensor(self._l2, name="l2_regularization_strength")

    def _scalars(self, var):
        return (cast_to(self._learning_rate_tensor, var), cast_to(self._l1_tensor, var),
                cast_to(self._l2_tensor, var))

    def _apply_dense(self, grad, var):
        return training_ops.update_op(training_ops.apply_proximal_gradient_descent(
            var, *self._scalars(var), grad, use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        return training_ops.update_op(training_ops.sparse_apply_proximal_gradient_descent(
            var, *self._scalars(var), grad.values, grad.indices,
            use_locking=self._use_locking))
