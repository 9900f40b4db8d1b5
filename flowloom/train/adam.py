"""`tf.train.AdamOptimizer` (Kingma and Ba, 2015), as TF1 builds it."""

from flowloom.framework.graph import control_dependencies, get_default_graph
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.math import math_ops
from flowloom.ops.state import state_ops, training_ops
from flowloom.train.optimizer import Optimizer, cast_to


class AdamOptimizer(Optimizer):
    """Adam: per-variable slots `m` (`<var>/Adam`) and `v` (`<var>/Adam_1`), and the shared
    non-slot variables `beta1_power` and `beta2_power`, updated after every step.

    Args:
      learning_rate, beta1, beta2, epsilon: floats, scalar Tensors or callables.
      use_locking: hold the variables' locks during updates.
      name: the name scope of the update ops ("Adam").
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon

    def _get_beta_accumulators(self):
        graph = get_default_graph()
        return (self._get_non_slot_variable("beta1_power", graph=graph),
                self._get_non_slot_variable("beta2_power", graph=graph))

    def _create_slots(self, var_list):
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="learning_rate")
        self._beta1_t = convert_to_tensor(self._call_if_callable(self._beta1), name="beta1")
        self._beta2_t = convert_to_tensor(self._call_if_callable(self._beta2), name="beta2")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon),
                                            name="epsilon")

    def _apply_dense(self, grad, var):
        beta1_power, beta2_power = self._get_beta_accumulators()
        return training_ops.update_op(training_ops.apply_adam(
            var, self.get_slot(var, "m"), self.get_slot(var, "v"),
            cast_to(beta1_power, var), cast_to(beta2_power, var), cast_to(self._lr_t, var),
            cast_to(self._beta1_t, var), cast_to(self._beta2_t, var),
            cast_to(self._epsilon_t, var), grad, use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        beta1_power, beta2_power = self._get_beta_accumulators()
        beta1_power, beta2_power = cast_to(beta1_power, var), cast_to(beta2_power, var)
        lr_t, beta1_t = cast_to(self._lr_t, var), cast_to(self._beta1_t, var)
        beta2_t, epsilon_t = cast_to(self._beta2_t, var), cast_to(self._epsilon_t, var)
        lr = lr_t * math_ops.sqrt(1 - beta2_power) / (1 - beta1_power)
        values, indices = grad.values, grad.indices
        # m_t = beta1 * m + (1 - beta1) * g_t: the decay is dense, the gradient sparse.
        m = self.get_slot(var, "m")
        m_scaled = values * (1 - beta1_t)
        m_t = state_ops.assign(m, m * beta1_t, use_locking=self._use_locking)
        with control_dependencies([m_t]):
            m_t = state_ops.scatter_add(m, indices, m_scaled, use_locking=self._use_locking)
        v = self.get_slot(var, "v")
        v_scaled = (values * values) * (1 - beta2_t)
        v_t = state_ops.assign(v, v * beta2_t, use_locking=self._use_locking)
        with control_dependencies([v_t]):
            v_t = state_ops.scatter_add(v, indices, v_scaled, use_locking=self._use_locking)
        v_sqrt = math_ops.sqrt(v_t)
        var_update = state_ops.assign_sub(var, lr * m_t / (v_sqrt + epsilon_t),
                                          use_locking=self._use_locking)
        return control_flow_ops.group(*[var_update, m_t, v_t])

    def _finish(self, update_ops, name_scope_name):
        with control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            with get_default_graph().colocate_with(beta1_power.op):
                update_beta1 = beta1_power.assign(beta1_power * self._beta1_t,
                                                  use_locking=self._use_locking)
                update_beta2 = beta2_power.assign(beta2_power * self._beta2_t,
                                                  use_locking=self._use_locking)
        return control_flow_ops.group(*update_ops + [update_beta1, update_beta2],
                                      name=name_scope_name)
