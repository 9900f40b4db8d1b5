"""`tf.train.ExponentialMovingAverage` and `assign_moving_average`."""

from flowloom import variables
from flowloom.framework import dtypes
from flowloom.framework.graph import (
    GraphKeys,
    add_to_collection,
    get_default_graph,
    init_scope,
    name_scope,
)
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.state import init_ops, state_ops
from flowloom.ops.math import math_ops
from flowloom.train import optimizer as slot_creator
from flowloom.variable_scope import get_variable, get_variable_scope, variable_scope


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """variable -= (variable - value) * (1 - decay): returns the updated reference.

    With `zero_debias`, the average is divided by (1 - decay^t) so it is not biased
    towards its zero start (TF's "biased" and "local_step" helper variables).
    """
    with name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope:
        decay = convert_to_tensor(1.0 - decay, name="decay") if not isinstance(decay, Tensor) \
            else 1.0 - decay
        if decay.dtype.base_dtype != variable.dtype.base_dtype:
            decay = math_ops.cast(decay, variable.dtype.base_dtype)
        # Only the ops that write the variable are colocated with it (through their reference
        # input); the arithmetic is placed by the device scopes, as in TF.
        if zero_debias:
            return _zero_debias(variable, value, decay)
        return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


def weighted_moving_average(value, decay, weight, truediv=True, collections=None, name=None):
    """The moving average of `value` weighted by `weight`: two moving averages (of
    value * weight and of weight, helper variables `value_x_weight` and `weight` in the scope
    `WeightedMovingAvg`), divided."""
    collections = [GraphKeys.GLOBAL_VARIABLES] if collections is None else collections
    with variable_scope(name, "WeightedMovingAvg", [value, weight, decay]) as scope:
        helpers = [get_variable(n, shape=t.get_shape(), dtype=t.dtype,
                                initializer=init_ops.zeros_initializer(), trainable=False,
                                collections=collections)
                   for n, t in (("value_x_weight", value), ("weight", weight))]
        numerator = assign_moving_average(helpers[0], value * weight, decay, zero_debias=False)
        denominator = assign_moving_average(helpers[1], weight, decay, zero_debias=False)
        divide = math_ops.truediv if truediv else math_ops.div
        return divide(numerator, denominator, name=scope.name)


def _zero_debias(unbiased_var, value, decay):
    graph = get_default_graph()
    with variable_scope(unbiased_var.op.name):
        with init_scope(), graph.colocate_with(unbiased_var.op):
            biased = get_variable(
                _unique_in_scope("biased"), initializer=init_ops.zeros_initializer(),
                shape=unbiased_var.get_shape(), dtype=unbiased_var.dtype.base_dtype,
                trainable=False)
            local_step = get_variable(
                _unique_in_scope("local_step"), shape=[], dtype=unbiased_var.dtype.base_dtype,
                initializer=init_ops.zeros_initializer(), trainable=False)
    update_biased = state_ops.assign_sub(biased, (biased - value) * decay)
    update_local_step = local_step.assign_add(1)
    bias_factor = 1 - math_ops.pow(1.0 - decay, update_local_step)
    return state_ops.assign(unbiased_var, update_biased / bias_factor,
                            name=graph.get_name_scope() + "/")


def _unique_in_scope(name):
    scope = get_variable_scope()
    if scope.reuse:
        return name  # reusing: the existing helper variable, as TF
    existing = {v.op.name for v in variables.global_variables()}
    full = (scope.name + "/" + name) if scope.name else name
    if full not in existing:
        return name
    i = 1
    while f"{full}_{i}" in existing:
        i += 1
    return f"{name}_{i}"


class ExponentialMovingAverage:
    """Keeps moving averages of variables: shadow = decay * shadow + (1 - decay) * value.

    `apply(var_list)` creates a shadow variable `<var>/ExponentialMovingAverage` per variable
    (initialized to the variable's initial value) and returns the op that updates them all.
    With `num_updates`, the decay used is min(decay, (1 + num_updates) / (10 + num_updates)).

    Example:
      ema = tf.train.ExponentialMovingAverage(decay=0.999)
      with tf.control_dependencies([train_op]):
          train_and_average = ema.apply([w, b])
      w_average = ema.average(w)
    """

    def __init__(self, decay, num_updates=None, zero_debias=False,
                 name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}

    @property
    def name(self):
        return self._name

    def apply(self, var_list=None):
        """Creates the shadow variables of `var_list` and returns the op updating them.

        Raises:
          TypeError: a variable is not half, float or double.
          ValueError: a variable is given twice.
        """
        if var_list is None:
            var_list = variables.trainable_variables()
        zero_debias_avgs = set()
        for var in var_list:
            if var.dtype.base_dtype not in (dtypes.bfloat16, dtypes.float16, dtypes.float32,
                                            dtypes.float64):
                raise TypeError("The variables must be half, float, or double: %s" % var.name)
            if var in self._averages:
                continue
            with init_scope():
                if isinstance(var, variables.Variable):
                    # TF starts from the variable's current value when it is initialized
                    # (a tf.cond); flowloom starts from its initial value.
                    avg = slot_creator.create_slot(var, var.initial_value, self._name,
                                                   var.get_shape())
                    add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    # A tensor's average is placed by the device scopes (a variable's
                    # stays with the variable), as in TF.
                    avg = slot_creator.create_zeros_slot(
                        var, self._name, colocate_with_primary=var.op.type in (
                            "Variable", "VariableV2", "VarHandleOp"))
                    if self._zero_debias:
                        zero_debias_avgs.add(avg)
            self._averages[var] = avg
        with name_scope(self._name) as scope:
            decay = convert_to_tensor(self._decay, dtype=dtypes.float32, name="decay")
            if self._num_updates is not None:
                num_updates = math_ops.cast(self._num_updates, dtypes.float32,
                                            name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = []
            for var in var_list:
                avg = self._averages[var]
                updates.append(assign_moving_average(avg, var, decay,
                                                     zero_debias=avg in zero_debias_avgs))
            return control_flow_ops.group(*updates, name=scope)

    def average(self, var):
        """The shadow variable of `var`, or None."""
        return self._averages.get(var)

    def average_name(self, var):
        """The name of the shadow variable of `var`: `<var op name>/<ema name>` under the
        current name scope, made unique as the shadow variable's will be (before `apply`)."""
        if var in self._averages:
            return self._averages[var].op.name
        return get_default_graph().unique_name(var.op.name + "/" + self._name,
                                               mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None):
        """A map from checkpoint names to variables that restores the averages in their place.

        Args:
          moving_avg_variables: the variables with averages (default: trainable variables and
            the MOVING_AVERAGE_VARIABLES collection).

        Returns:
          A dict {name: Variable} for `tf.train.Saver`.
        """
        if moving_avg_variables is None:
            moving_avg_variables = variables.trainable_variables() + \
                variables.moving_average_variables()
        unique = list(dict.fromkeys(moving_avg_variables))
        name_map = {self.average_name(v): v for v in unique}
        names = {v.name for v in unique}
        for v in variables.global_variables():
            if v.name not in names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
