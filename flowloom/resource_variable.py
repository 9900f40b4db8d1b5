"""`ResourceVariable`: a variable behind a `resource` handle (TF's use_resource=True).

The graph holds, as TF 1.15 names them: `x` (VarHandleOp), `x/Initializer/...` (the initial
value), `x/IsInitialized/VarIsInitializedOp`, `x/Assign` (AssignVariableOp, the initializer)
and `x/Read/ReadVariableOp` (the value `sess.run(x)` fetches). Every use of the variable as a
tensor adds a fresh ReadVariableOp, so a read placed after an update sees the update. The
gradient of a read flows to the handle; `tf.gradients(loss, var)` differentiates with respect
to the handle (a gather gives IndexedSlices). Optimizers, Saver and `tf.assign*` accept these
variables: updates become AssignVariableOp / AssignAddVariableOp / ResourceApply* /
ResourceScatter* ops on the handle.

Example:
  v = tf.get_variable("v", [3], use_resource=True)
  inc = v.assign_add([1., 1., 1.])   # a tensor: the value after the update
"""

from flowloom.framework import dtypes, tensor_shape
from flowloom.framework.graph import (control_dependencies, get_default_graph,
                                      init_scope, name_scope)
from flowloom.framework.ops import Tensor, convert_to_tensor, register_tensor_conversion_function
from flowloom.ops.array import array_ops
from flowloom.ops.state import resource_variable_ops as rvo
from flowloom.variable_init_guard import _try_guard_against_uninitialized_dependencies
from flowloom.variables import Variable, check_not_in_control_flow


class ResourceVariable(Variable):
    """A variable whose state lives behind a `resource` handle (`tf.get_variable(...,
    use_resource=True)`, `tf.Variable(..., use_resource=True)`).

    Args:
      initial_value: A `Tensor` or Python value convertible to one, or a callable returning
        one (then `dtype` must be given when the callable needs it).
      trainable: Add the variable to TRAINABLE_VARIABLES (default True).
      collections: Graph collections to add it to (default [GLOBAL_VARIABLES]).
      validate_shape: When False, the variable's shape is unknown.
      caching_device: Reads for other devices are made on this device.
      name: The variable's name (default "Variable").
      dtype: The dtype of the initial value (converted to it).
      variable_def: Rebuild the variable from a `VariableDef` of this graph instead.
      import_scope: Prefix of the names in `variable_def`.
      constraint: A function applied to the value after optimizer updates.
      shape: The variable's static shape (default: the initial value's).
    """

    def __init__(self, initial_value=None, trainable=None, collections=None,
                 validate_shape=True, caching_device=None, name=None, dtype=None,
                 variable_def=None, import_scope=None, constraint=None, distribute_strategy=None,
                 synchronization=None, aggregation=None, shape=None, expected_shape=None,
                 use_resource=None):
        if variable_def is not None:
            self._init_from_def(variable_def, import_scope)
            return
        collections = self._init_common(initial_value, trainable, collections, constraint,
                                        synchronization, aggregation, name)
        self._caching_device = caching_device
        self._cached_value = None
        init_from_fn = callable(initial_value)
        with init_scope():
            g = get_default_graph()
            with name_scope(name, "Variable", [] if init_from_fn else [initial_value]) as scope:
                handle_name = scope[:-1]
                with g._attr_scope({"_class": ["loc:@" + handle_name]}):
                    with name_scope("Initializer"), g.device(None):
                        value = initial_value() if init_from_fn else initial_value
                        if isinstance(value, Variable):
                            value = value.initialized_value()
                        self._initial_value = convert_to_tensor(value, name="initial_value",
                                                                dtype=dtype)
                    if not init_from_fn:
                        check_not_in_control_flow(self._initial_value, handle_name)
                    var_shape = self._initial_value._shape
                    if shape is not None:
                        var_shape = tensor_shape.as_shape(shape)
                    elif not validate_shape:
                        var_shape = tensor_shape.unknown_shape()
                    self._dtype = self._initial_value.dtype.base_dtype
                    self._shape = var_shape
                    self._handle = rvo.var_handle_op(self._dtype, var_shape,
                                                     shared_name=handle_name, name=scope)
                self._variable = self._handle
                with name_scope("IsInitialized"):
                    self._is_initialized_op = rvo.var_is_initialized_op(self._handle)
                with name_scope("Assign") as n, g.colocate_with(self._handle.op):
                    self._initializer_op = rvo.assign_variable_op(
                        self._handle,
                        _try_guard_against_uninitialized_dependencies(scope,
                                                                      self._initial_value),
                        name=n)
                with name_scope("Read"), g.colocate_with(self._handle.op):
                    with g.device(self._handle.device or None):
                        self._graph_element = self._read_variable_op()
                    if caching_device is not None:
                        # As TF: the cached copy ignores the colocation and device scopes
                        # around the variable.
                        with g.colocate_with(None, ignore_existing=True), \
                                g.device(caching_device):
                            self._cached_value = array_ops.identity(self._graph_element)
                self._snapshot = self._graph_element
        g.add_to_collections(collections, self)

    def _init_from_def(self, variable_def, import_scope):
        g = get_default_graph()

        def scoped(n):
            return (import_scope + "/" + n) if import_scope else n

        self._handle = g.as_graph_element(scoped(variable_def.variable_name))
        self._variable = self._handle
        self._dtype = dtypes.as_dtype(self._handle.op.get_attr("dtype"))
        self._shape = tensor_shape.as_shape(self._handle.op.get_attr("shape"))
        self._initializer_op = g.as_graph_element(scoped(variable_def.initializer_name))
        snap = variable_def.snapshot_name
        self._graph_element = g.as_graph_element(scoped(snap)) if snap else None
        self._snapshot = self._graph_element
        iv = getattr(variable_def, "initial_value_name", "")
        self._initial_value = g.as_graph_element(scoped(iv)) if iv else None
        self._is_initialized_op = None
        self._cached_value = None
        self._trainable = getattr(variable_def, "trainable", True)
        from flowloom.variable_enums import VariableAggregation, VariableSynchronization

        self._synchronization = VariableSynchronization(
            getattr(variable_def, "synchronization", 0))
        self._aggregation = VariableAggregation(getattr(variable_def, "aggregation", 0))
        self._constraint = None
        self._caching_device = None
        from flowloom.variables import _slice_info_of

        self._save_slice_info = _slice_info_of(variable_def, import_scope)

    # -- graph elements ------------------------------------------------------------------
    @property
    def handle(self):
        """The `resource` tensor of the variable."""
        return self._handle

    def _as_graph_element(self):
        return self._graph_element

    def _ref(self):
        return self._handle

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def set_shape(self, shape):
        raise NotImplementedError("ResourceVariable.set_shape (TF 1.15 has none either)")

    @property
    def create(self):
        return self._initializer_op

    def _read_variable_op(self):
        return rvo.read_variable_op(self._handle, self._dtype)

    def value(self):
        """A fresh read of the variable (ReadVariableOp), on the handle's device; with a
        caching device, the copy made there at creation."""
        if self._cached_value is not None:
            return self._cached_value
        g = get_default_graph()
        with g.colocate_with(None, ignore_existing=True), g.device(self._handle.device or None):
            return self._read_variable_op()

    def read_value(self):
        """The variable's value as an Identity of a fresh read (`Read/ReadVariableOp`)."""
        with name_scope("Read"):
            value = self._read_variable_op()
        return array_ops.identity(value)

    def _AsTensor(self):  # noqa: N802 - TF's name
        return self._graph_element

    def sparse_read(self, indices, name=None):
        """The rows `indices` of the variable (op type ResourceGather); its gradient is
        IndexedSlices."""
        with name_scope("Gather" if name is None else name) as n:
            value = rvo.resource_gather(self._handle, indices, self._dtype, name=n)
        return array_ops.identity(value)

    def gather_nd(self, indices, name=None):
        """`tf.gather_nd` of the variable (op type ResourceGatherNd)."""
        with name_scope("GatherNd" if name is None else name) as n:
            value = rvo.resource_gather_nd(self._handle, indices, self._dtype, name=n)
        return array_ops.identity(value)

    def is_initialized(self, name=None):
        """A bool tensor: whether the variable holds a value."""
        return rvo.var_is_initialized_op(self._handle, name=name)

    def initialized_value(self):
        """The variable's value, initializing it first if needed (for initial values of others)."""
        from flowloom.ops.control_flow import cond

        with init_scope():
            return cond.cond(self.is_initialized(), self.read_value,
                             lambda: self._initial_value)

    def eval(self, session=None):
        """The variable's value in `session` (or the default session)."""
        return self._graph_element.eval(session=session)

    def load(self, value, session=None):
        """Writes `value` into the variable by running its initializer with `value` fed."""
        from flowloom.runtime.session import _session_for

        session = _session_for(session, self.graph)
        session.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    # -- updates -------------------------------------------------------------------------
    def _lazy_read(self, op, read_value):
        """What an update returns: `op` itself, or (as TF) the variable as it is after
        `op`, an UnreadVariable whose every read waits for `op`."""
        if not read_value:
            return op
        return UnreadVariable(self, op)

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Stores `value` (AssignVariableOp); returns the new value, or the op when
        `read_value` is False.

        Raises:
          ValueError: If `value`'s shape is not compatible with the variable's.
        """
        value = convert_to_tensor(value, dtype=self._dtype)
        self._shape.assert_is_compatible_with(value._shape)
        return self._lazy_read(rvo.assign_variable_op(self._handle, value, name=name),
                               read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Adds `delta` (AssignAddVariableOp); returns the new value or the op."""
        delta = convert_to_tensor(delta, dtype=self._dtype)
        return self._lazy_read(rvo.assign_add_variable_op(self._handle, delta, name=name),
                               read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtracts `delta` (AssignSubVariableOp); returns the new value or the op."""
        delta = convert_to_tensor(delta, dtype=self._dtype)
        return self._lazy_read(rvo.assign_sub_variable_op(self._handle, delta, name=name),
                               read_value)

    def _scatter(self, op_type, sparse_delta, use_locking=None, name=None):
        if not (hasattr(sparse_delta, "indices") and hasattr(sparse_delta, "values")):
            raise TypeError("sparse_delta is not IndexedSlices: %s" % sparse_delta)
        values = convert_to_tensor(sparse_delta.values, dtype=self._dtype)
        return self._lazy_read(
            rvo.resource_scatter(op_type, self._handle, sparse_delta.indices, values, name=name),
            True)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        """Adds the IndexedSlices `sparse_delta` (ResourceScatterAdd); returns the value."""
        return self._scatter("ResourceScatterAdd", sparse_delta, use_locking, name)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        """Subtracts the IndexedSlices `sparse_delta` (ResourceScatterSub)."""
        return self._scatter("ResourceScatterSub", sparse_delta, use_locking, name)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Assigns the rows of the IndexedSlices `sparse_delta` (ResourceScatterUpdate)."""
        return self._scatter("ResourceScatterUpdate", sparse_delta, use_locking, name)

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        """Multiplies rows by the IndexedSlices `sparse_delta` (ResourceScatterMul)."""
        return self._scatter("ResourceScatterMul", sparse_delta, use_locking, name)

    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        """Divides rows by the IndexedSlices `sparse_delta` (ResourceScatterDiv)."""
        return self._scatter("ResourceScatterDiv", sparse_delta, use_locking, name)

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        """Element-wise minimum with the IndexedSlices `sparse_delta` (ResourceScatterMin)."""
        return self._scatter("ResourceScatterMin", sparse_delta, use_locking, name)

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        """Element-wise maximum with the IndexedSlices `sparse_delta` (ResourceScatterMax)."""
        return self._scatter("ResourceScatterMax", sparse_delta, use_locking, name)

    def count_up_to(self, limit):
        """Increments this variable until it reaches `limit` (op ResourceCountUpTo)."""
        from flowloom.ops.state.state_ops import count_up_to

        return count_up_to(self, limit)

    def to_proto(self, export_scope=None):
        """A `VariableDef` with is_resource set."""
        proto = super().to_proto(export_scope)
        if proto is not None:
            proto.is_resource = True
        return proto

    def __repr__(self):
        return "<tf.Variable '%s' shape=%s dtype=%s>" % (self.name, self.shape, self.dtype.name)

    def __bool__(self):
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed.")


class UnreadVariable(ResourceVariable):
    """The value of a resource variable after an update (TF's `_UnreadVariable`): what
    `v.assign(...)`, `v.assign_add(...)` and the scatters return. It is the variable (same
    handle, shape and dtype) with every read made after the update: `sess.run` of it fetches
    a read that waits for the update, and `read_value()`, `value()` or using it as a tensor
    add a fresh read that does. `op` and `name` are the update's.

    Example:
      v = tf.Variable(0.0, use_resource=True)
      inc = v.assign_add(1.0)
      twice = inc.read_value() * 2.0   # reads v after the increment
    """

    def __init__(self, variable, parent_op):  # noqa: D107 - built by _lazy_read only
        self.__dict__.update(variable.__dict__)
        self._parent_op = parent_op
        # As TF's: no initializer, initial value, slice or constraint of its own.
        self._cached_value = self._initializer_op = self._initial_value = None
        self._is_initialized_op = self._save_slice_info = self._constraint = None
        self._graph_element = self._read_variable_op()
        self._snapshot = self._graph_element

    @property
    def name(self):
        return self._parent_op.name

    @property
    def op(self):
        """The update op."""
        return self._parent_op

    def value(self):
        return self._read_variable_op()

    def read_value(self):
        return self._read_variable_op()

    def _read_variable_op(self):
        with control_dependencies([self._parent_op]):
            return rvo.read_variable_op(self._handle, self._dtype)


ResourceVariable.__getitem__ = lambda self, key: array_ops._slice_helper(self.value(), key,
                                                                       var=self)


def _resource_strided_slice_assign(self, begin, end, strides, value, name, **masks):
    from flowloom.ops.state import slice_assign_ops

    op = slice_assign_ops.resource_strided_slice_assign(
        self.handle, begin, end, strides, slice_assign_ops.value_for(self, value), name=name,
        **masks)
    with control_dependencies([op]):
        return rvo.read_variable_op(self.handle, self.dtype.base_dtype)


ResourceVariable._strided_slice_assign = _resource_strided_slice_assign


def _to_tensor(v, dtype=None, name=None, as_ref=False):
    if dtype is not None and not dtype.is_compatible_with(v.dtype):
        raise ValueError(f"Incompatible type conversion requested to type '{dtype.name}' for "
                         f"variable of type '{v.dtype.name}'")
    return v._handle if as_ref else v.value()


register_tensor_conversion_function(ResourceVariable, _to_tensor, priority=50)


def is_resource_variable(var):
    """True for a ResourceVariable (TF's resource_variable_ops.is_resource_variable)."""
    return isinstance(var, ResourceVariable)


def is_resource_target(x):
    """True when `x` is updated through a handle: a ResourceVariable or a `resource` tensor."""
    return isinstance(x, ResourceVariable) or (
        isinstance(x, Tensor) and x._dtype.base_dtype == dtypes.resource)


def resource_handle(x):
    """The `resource` tensor of a ResourceVariable (or `x` itself when it is one)."""
    return x._handle if isinstance(x, ResourceVariable) else x


BaseResourceVariable = ResourceVariable


_SCATTERS = {"ScatterAdd": "ResourceScatterAdd", "ScatterSub": "ResourceScatterSub",
             "ScatterUpdate": "ResourceScatterUpdate", "ScatterMul": "ResourceScatterMul",
             "ScatterDiv": "ResourceScatterDiv", "ScatterMin": "ResourceScatterMin",
             "ScatterMax": "ResourceScatterMax"}


def resource_update(kind, target, value, name=None, indices=None):
    """`tf.assign`/`assign_add`/`assign_sub`/`scatter_*` of a resource target: the update op
    on its handle, then (as TF) a read of the value after it.

    `kind` is "assign", "assign_add", "assign_sub" or a ref scatter op type ("ScatterAdd").
    """
    handle = resource_handle(target)
    dtype = rvo.handle_dtype(handle)
    value = convert_to_tensor(value, dtype=dtype)
    if isinstance(target, ResourceVariable) and kind == "assign":
        target._shape.assert_is_compatible_with(value._shape)
    if kind == "assign":
        op = rvo.assign_variable_op(handle, value, name=name)
    elif kind == "assign_add":
        op = rvo.assign_add_variable_op(handle, value, name=name)
    elif kind == "assign_sub":
        op = rvo.assign_sub_variable_op(handle, value, name=name)
    elif kind in _SCATTERS:
        op = rvo.resource_scatter(_SCATTERS[kind], handle, indices, value, name=name)
    else:
        raise NotImplementedError(f"{kind} of a resource variable")
    if isinstance(target, ResourceVariable):
        return target._lazy_read(op, True)  # TF: ref.assign_add(value) and the like
    with control_dependencies([op]):
        return rvo.read_variable_op(handle, dtype)
