"""`tf.train.Optimizer`: compute_gradients, apply_gradients, minimize, and slot variables.

Subclasses define `_create_slots`, `_prepare`, `_apply_dense`, `_apply_sparse` (and may
override `_finish`), as in TF, so graphs come out with TF's op and variable names:
`w/Momentum`, `train/update_w/ApplyMomentum`, ...
"""

import contextlib

from flowloom import variables
from flowloom.framework import dtypes, nest
from flowloom.framework.gradients_impl import gradients
from flowloom.framework.graph import (
    GraphKeys,
    get_collection,
    get_collection_ref,
    get_default_graph,
    init_scope,
    name_scope,
)
from flowloom.framework.indexed_slices import IndexedSlices
from flowloom.framework.ops import Tensor, convert_to_tensor_or_indexed_slices
from flowloom.ops.array import array_ops
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.state import init_ops, state_ops
from flowloom.ops.math import segment_ops
from flowloom.variable_scope import get_variable, variable_scope


def _var_key(var):
    return var.op.name


def _is_resource(var):
    from flowloom.resource_variable import is_resource_variable

    return is_resource_variable(var)


def create_slot(primary, initializer, name, shape=None, dtype=None, colocate_with_primary=True):
    """A non-trainable variable named `<primary>/<name>` holding optimizer state for `primary`.

    The variable is colocated with `primary` (unless `colocate_with_primary` is False: then the
    device scopes place it); its name is made unique as TF's slot_creator does (`w/Adam`, then
    `w/Adam_1`).
    """
    from flowloom.partitioned_variables import slot_save_slice_info

    shape = primary.get_shape() if shape is None else shape
    dtype = primary.dtype.base_dtype if dtype is None else dtype
    graph = get_default_graph()
    with variable_scope(None, default_name=primary.op.name + "/" + name) as scope:
        with (graph.colocate_with(primary.op) if colocate_with_primary
              else contextlib.nullcontext()):
            scope.set_partitioner(None)  # slots are never partitioned, as TF's slot_creator
            slot = get_variable(
                "", shape=shape if callable(initializer) else None, dtype=dtype,
                initializer=initializer, trainable=False,
                validate_shape=shape.is_fully_defined(),
                # As TF's slot_creator: a resource variable's slots are resource variables.
                use_resource=_is_resource(primary))
    slot_save_slice_info(primary, slot)
    return slot


def create_zeros_slot(primary, name, dtype=None, colocate_with_primary=True):
    """A slot for `primary` initialized with zeros."""
    dtype = primary.dtype.base_dtype if dtype is None else dtype
    shape = primary.get_shape()
    if shape.is_fully_defined():
        return create_slot(primary, init_ops.zeros_initializer(), name, shape, dtype,
                           colocate_with_primary)
    return create_slot(primary, array_ops.zeros_like(primary.initialized_value()), name,
                       shape, dtype, colocate_with_primary)


def _trainable_variables_read_by(tensor):
    """The trainable variables whose buffers or handles `tensor` depends on."""
    seen, stack = set(), [tensor.op]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    candidates = variables.trainable_variables() + \
        get_collection(GraphKeys.TRAINABLE_RESOURCE_VARIABLES)
    return [v for v in candidates if v.op in seen]


def _deduplicate_indexed_slices(values, indices):
    """Sums the values of repeated indices: (summed values, unique indices)."""
    unique_indices, new_positions = segment_ops.unique(indices)
    summed = segment_ops.unsorted_segment_sum(values, new_positions,
                                              array_ops.shape(unique_indices)[0])
    return summed, unique_indices


class Optimizer:
    """Base class for optimizers (`tf.train.Optimizer`).

    Example:
      opt = tf.train.GradientDescentOptimizer(learning_rate=0.1)
      train_op = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    """

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots = {}
        self._non_slot_dict = {}

    def get_name(self):
        return self._name

    # -- the public API ----------------------------------------------------------------
    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None,
                 grad_loss=None):
        """Adds ops that compute the gradients of `loss` and apply them to `var_list`.

        Args:
          loss: the Tensor to minimize.
          global_step: optional Variable incremented by one after the update.
          var_list: the variables to update (default: the trainable variables).
          gate_gradients: GATE_NONE, GATE_OP or GATE_GRAPH.
          aggregation_method: see `tf.gradients`.
          colocate_gradients_with_ops: see `tf.gradients`.
          name: the name of the returned operation.
          grad_loss: optional gradient of `loss` (ones when None).

        Returns:
          The Operation that updates the variables.

        Raises:
          ValueError: no variable has a gradient.
        """
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not "
                "support gradients, between variables %s and loss %s."
                % ([str(v) for _, v in grads_and_vars], loss))
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        """The gradients of `loss` for the variables: a list of (gradient, variable) pairs.

        Raises:
          ValueError: bad gate_gradients, an invalid dtype, or no variables.
        """
        if callable(loss):
            # As TF's GradientTape in a graph: the loss is built now, and the variables are
            # by default the trainable ones it reads.
            loss = loss()
            if var_list is None:
                var_list = _trainable_variables_read_by(loss)
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, "
                             "Optimizer.GATE_OP, Optimizer.GATE_GRAPH.  Not %s" % gate_gradients)
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            self._assert_valid_dtypes([grad_loss])
        if var_list is None:
            var_list = variables.trainable_variables() + \
                get_collection(GraphKeys.TRAINABLE_RESOURCE_VARIABLES)
        else:
            var_list = nest.flatten(var_list)  # any nest: list, dict, d.values(), ...
        if not var_list:
            raise ValueError("No variables to optimize.")
        var_refs = [v._ref() if hasattr(v, "_ref") else v for v in var_list]
        grads = gradients(loss, var_refs, grad_ys=grad_loss,
                          gate_gradients=(gate_gradients == Optimizer.GATE_OP),
                          aggregation_method=aggregation_method,
                          colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == Optimizer.GATE_GRAPH:
            grads = control_flow_ops.tuple(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars if g is not None])
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Adds the ops that apply (gradient, variable) pairs; returns the update Operation.

        Raises:
          TypeError: a gradient is not a Tensor, IndexedSlices or None.
          ValueError: no variables, or none has a gradient.
        """
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for g, v in grads_and_vars:
            if g is not None:
                try:
                    g = convert_to_tensor_or_indexed_slices(g)
                except TypeError:
                    raise TypeError("Gradient must be convertible to a Tensor or IndexedSlices, "
                                    "or None: %s" % g) from None
                if not isinstance(g, (Tensor, IndexedSlices)):
                    raise TypeError("Gradient must be a Tensor, IndexedSlices, or None: %s" % g)
            converted.append((g, v))
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError("No gradients provided for any variable: %s."
                             % ([str(v) for _, v in converted],))
        with init_scope():
            self._create_slots(var_list)
        graph = get_default_graph()
        update_ops = []
        with name_scope(name, self._name) as scope:
            self._prepare()
            for grad, var in converted:
                if grad is None:
                    continue
                with name_scope("update_" + var.op.name), graph.colocate_with(var.op):
                    update_ops.append(self._update_op(grad, var))
            if global_step is None:
                apply_updates = self._finish(update_ops, scope)
            else:
                with graph.control_dependencies([self._finish(update_ops, "update")]):
                    with graph.colocate_with(global_step.op):
                        apply_updates = _increment(global_step, scope)
            if isinstance(apply_updates, Tensor):
                apply_updates = apply_updates.op
            train_ops = get_collection_ref(GraphKeys.TRAIN_OP)
            if apply_updates not in train_ops:
                train_ops.append(apply_updates)
            return apply_updates

    def _update_op(self, grad, var):
        if isinstance(var, Tensor):
            # compute_gradients takes Tensors in var_list; nothing can apply to them (TF's
            # _TensorProcessor)
            raise NotImplementedError("Trying to update a Tensor ", var)
        if isinstance(grad, Tensor):
            update = self._apply_dense(grad, var)
            if getattr(var, "constraint", None) is not None:
                with get_default_graph().control_dependencies([update]):
                    return var.assign(var.constraint(var))
            return update
        if getattr(var, "constraint", None) is not None:
            raise RuntimeError("Cannot use a constraint function on a sparse variable.")
        return self._apply_sparse_duplicate_indices(grad, var)

    # -- slots ---------------------------------------------------------------------------
    def get_slot(self, var, name):
        """The slot variable `name` of `var` (None if it was not created)."""
        named = self._slots.get(name)
        if not named:
            return None
        return named.get(_var_key(var))

    def get_slot_names(self):
        return sorted(self._slots)

    def variables(self):
        """The optimizer's variables in the default graph (slots and non-slot ones)."""
        graph = get_default_graph()
        found = [v for v in self._non_slot_dict.values() if v.graph is graph]
        for slots in self._slots.values():
            found.extend(v for v in slots.values() if v.graph is graph)
        return sorted(found, key=lambda v: v.name)

    def _slot_dict(self, slot_name):
        return self._slots.setdefault(slot_name, {})

    def _zeros_slot(self, var, slot_name, op_name):
        named = self._slot_dict(slot_name)
        if _var_key(var) not in named:
            named[_var_key(var)] = create_zeros_slot(var, op_name)
        return named[_var_key(var)]

    def _get_or_make_slot(self, var, val, slot_name, op_name):
        named = self._slot_dict(slot_name)
        if _var_key(var) not in named:
            named[_var_key(var)] = create_slot(var, val, op_name)
        return named[_var_key(var)]

    def _get_or_make_slot_with_initializer(self, var, initializer, shape, dtype, slot_name,
                                           op_name):
        named = self._slot_dict(slot_name)
        if _var_key(var) not in named:
            named[_var_key(var)] = create_slot(var, initializer, op_name, shape, dtype)
        return named[_var_key(var)]

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        graph = colocate_with.graph
        key = (name, graph)
        v = self._non_slot_dict.get(key)
        if v is None:
            with graph.colocate_with(colocate_with.op):
                v = variables.Variable(initial_value, name=name, trainable=False,
                                       use_resource=_is_resource(colocate_with))
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name, graph=None):
        return self._non_slot_dict.get((name, graph or get_default_graph()))

    def _call_if_callable(self, param):
        return param() if callable(param) else param

    def _assert_valid_dtypes(self, tensors):
        valid = self._valid_dtypes()
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in valid:
                raise ValueError("Invalid type %r for %s, expected: %s."
                                 % (dtype, t.name, [v for v in valid]))

    def _valid_dtypes(self):
        return {dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64}

    # -- what subclasses define ------------------------------------------------------------
    def _create_slots(self, var_list):
        pass

    def _prepare(self):
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError()

    def _apply_sparse_duplicate_indices(self, grad, var):
        summed, unique_indices = _deduplicate_indexed_slices(grad.values, grad.indices)
        return self._apply_sparse(IndexedSlices(summed, unique_indices, grad.dense_shape), var)

    def _apply_sparse(self, grad, var):
        raise NotImplementedError()

    def _finish(self, update_ops, name_scope_name):
        return control_flow_ops.group(*update_ops, name=name_scope_name)


def cast_to(value, var):
    """`value` cast to var's dtype (no op when it already has it)."""
    from flowloom.ops.math import math_ops

    return math_ops.cast(value, var.dtype.base_dtype)


def _increment(global_step, name):
    """The train op's `global_step += 1`: for a resource variable the update op itself
    (AssignAddVariableOp, no read after it), as TF."""
    from flowloom.framework.ops import convert_to_tensor
    from flowloom.ops.state import resource_variable_ops
    from flowloom.resource_variable import ResourceVariable

    if isinstance(global_step, ResourceVariable):
        return resource_variable_ops.assign_add_variable_op(
            global_step.handle, convert_to_tensor(1, dtype=global_step.dtype), name=name)
    return state_ops.assign_add(global_step, 1, name=name)
