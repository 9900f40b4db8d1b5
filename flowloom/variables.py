"""Classic TF1 variables: a VariableV2 buffer, its Assign initializer and its `read` Identity."""

import functools
import os

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.graph import (GraphKeys, get_default_graph, init_scope, name_scope)
from flowloom.framework.op_construction import register_dense_tensor_like_type
from flowloom.framework.ops import (Tensor, convert_to_tensor,
                                    register_tensor_conversion_function)
from flowloom.framework import lazy_registry, tensor_shape
from flowloom.framework import graph as graph_lib, observers, user_stack
from flowloom.framework.apply_op import apply_op
from flowloom.framework.user_stack import pinned_site
from flowloom.ops.array import array_ops
from flowloom.ops.state import state_ops
from flowloom.variable_creator import (VariableMetaclass, create_through_stack,
                                       default_variable_creator, default_variable_creator_v2)
from flowloom.partitioned_variables import PartitionedVariable, SaveSliceInfo  # noqa: F401
from flowloom.variable_init_guard import _try_guard_against_uninitialized_dependencies
from flowloom.variable_enums import (VariableAggregation, VariableAggregationV2,  # noqa: F401
                                     VariableSynchronization,
                                     validate_synchronization_aggregation_trainable)


# tf.enable_resource_variables() / disable_resource_variables(): the default of use_resource.
_DEFAULT_USE_RESOURCE = [False]


def enable_resource_variables():
    """Makes variables created without `use_resource` resource variables (TF 2's default)."""
    _DEFAULT_USE_RESOURCE[0] = True


def disable_resource_variables():
    """Makes variables created without `use_resource` reference variables (TF 1's default)."""
    _DEFAULT_USE_RESOURCE[0] = False


def resource_variables_enabled():
    """True after tf.enable_resource_variables()."""
    return _DEFAULT_USE_RESOURCE[0]


class VariableV2(metaclass=VariableMetaclass):
    """The V2 variable class (TF 1.15's `tensorflow.python.ops.variables.Variable`, TF 2's
    `tf.Variable`): calling it makes a resource variable, through the variable creators.

    Every flowloom variable is an instance of it: `tf.Variable` (V1) and both variable
    kinds derive from it.

    Args:
      initial_value, trainable, validate_shape, caching_device, name, variable_def, dtype,
      import_scope, constraint, synchronization, aggregation, shape: as `tf.Variable`'s
      (there is no `collections`, `expected_shape` or `use_resource`).
    """

    # As TF: above an ndarray's priority, so that `ndarray * variable` runs the variable's
    # __rmul__ (a Mul op) instead of NumPy converting the variable.
    __array_priority__ = 100

    @staticmethod
    def _variable_call(initial_value=None, trainable=None, validate_shape=True,
                       caching_device=None, name=None, variable_def=None, dtype=None,
                       import_scope=None, constraint=None,
                       synchronization=VariableSynchronization.AUTO,
                       aggregation=VariableAggregation.NONE, shape=None):
        kwargs = dict(locals())
        if aggregation is None:
            kwargs["aggregation"] = VariableAggregation.NONE
        return create_through_stack(default_variable_creator_v2, kwargs)


class Variable(VariableV2):
    """`tf.Variable`: state that persists across `Session.run` calls.

    The graph holds four ops per variable, named as TF names them: `x` (VariableV2, the
    buffer), `x/initial_value`, `x/Assign` (the initializer) and `x/read` (Identity: how other
    ops see the value). `tf.Variable(use_resource=True)`, a variable scope with use_resource,
    a VariableDef with is_resource, or tf.enable_resource_variables() make a ResourceVariable
    instead (the default creator decides; see flowloom/variable_creator.py).

    Example:
      x = tf.Variable(0.0, name='x')
      inc = tf.assign_add(x, 1)
    """

    @staticmethod
    def _variable_call(initial_value=None, trainable=None, collections=None,
                       validate_shape=True, caching_device=None, name=None, variable_def=None,
                       dtype=None, expected_shape=None, import_scope=None, constraint=None,
                       use_resource=None, synchronization=VariableSynchronization.AUTO,
                       aggregation=VariableAggregation.NONE, shape=None):
        kwargs = dict(locals())
        if aggregation is None:
            kwargs["aggregation"] = VariableAggregation.NONE
        return create_through_stack(default_variable_creator, kwargs)

    def _init_common(self, initial_value, trainable, collections, constraint,
                     synchronization, aggregation, name):
        """Checks the constructor arguments both variable kinds share and sets the attributes
        they share; returns the collections the new variable joins."""
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        self._synchronization, self._aggregation, trainable = \
            validate_synchronization_aggregation_trainable(synchronization, aggregation,
                                                           trainable, name)
        if collections is None:
            collections = [GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError(f"collections argument to Variable constructor must be a list, "
                             f"tuple, or set. Got {collections} of type {type(collections)}")
        collections = list(collections)
        if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(GraphKeys.TRAINABLE_VARIABLES)
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        self._trainable = trainable
        self._constraint = constraint
        self._save_slice_info = None
        return collections

    def __init__(self, initial_value=None, trainable=None, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None,
                 expected_shape=None, import_scope=None, constraint=None, use_resource=None,
                 synchronization=None, aggregation=None, shape=None):
        if variable_def is not None:
            self._init_from_graph(variable_def, import_scope)
            return
        collections = self._init_common(initial_value, trainable, collections, constraint,
                                        synchronization, aggregation, name)
        init_from_fn = callable(initial_value)
        if init_from_fn and caching_device is None and \
                _build_from_fn(self, initial_value, name, dtype, shape, validate_shape):
            self._caching_device = None
            get_default_graph().add_to_collections(collections, self)
            return
        with pinned_site(), init_scope():
            g = get_default_graph()
            # (an initial value from a function has no graph to look for: the default's
            # own name scope, without tf.name_scope's search)
            with (g.name_scope("Variable" if name is None else name) if init_from_fn else
                  name_scope(name, "Variable", [initial_value])) as scope:
                true_name = scope[:-1]
                if init_from_fn:
                    with g._attr_scope({"_class": ["loc:@" + true_name]}):
                        with name_scope("Initializer"), g.device(None):
                            value = initial_value()
                            if isinstance(value, Variable):
                                value = value.initialized_value()
                            self._initial_value = convert_to_tensor(
                                value, name="initial_value", dtype=dtype)
                else:
                    if isinstance(initial_value, Variable):
                        initial_value = initial_value.initialized_value()
                    self._initial_value = convert_to_tensor(initial_value, name="initial_value",
                                                            dtype=dtype)
                check_not_in_control_flow(self._initial_value, true_name)
                init_shape = self._initial_value._shape
                if shape is not None:
                    init_shape = tensor_shape.as_shape(shape)
                elif not validate_shape:
                    init_shape = tensor_shape.unknown_shape()
                elif not init_shape.is_fully_defined():
                    raise ValueError(
                        f"initial_value must have a shape specified: {self._initial_value}")
                self._variable = state_ops.variable_op_v2(
                    init_shape, self._initial_value.dtype.base_dtype, name=scope)
                if init_from_fn:  # TF creates it inside the Initializer's `_class` scope
                    self._variable.op._attrs.setdefault("_class", ["loc:@" + true_name])
                with g.colocate_with(self._variable.op):
                    self._initializer_op = state_ops.assign(
                        self._variable,
                        _try_guard_against_uninitialized_dependencies(scope,
                                                                      self._initial_value),
                        validate_shape=validate_shape, name="Assign").op
                    if caching_device is None:
                        self._snapshot = array_ops.identity(self._variable, name="read")
                if caching_device is not None:
                    # Read on the caching device, not colocated with the variable (as TF).
                    with g.device(caching_device):
                        self._snapshot = array_ops.identity(self._variable, name="read")
        self._caching_device = caching_device
        g.add_to_collections(collections, self)

    def _init_from_graph(self, variable_def, import_scope):
        g = get_default_graph()

        def scoped(n):
            return (import_scope + "/" + n) if import_scope else n

        self._variable = g.as_graph_element(scoped(variable_def.variable_name))
        self._initializer_op = g.as_graph_element(scoped(variable_def.initializer_name))
        snap = variable_def.snapshot_name
        self._snapshot = g.as_graph_element(scoped(snap)) if snap else None
        iv = getattr(variable_def, "initial_value_name", "")
        self._initial_value = g.as_graph_element(scoped(iv)) if iv else None
        self._trainable = getattr(variable_def, "trainable", True)

        self._synchronization = VariableSynchronization(
            getattr(variable_def, "synchronization", 0))
        self._aggregation = VariableAggregation(getattr(variable_def, "aggregation", 0))
        self._constraint = None
        self._caching_device = None
        self._save_slice_info = _slice_info_of(variable_def, import_scope)

    # -- graph elements ------------------------------------------------------------
    def _as_graph_element(self):
        return self._variable

    def _ref(self):
        return self._variable

    def value(self):
        """The `x/read` tensor: how ops read the variable."""
        return self._snapshot

    def read_value(self):
        return array_ops.identity(self._variable, name="read")

    def _AsTensor(self):  # noqa: N802 - TF's name
        return self._snapshot

    @property
    def name(self):
        return self._variable.name

    @property
    def _distribute_strategy(self):
        """The distribution strategy the variable belongs to: none (graph mode)."""
        return None

    @property
    def _shared_name(self):
        """The name without its ":0" (the name scope included)."""
        return self.name[:self.name.index(":")]

    @property
    def op(self):
        return self._variable.op

    @property
    def graph(self):
        return self._variable.graph

    @property
    def device(self):
        return self._variable.device

    @property
    def dtype(self):
        return self._variable.dtype

    @property
    def shape(self):
        return self._variable.get_shape()

    def get_shape(self):
        return self._variable.get_shape()

    @property
    def initializer(self):
        return self._initializer_op

    @property
    def initial_value(self):
        return self._initial_value

    @property
    def trainable(self):
        return self._trainable

    @property
    def constraint(self):
        return self._constraint

    @property
    def synchronization(self):
        """The variable's VariableSynchronization (AUTO unless given)."""

        return getattr(self, "_synchronization", VariableSynchronization.AUTO)

    @property
    def aggregation(self):
        """The variable's VariableAggregation (NONE unless given)."""

        return getattr(self, "_aggregation", VariableAggregation.NONE)

    def initialized_value(self):
        """The variable's value, initializing it first if needed (for initial values of others)."""
        from flowloom.ops.control_flow import control_flow_ops

        with init_scope():
            return control_flow_ops.cond_initialized(self)

    def set_shape(self, shape):
        self._variable.set_shape(shape)
        self._snapshot.set_shape(shape)

    # -- running -------------------------------------------------------------------
    def eval(self, session=None):
        """The variable's value in `session` (or the default session)."""
        return self._variable.eval(session=session)

    def load(self, value, session=None):
        """Writes `value` into the variable without adding ops to the graph."""
        from flowloom.runtime.session import _session_for

        session = _session_for(session, self.graph)
        session.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    # -- updates ---------------------------------------------------------------------
    def assign(self, value, use_locking=False, name=None, read_value=True):
        assign = state_ops.assign(self._variable, value, use_locking=use_locking, name=name)
        return assign if read_value else assign.op

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        assign = state_ops.assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return assign if read_value else assign.op

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        assign = state_ops.assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return assign if read_value else assign.op

    def _scatter(self, fn, sparse_delta, use_locking, name):
        if not (hasattr(sparse_delta, "indices") and hasattr(sparse_delta, "values")):
            raise TypeError("sparse_delta is not IndexedSlices: %s" % sparse_delta)
        return fn(self._variable, sparse_delta.indices, sparse_delta.values,
                  use_locking=use_locking, name=name)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        """Adds the IndexedSlices `sparse_delta` to the variable (op type ScatterAdd)."""
        return self._scatter(state_ops.scatter_add, sparse_delta, use_locking, name)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        """Subtracts the IndexedSlices `sparse_delta` from the variable (op ScatterSub)."""
        return self._scatter(state_ops.scatter_sub, sparse_delta, use_locking, name)

    def scatter_update(self, sparse_delta, use_locking=True, name=None):
        """Assigns the rows of the IndexedSlices `sparse_delta` (op type ScatterUpdate)."""
        return self._scatter(state_ops.scatter_update, sparse_delta, use_locking, name)

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        """Multiplies rows by the IndexedSlices `sparse_delta` (op type ScatterMul)."""
        return self._scatter(state_ops.scatter_mul, sparse_delta, use_locking, name)

    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        """Divides rows by the IndexedSlices `sparse_delta` (op type ScatterDiv)."""
        return self._scatter(state_ops.scatter_div, sparse_delta, use_locking, name)

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        """Rows become the minimum with the IndexedSlices `sparse_delta` (op ScatterMin)."""
        return self._scatter(state_ops.scatter_min, sparse_delta, use_locking, name)

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        """Rows become the maximum with the IndexedSlices `sparse_delta` (op ScatterMax)."""
        return self._scatter(state_ops.scatter_max, sparse_delta, use_locking, name)

    def count_up_to(self, limit):
        """Increments this variable until it reaches `limit`; see `tf.count_up_to`."""
        from flowloom.ops.state.state_ops import count_up_to

        return count_up_to(self, limit)

    def to_proto(self, export_scope=None):
        from flowloom.framework.graph_def import variable_to_proto

        return variable_to_proto(self, export_scope)

    # -- partitions ---------------------------------------------------------------------
    def _set_save_slice_info(self, save_slice_info):
        """Marks this variable as the slice `save_slice_info` of a partitioned variable."""
        self._save_slice_info = save_slice_info

    def _get_save_slice_info(self):
        return self._save_slice_info

    # -- Python ------------------------------------------------------------------------
    def __repr__(self):
        return "<tf.Variable '%s' shape=%s dtype=%s>" % (self.name, self.shape, self.dtype.name)

    def __hash__(self):
        return id(self)

    def experimental_ref(self):
        """A hashable reference to this variable (object identity); `.deref()` returns it."""
        from flowloom.framework.object_identity import Reference

        return Reference(self)

    def __iter__(self):
        raise TypeError("'Variable' object is not iterable.")

    def __bool__(self):
        # TF 1.15's RefVariable has no __bool__: a reference variable is truthy, so
        # `if not files:` on tf.train.match_filenames_once(...) passes (string_input_producer
        # tests its input so). ResourceVariable refuses, as TF's does.
        return True

    def __getitem__(self, key):
        return array_ops._slice_helper(self._snapshot, key, var=self)

    def _strided_slice_assign(self, begin, end, strides, value, name, **masks):
        from flowloom.ops.state import slice_assign_ops

        return slice_assign_ops.strided_slice_assign(self._ref(), begin, end, strides, value,
                                                     name=name, **masks)

    def __array__(self, dtype=None):
        raise NotImplementedError(f"Cannot convert a symbolic Variable ({self.name}) to a numpy "
                                  "array.")


def _build_from_fn(var, initial_value, name, dtype, shape, validate_shape):
    """Variable.__init__'s blocks for an initial value from a function and no caching device
    (what get_variable makes), when init_scope has nothing to lift out of and the name is a
    valid scope name at the root: the block state is changed in place, without the context
    objects. The same ops, names, attrs, devices and user sites; False (nothing built) for
    the other cases, which take the blocks themselves."""
    g = get_default_graph()
    stack = graph_lib._default_graph_stack.stack
    scope_name = "Variable" if name is None else name
    if g._building_function or (stack and stack[-1] is not g) or \
            g._control_dependencies_stack or g._control_flow_context is not None or \
            observers.control_block or scope_name.__class__ is not str or \
            not scope_name or scope_name[-1] == "/":
        return False
    valid = graph_lib._valid_scope_names
    if scope_name not in valid:  # Graph.name_scope's check (its errors: the general path)
        if not graph_lib._VALID_OP_NAME.match(scope_name):
            return False
        if len(valid) < 65536:
            valid.add(scope_name)
    saved_pin = user_stack.pin_site()
    pushed = not stack  # (init_scope: the default graph is on the graph stack in the block)
    if pushed:
        stack.append(g)
    state = g._thread_local
    saved_names = state.name_stack
    try:
        state.name_stack = true_name = g.unique_name(scope_name)
        scope = true_name + "/"
        saved_attrs = g._attr_scope_map
        attrs = dict(saved_attrs)
        attrs["_class"] = ["loc:@" + true_name]
        g._attr_scope_map = attrs
        devices = g._device_function_stack
        try:
            state.name_stack = g.unique_name("Initializer")
            devices.append(None)  # device(None): no device scope applies to the initializer
            try:
                value = initial_value()
                if isinstance(value, Variable):
                    value = value.initialized_value()
                var._initial_value = convert_to_tensor(value, name="initial_value", dtype=dtype)
            finally:
                if not devices or devices[-1] is not None:
                    raise RuntimeError("Exiting device scope without proper scope nesting.")
                devices.pop()
        finally:
            state.name_stack = true_name
            g._attr_scope_map = saved_attrs
        initial = var._initial_value
        check_not_in_control_flow(initial, true_name)
        init_shape = initial._shape
        if shape is not None:
            init_shape = tensor_shape.as_shape(shape)
        elif not validate_shape:
            init_shape = tensor_shape.unknown_shape()
        elif not init_shape.is_fully_defined():
            raise ValueError(f"initial_value must have a shape specified: {initial}")
        ref = var._variable = state_ops.variable_op_v2(init_shape, initial._dtype.base_dtype,
                                                       name=scope)
        ref._op._attrs.setdefault("_class", ["loc:@" + true_name])
        colocation = graph_lib._Colocation(g, graph_lib._colocation_root(ref._op), False)
        colocation.__enter__()
        try:
            value = _try_guard_against_uninitialized_dependencies(scope, initial)
            var._initializer_op = apply_op(
                "Assign", (ref, value), name="Assign", use_locking=True,
                validate_shape=True if validate_shape is None else validate_shape)
            var._snapshot = apply_op("Identity", (ref,), name="read")._outputs[0]
        finally:
            colocation.__exit__(None, None, None)
    finally:
        state.name_stack = saved_names
        if pushed:
            stack.pop()
        user_stack.unpin_site(saved_pin)
    return True


def check_not_in_control_flow(initial_value, name):
    """TF's check: an initial value built inside a while loop or cond cannot initialize."""
    op = getattr(initial_value, "_op", None)
    if op is not None and getattr(op, "_control_flow_context", None) is not None:
        raise ValueError(f"Initializer for variable {name} is from inside a control-flow "
                         "construct, such as a loop or conditional. When creating a variable "
                         "inside a loop or conditional, use a lambda as the initializer.")


def _slice_info_of(variable_def, import_scope):
    """The SaveSliceInfo a VariableDef records, or None."""
    if variable_def.HasField("save_slice_info_def"):
        return SaveSliceInfo(save_slice_info_def=variable_def.save_slice_info_def,
                             import_scope=import_scope)
    return None


def _operator_forwarder(name):
    def op(self, *args):
        return getattr(self.value(), name)(*args)
    # As TF: the operator carries the Tensor operator's name, module and docstring (the
    # Tensor operator's family is imported for it).
    lazy_registry.load("tensor_operator", name)
    return functools.update_wrapper(op, getattr(Tensor, name))


# The Python operators a variable answers with the tensor it reads (`value()`: the `read`
# snapshot of a reference variable, a fresh ReadVariableOp of a resource variable).
OPERATOR_NAMES = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                  "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
                  "__rmod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__",
                  "__abs__", "__lt__", "__le__", "__gt__", "__ge__", "__and__", "__rand__",
                  "__or__", "__ror__", "__xor__", "__rxor__", "__invert__")
for _name in OPERATOR_NAMES:
    setattr(VariableV2, _name, _operator_forwarder(_name))


class RefVariable(Variable):
    """A reference variable (a VariableV2 op): what `tf.Variable(...)` makes by default.

    Constructed directly it skips the variable creators, as TF's RefVariable."""


VariableV1 = Variable
VariableV2.SaveSliceInfo = SaveSliceInfo


def _variable_to_tensor(v, dtype=None, name=None, as_ref=False):
    if dtype is not None and not dtype.is_compatible_with(v.dtype):
        raise ValueError(f"Incompatible type conversion requested to type '{dtype.name}' for "
                         f"variable of type '{v.dtype.name}'")
    return v._variable if as_ref else v._snapshot


register_tensor_conversion_function(Variable, _variable_to_tensor)
register_dense_tensor_like_type(Variable)


# -- collections and initializers ----------------------------------------------------------
def global_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def all_saveable_objects(scope=None):
    """The global variables and the `saveable_objects` collection (under `scope`): what a
    Saver saves by default."""
    g = get_default_graph()
    return g.get_collection(GraphKeys.GLOBAL_VARIABLES, scope) + \
        g.get_collection(GraphKeys.SAVEABLE_OBJECTS, scope)


_all_saveable_objects = all_saveable_objects


def all_variables():
    return global_variables()


def local_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def trainable_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def model_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope=None):
    return get_default_graph().get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def variables_initializer(var_list, name="init"):
    """An op that runs the initializers of `var_list` (a no-op when the list is empty)."""
    from flowloom.ops.control_flow import control_flow_ops

    if var_list:
        return control_flow_ops.group(*[v.initializer for v in var_list], name=name)
    return control_flow_ops.no_op(name=name)


def global_variables_initializer():
    """An op that initializes all global variables."""
    return variables_initializer(global_variables())


def initialize_all_variables():
    return global_variables_initializer()


def local_variables_initializer():
    return variables_initializer(local_variables(), name="init")


def initialize_local_variables():
    return local_variables_initializer()


def is_variable_initialized(variable):
    return state_ops.is_variable_initialized(variable)


def assert_variables_initialized(var_list=None):
    """Returns an op that fails (FailedPreconditionError) when a variable of `var_list`
    (default: all global and local variables) is not initialized, else the variables' ranks;
    None when there are no variables.
    """
    if var_list is None:
        var_list = global_variables() + local_variables()
    if not var_list:
        var_list = [op.outputs[0] for op in get_default_graph().get_operations()
                    if op.type in ("Variable", "VariableV2", "AutoReloadVariable")]
    if not var_list:
        return None
    ranks = []
    for var in var_list:
        with get_default_graph().colocate_with(var.op):
            ranks.append(array_ops.rank(var, optimize=False))
    return ranks[0] if len(ranks) == 1 else array_ops.stack(ranks)


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor with the names of the variables in `var_list` not yet initialized."""
    from flowloom.ops.math import math_ops

    if var_list is None:
        var_list = global_variables() + local_variables()
    with name_scope(name):
        # Each check is colocated with its variable (a reference input); the rest runs on
        # the CPU of the task that asks, as in TF (TF's environment variable overrides it).
        inited = [state_ops.is_variable_initialized(v) for v in var_list]
        local_device = os.environ.get("TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING",
                                      "/cpu:0")
        with get_default_graph().colocate_with(None), get_default_graph().device(local_device):
            if not var_list:
                return array_ops.constant([], dtype=dtypes.string)
            mask = math_ops.logical_not(array_ops.stack(inited))
            names = array_ops.constant(np.array([v.op.name.encode() for v in var_list],
                                                dtype=object), dtype=dtypes.string)
            return array_ops.boolean_mask(names, mask)

