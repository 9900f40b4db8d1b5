"""The variable store: the variables `tf.get_variable` made in a graph, by full name.

`tf.get_variable` finds or creates a variable here (with TF's reuse, shape and dtype checks);
the variable scope (flowloom/variable_scope.py) gives the name and the defaults. A graph has
one default store; `EagerVariableStore().as_default()` puts another in its place for a block
(TF's object-oriented store: its variables can be listed and copied).
"""

import contextlib
import threading

from flowloom.framework import dtypes
from flowloom.framework import tensor_shape
from flowloom.framework.graph import GraphKeys, get_default_graph, init_scope, name_scope
from flowloom.framework.user_stack import format_sites, user_sites
from flowloom.ops.state import init_ops
from flowloom.partitioned_variables import get_partitioned_variable
from flowloom.variable_creator import default_variable_creator
from flowloom.variable_enums import validate_synchronization_aggregation_trainable
from flowloom.variables import Variable

_STORE_KEY = ("__variable_store",)


class _VariableStore:
    """The variables created by get_variable in one graph, by full name (shared by threads:
    creating or finding a variable happens under its lock)."""

    def __init__(self):
        self._vars = {}
        self._partitioned_vars = {}
        self._lock = threading.RLock()

    def get_variable(self, name, shape=None, dtype=dtypes.float32, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None,
                     synchronization=None, aggregation=None):
        synchronization, aggregation, trainable = \
            validate_synchronization_aggregation_trainable(synchronization, aggregation,
                                                           trainable, name)
        if custom_getter is None:
            return self._true_getter(name, shape, dtype, initializer, regularizer, reuse,
                                     trainable, collections, caching_device, partitioner,
                                     validate_shape, use_resource, constraint, synchronization,
                                     aggregation)
        if not callable(custom_getter):
            raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
        return custom_getter(self._true_getter, name, shape=shape, dtype=dtype,
                             initializer=initializer, regularizer=regularizer, reuse=reuse,
                             trainable=trainable, collections=collections,
                             caching_device=caching_device, partitioner=partitioner,
                             validate_shape=validate_shape, constraint=constraint,
                             use_resource=use_resource, synchronization=synchronization,
                             aggregation=aggregation)

    def _true_getter(self, name, shape=None, dtype=dtypes.float32, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, constraint=None, synchronization=None,
                     aggregation=None, **kwargs):
        """The getter a custom getter is handed (TF's `_true_getter`): a partitioned or a
        single variable `name`, found or created."""
        if partitioner is not None and not (isinstance(shape, (list, tuple)) and not shape):
            if not callable(partitioner):
                raise ValueError(f"Partitioner must be callable, but received: {partitioner}")
            partitioned = True
        else:  # (a scalar is never partitioned)
            partitioned = False
        # Reusing a partitioned variable needs no partitioner.
        if partitioned or (reuse is True and name in self._partitioned_vars):
            with name_scope(None):
                return get_partitioned_variable(
                    self, name, partitioner if partitioned else None, shape, dtype,
                    initializer, regularizer, reuse, trainable, collections,
                    caching_device, validate_shape, use_resource, constraint,
                    synchronization, aggregation)
        if name + "/part_0" in self._vars:
            raise ValueError("No partitioner was provided, but a partitioned version of "
                             f"the variable was found: {name}/part_0. Perhaps a variable "
                             "of the same name was already created with partitioning?")
        lock = self._lock  # (acquire/release: cheaper than `with` on the hot path)
        lock.acquire()
        try:
            return self._get_or_create_variable(
                name, shape, dtype, initializer, regularizer, reuse, trainable, collections,
                caching_device, validate_shape, constraint, use_resource, synchronization,
                aggregation)
        finally:
            lock.release()

    def _get_single_variable(self, *args):
        with self._lock:
            return self._get_or_create_variable(*args)

    def _get_or_create_variable(self, name, shape, dtype, initializer, regularizer, reuse,
                                trainable, collections, caching_device, validate_shape,
                                constraint, use_resource=None, synchronization=None,
                                aggregation=None, partition_info=None):
        initializing_from_value = initializer is not None and not callable(initializer) and \
            not isinstance(initializer, type)
        shape = tensor_shape.as_shape(shape) if shape is not None else \
            tensor_shape.unknown_shape()
        if initializing_from_value and shape.ndims is not None and shape.dims:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = dtypes.as_dtype(dtype)
        if name in self._vars:
            if reuse is False:
                var = self._vars[name]
                where = format_sites(getattr(var, "_defined_at", ()))
                raise ValueError(
                    f"Variable {name} already exists, disallowed. Did you mean to set "
                    f"reuse=True or reuse=tf.AUTO_REUSE in VarScope? Originally defined at:"
                    f"\n\n{where}")
            found = self._vars[name]
            if not shape.is_compatible_with(found.get_shape()):
                raise ValueError(f"Trying to share variable {name}, but specified shape {shape} "
                                 f"and found shape {found.get_shape()}.")
            if not dtype.is_compatible_with(found.dtype):
                raise ValueError(f"Trying to share variable {name}, but specified dtype "
                                 f"{dtype.name} and found dtype {found.dtype.base_dtype.name}.")
            return found
        if reuse is True:
            raise ValueError(f"Variable {name} does not exist, or was not created with "
                             "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in "
                             "VarScope?")
        if initializer is None:
            if dtype.is_floating:
                initializer = init_ops.glorot_uniform_initializer()
            elif dtype.is_integer or dtype.is_unsigned or dtype.is_bool or \
                    dtype.base_dtype == dtypes.string:
                initializer = init_ops.zeros_initializer()
            else:
                raise ValueError(f"An initializer for variable {name} of {dtype.base_dtype!r} is "
                                 "required")
        if initializing_from_value:
            init_val = initializer
            variable_dtype = None
        else:
            if isinstance(initializer, type):
                initializer = initializer(dtype=dtype)
            if shape.is_fully_defined():
                def init_val():
                    return initializer(shape.as_list(), dtype=dtype,
                                       partition_info=partition_info)
                variable_dtype = dtype.base_dtype
            elif _takes_no_required_args(initializer):
                # As TF: a callable whose arguments all have defaults gives the value itself.
                init_val = initializer
                variable_dtype = None
            else:
                raise ValueError(
                    "The initializer passed is not valid. It should be a callable with no "
                    "arguments and the shape should not be provided or an instance of "
                    "`tf.keras.initializers.*' and `shape` should be fully defined.")
        # `tf.Variable(...)`, through the variable creators when a scope opened some, else
        # straight to the default creator (what the empty stack would call).
        create = Variable if get_default_graph()._variable_creator_stack else \
            default_variable_creator
        v = create(initial_value=init_val, name=name, trainable=trainable,
                   collections=collections, caching_device=caching_device,
                   dtype=variable_dtype, validate_shape=validate_shape, constraint=constraint,
                   use_resource=use_resource, synchronization=synchronization,
                   aggregation=aggregation)
        # As TF: the first 5 frames outside the library, formatted only if an error needs them.
        v._defined_at = user_sites(5)
        self._vars[name] = v
        if regularizer:
            # As TF: the loss is colocated with the variable, lifted out of control flow.
            g = get_default_graph()
            with g.colocate_with(v), name_scope(name + "/Regularizer/"), init_scope():
                loss = regularizer(v)
            if loss is not None:
                g.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return v


def _takes_no_required_args(fn):
    import inspect

    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in params)


def _get_default_variable_store():
    """The variable store of the default graph (made on first use)."""
    g = get_default_graph()
    store = g._collections.get(_STORE_KEY)
    if store is None:
        with g._lock:
            store = g._collections.setdefault(_STORE_KEY, _VariableStore())
    return store


@contextlib.contextmanager
def with_variable_store(store):
    """Makes `store` (a `_VariableStore`) the default graph's variable store in the block."""
    g = get_default_graph()
    with g._lock:
        old = g._collections.get(_STORE_KEY)
        g._collections[_STORE_KEY] = store
    try:
        yield
    finally:
        with g._lock:
            if old is None:
                g._collections.pop(_STORE_KEY, None)
            else:
                g._collections[_STORE_KEY] = old


class EagerVariableStore:
    """A variable store as an object: `tf.get_variable` inside `store.as_default()` finds
    and creates variables in it instead of the graph's store (in graph mode, the variables
    also join their collections as usual).

    Example:
      store = EagerVariableStore()
      with store.as_default():
          w = tf.get_variable("w", [2])
      store.variables()   # [w]
    """

    def __init__(self, store=None):
        if store is not None:
            if not getattr(store, "_store_eager_variables", False):
                raise ValueError("Cannot construct EagerVariableStore from a VariableStore "
                                 "object that does not hold eager variables.")
            self._store = store
        else:
            self._store = _VariableStore()
        self._store._store_eager_variables = True

    def as_default(self):
        """A context manager that makes this the store of `tf.get_variable`."""
        return with_variable_store(self._store)

    def variables(self):
        """The store's variables, sorted by name."""
        return sorted(self._store._vars.values(), key=lambda v: v.name)

    def trainable_variables(self):
        return [v for v in self.variables() if v.trainable]

    def non_trainable_variables(self):
        return [v for v in self.variables() if not v.trainable]

    def copy(self):
        """A new store holding a new resource variable per variable of this one: same name
        (uniquified by the graph), trainable flag, and the value it has when initialized."""
        from flowloom.resource_variable import ResourceVariable

        new_store = EagerVariableStore()
        for key, var in self._store._vars.items():
            new_store._store._vars[key] = ResourceVariable(
                var.read_value(), name=var.name.partition(":")[0], trainable=var.trainable)
        return new_store
