"""`tf.variable_scope` and `tf.get_variable`: named, shareable variables.

Variable names depend on the variable scope only, never on the name scope; a variable
scope also opens a name scope of the same name for the ops created inside it.
"""

import enum
import threading

from flowloom.framework import dtypes
from flowloom.framework.graph import (_VALID_OP_NAME, GraphKeys, _valid_scope_names,
                                      get_default_graph, name_scope)
from flowloom.partitioned_variables import _PartitionInfo  # noqa: F401
from flowloom.variable_creator import variable_creator_scope  # noqa: F401
from flowloom.variable_enums import (VariableAggregation,  # noqa: F401
                                     VariableSynchronization)
from flowloom.variable_store import (_STORE_KEY, EagerVariableStore,  # noqa: F401
                                     _get_default_variable_store,
                                     _VariableStore, with_variable_store)
from flowloom.variables import Variable


class _ReuseMode(enum.Enum):
    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


class VariableScope:
    """The state of one variable scope: its name, reuse flag and defaults for get_variable."""

    def __init__(self, reuse, name="", initializer=None, regularizer=None, caching_device=None,
                 partitioner=None, custom_getter=None, name_scope="", dtype=dtypes.float32,
                 use_resource=None, constraint=None):
        self._name = name
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    @property
    def name(self):
        return self._name

    @property
    def original_name_scope(self):
        return self._name_scope

    @property
    def reuse(self):
        return self._reuse

    @property
    def initializer(self):
        return self._initializer

    @property
    def dtype(self):
        return self._dtype

    @property
    def regularizer(self):
        return self._regularizer

    @property
    def caching_device(self):
        return self._caching_device

    @property
    def partitioner(self):
        return self._partitioner

    @property
    def custom_getter(self):
        return self._custom_getter

    @property
    def use_resource(self):
        return self._use_resource

    @property
    def constraint(self):
        return self._constraint

    def reuse_variables(self):
        """Makes get_variable in this scope return existing variables from now on."""
        self._reuse = True

    def set_initializer(self, initializer):
        self._initializer = initializer

    def set_dtype(self, dtype):
        self._dtype = dtype

    def set_regularizer(self, regularizer):
        self._regularizer = regularizer

    def get_collection(self, name):
        """The items of graph collection `name` whose names are under this scope."""
        scope = self._name + "/" if self._name else ""
        return get_default_graph().get_collection(name, scope)

    def trainable_variables(self):
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self):
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self):
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def set_caching_device(self, caching_device):
        self._caching_device = caching_device

    def set_partitioner(self, partitioner):
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter):
        self._custom_getter = custom_getter

    def set_use_resource(self, use_resource):
        self._use_resource = use_resource

    def _get_partitioned_variable(self, var_store, name, **kwargs):
        from flowloom.partitioned_variables import scope_get_partitioned_variable

        return scope_get_partitioned_variable(self, var_store, name, **kwargs)

    def get_variable(self, var_store, name, shape=None, dtype=None, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None,
                     synchronization=VariableSynchronization.AUTO,
                     aggregation=VariableAggregation.NONE):
        """The variable `name` of this scope in `var_store` (see `tf.get_variable`): the
        arguments left unset take this scope's defaults."""
        if dtype is not None and initializer is not None and not callable(initializer):
            # As TF, before the scope's defaults apply: a value and an explicit dtype agree.
            from flowloom.framework.ops import convert_to_tensor

            init_dtype = convert_to_tensor(initializer).dtype.base_dtype
            if init_dtype != dtypes.as_dtype(dtype):
                raise ValueError(f"Initializer type '{init_dtype!r}' and explicit dtype "
                                 f"'{dtypes.as_dtype(dtype)!r}' don't match.")
        if regularizer is None:
            regularizer = self._regularizer
        if caching_device is None:
            caching_device = self._caching_device
        if partitioner is None:
            partitioner = self._partitioner
        if custom_getter is None:
            custom_getter = self._custom_getter
        if reuse is None:
            reuse = self._reuse
        if dtype is None:
            dtype = self._dtype
        if initializer is None:
            initializer = self._initializer
        if constraint is None:
            constraint = self._constraint
        if use_resource is None:
            use_resource = self._use_resource
        full_name = self._name + "/" + name if self._name else name
        # Variable names depend on the variable scope only: reset the name scope (what
        # `Graph.name_scope(None)` does, without its context object).
        state = get_default_graph()._thread_local
        saved = state.name_stack
        state.name_stack = ""
        try:
            return var_store.get_variable(
                full_name, shape, dtype, initializer, regularizer, reuse, trainable,
                collections, caching_device, partitioner, validate_shape, use_resource,
                custom_getter, constraint, synchronization, aggregation)
        finally:
            state.name_stack = saved


class _VariableScopeStore(threading.local):
    """The current variable scope and the scope counts: per graph and per thread, as in TF."""

    def __init__(self):
        super().__init__()
        self.current_scope = VariableScope(False)
        self.variable_scopes_count = {}
        # name -> the names one level below it (by name) opened since it was last closed, so
        # that closing a scope visits only its own subscopes, not every scope of the graph.
        self._below = {}

    def open_variable_scope(self, scope_name):
        counts = self.variable_scopes_count
        counts[scope_name] = counts.get(scope_name, 0) + 1
        name = scope_name
        while name:
            parent = name.rpartition("/")[0]
            below = self._below.get(parent)
            if below is None:
                below = self._below[parent] = set()
            elif name in below:
                break
            below.add(name)
            name = parent

    def close_variable_subscopes(self, scope_name):
        """Resets the counts of every scope under `scope_name` (all scopes for the root)."""
        counts = self.variable_scopes_count
        if not scope_name:
            for k in counts:
                counts[k] = 0
            self._below.clear()
            return
        todo = [scope_name]
        while todo:
            for k in self._below.pop(todo.pop(), ()):
                if k in counts:
                    counts[k] = 0
                todo.append(k)

    def variable_scope_count(self, scope_name):
        return self.variable_scopes_count.get(scope_name, 0)


_SCOPE_KEY = ("__varscope",)


def _get_variable_scope_store():
    g = get_default_graph()
    store = g._collections.get(_SCOPE_KEY)
    if store is None:
        with g._lock:
            store = g._collections.setdefault(_SCOPE_KEY, _VariableScopeStore())
    return store


def get_variable_scope():
    """Returns the current VariableScope (of this thread, in the default graph)."""
    return _get_variable_scope_store().current_scope


def _set_variable_scope(scope):
    _get_variable_scope_store().current_scope = scope


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                 trainable=None, collections=None, caching_device=None, partitioner=None,
                 validate_shape=True, use_resource=None, custom_getter=None, constraint=None,
                 synchronization=VariableSynchronization.AUTO,
                 aggregation=VariableAggregation.NONE):
    """Gets an existing variable or creates a new one, named by the variable scope.

    Args:
      name: the variable's name within the current variable scope.
      shape, dtype, initializer: used when creating (initializer defaults to the scope's, then
        glorot_uniform for floats and zeros for integers).
    Returns:
      The Variable `scope/name`.
    Raises:
      ValueError: creating a variable that exists without reuse, reusing one that does not
        exist, or a shape or dtype that differs from the existing variable's.
    """
    collections_of_graph = get_default_graph()._collections
    store = collections_of_graph.get(_STORE_KEY)
    scopes = collections_of_graph.get(_SCOPE_KEY)
    if store is None or scopes is None:
        store, scopes = _get_default_variable_store(), _get_variable_scope_store()
    return scopes.current_scope.get_variable(
        store, name, shape, dtype, initializer, regularizer, None, trainable, collections,
        caching_device, partitioner, validate_shape, use_resource, custom_getter, constraint,
        synchronization, aggregation)


def variable(*args, **kwargs):
    """A TF1 variable from `tf.Variable`'s arguments, as TF's variable_scope.variable."""
    return Variable(*args, **kwargs)


def _get_partitioned_variable(name, shape=None, dtype=None, initializer=None, **kwargs):
    """The PartitionedVariable `name` of the current scope (`create_partitioned_variables`)."""
    return get_variable_scope()._get_partitioned_variable(
        _get_default_variable_store(), name, shape=shape, dtype=dtype, initializer=initializer,
        **kwargs)


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                       trainable=False, collections=None, caching_device=None,
                       partitioner=None, validate_shape=True, use_resource=None,
                       custom_getter=None, constraint=None,
                       synchronization=VariableSynchronization.AUTO,
                       aggregation=VariableAggregation.NONE):
    """`get_variable` for a non-trainable variable in LOCAL_VARIABLES (plus `collections`);
    the same arguments as `get_variable` (`trainable` is ignored, as TF)."""
    del trainable
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                        regularizer=regularizer, trainable=False, collections=collections,
                        caching_device=caching_device, partitioner=partitioner,
                        validate_shape=validate_shape, use_resource=use_resource,
                        custom_getter=custom_getter, constraint=constraint,
                        synchronization=synchronization, aggregation=aggregation)


def _get_unique_variable_scope(prefix):
    store = _get_variable_scope_store()
    current = get_variable_scope()
    name = current.name + "/" + prefix if current.name else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    idx = 1
    while store.variable_scope_count(name + "_%d" % idx) > 0:
        idx += 1
    return prefix + "_%d" % idx


class _pure_variable_scope:  # noqa: N801 - TF's name (a context, entered once per scope)
    """Makes a VariableScope current (opening no name scope): `name_or_scope` below the
    current one, or a VariableScope object re-entered."""

    __slots__ = ("_name_or_scope", "_reuse", "_initializer", "_regularizer", "_caching_device",
                 "_partitioner", "_custom_getter", "_old_name_scope", "_dtype", "_use_resource",
                 "_constraint", "_exits")

    def __init__(self, name_or_scope, reuse=None, initializer=None, regularizer=None,
                 caching_device=None, partitioner=None, custom_getter=None,
                 old_name_scope=None, dtype=dtypes.float32, use_resource=None,
                 constraint=None):
        self._name_or_scope = name_or_scope
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._old_name_scope = old_name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        self._exits = []  # per open __enter__: (store, scope before, name, counts before)

    def __enter__(self):
        store = _get_variable_scope_store()
        old = store.current_scope
        name_or_scope, reuse, old_name_scope = self._name_or_scope, self._reuse, \
            self._old_name_scope
        old_counts = None
        if isinstance(name_or_scope, VariableScope):
            new_name = name_or_scope._name
            # Re-entering a scope object: its sub-scope numbering resumes after it (as TF).
            old_counts = dict(store.variable_scopes_count)
            store.open_variable_scope(new_name)
            scope = VariableScope(
                reuse if reuse else name_or_scope._reuse, name=new_name,
                initializer=name_or_scope._initializer,
                regularizer=name_or_scope._regularizer,
                caching_device=name_or_scope._caching_device,
                partitioner=name_or_scope._partitioner,
                custom_getter=name_or_scope._custom_getter,
                name_scope=name_or_scope._name_scope if old_name_scope is None
                else old_name_scope,
                dtype=name_or_scope._dtype, use_resource=name_or_scope._use_resource,
                constraint=name_or_scope._constraint)
        else:
            new_name = old._name + "/" + name_or_scope if old._name else name_or_scope
            store.open_variable_scope(new_name)
            # Reuse is inherited by sub-scopes.
            scope = VariableScope(
                reuse or old._reuse, name=new_name, initializer=old._initializer,
                regularizer=old._regularizer, caching_device=old._caching_device,
                partitioner=old._partitioner, custom_getter=old._custom_getter,
                name_scope=name_or_scope if old_name_scope is None else old_name_scope,
                dtype=old._dtype, use_resource=old._use_resource, constraint=old._constraint)
        if self._initializer is not None:
            scope._initializer = self._initializer
        if self._regularizer is not None:
            scope._regularizer = self._regularizer
        if self._caching_device is not None:
            scope._caching_device = self._caching_device
        if self._partitioner is not None:
            scope._partitioner = self._partitioner
        custom_getter = self._custom_getter
        if custom_getter is not None:
            outer = scope._custom_getter
            if outer is None:
                scope._custom_getter = custom_getter
            else:
                def nested(getter, *args, **kwargs):
                    return custom_getter(lambda *a, **k: outer(getter, *a, **k), *args,
                                         **kwargs)
                scope._custom_getter = nested
        if self._dtype is not None:
            scope._dtype = self._dtype
        if self._use_resource is not None:
            scope._use_resource = self._use_resource
        if self._constraint is not None:
            scope._constraint = self._constraint
        store.current_scope = scope
        self._exits.append((store, old, new_name, old_counts))
        return scope

    def __exit__(self, *exc):
        store, old, new_name, old_counts = self._exits.pop()
        if old_counts is not None:
            store.variable_scopes_count = old_counts
        else:
            store.close_variable_subscopes(new_name)
        store.current_scope = old
        return False


class variable_scope:  # noqa: N801 - TF's spelling
    """A context for variables: `get_variable` names and reuse, plus a name scope for ops.

    Example:
      with tf.variable_scope("model") as scope:
          out1 = my_image_filter(input1)
          scope.reuse_variables()
          out2 = my_image_filter(input2)      # shares model/conv1/weights, ...
    """

    def __init__(self, name_or_scope, default_name=None, values=None, initializer=None,
                 regularizer=None, caching_device=None, partitioner=None, custom_getter=None,
                 reuse=None, dtype=None, use_resource=None, constraint=None,
                 auxiliary_name_scope=True):
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._values = values
        self._kwargs = dict(initializer=initializer, regularizer=regularizer,
                            caching_device=caching_device, partitioner=partitioner,
                            custom_getter=custom_getter, dtype=dtype,
                            use_resource=use_resource, constraint=constraint)
        if reuse is False:
            reuse = None  # False means "inherit" in TF1.
        self._reuse = reuse
        self._auxiliary_name_scope = auxiliary_name_scope
        if self._default_name is None and self._name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if not (self._reuse is True or self._reuse is None or self._reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if self._values is None:
            self._values = []
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError("The auxiliary_name_scope must be `True` or `False`, while get "
                            f"{auxiliary_name_scope}")
        self._stack = []
        self._entered = []  # the VariableScope each open __enter__ made current
        # A name and nothing else (most scopes a model opens): see _enter_named.
        self._plain = name_or_scope.__class__ is str and not self._values and \
            auxiliary_name_scope is True and name_or_scope and name_or_scope[-1] != "/" and \
            initializer is None and regularizer is None and caching_device is None and \
            partitioner is None and custom_getter is None and dtype is None and \
            use_resource is None and constraint is None

    def __enter__(self):
        if self._plain:
            scope = self._enter_named()
            if scope is not None:
                return scope
        exits = []  # the contexts this __enter__ entered, innermost last
        self._stack.append(exits)
        try:
            if self._values:
                from flowloom.framework.graph import _graph_of

                g = _graph_of(self._values)
                if g is not get_default_graph():
                    _enter(exits, g.as_default())
            scope = self._enter(exits)
            self._entered.append(scope)
            return scope
        except BaseException:
            _exit_all(self._stack.pop())
            raise

    def _enter_named(self):
        """What the general path does for a plain name (its name scope, then a VariableScope
        below the current one), the state changed in place; None (nothing done) when the
        name is not yet known to pass the name-scope check at the root."""
        name = self._name_or_scope
        valid = _valid_scope_names
        if name not in valid:
            if not _VALID_OP_NAME.match(name):
                return None  # (the general path checks it, and raises)
            if len(valid) < 65536:
                valid.add(name)
        g = get_default_graph()
        state = g._thread_local
        old_name_stack = state.name_stack
        state.name_stack = ns = g.unique_name(name)
        store = _get_variable_scope_store()
        old = store.current_scope
        new_name = old._name + "/" + name if old._name else name
        store.open_variable_scope(new_name)
        scope = VariableScope(self._reuse or old._reuse, new_name, old._initializer,
                              old._regularizer, old._caching_device, old._partitioner,
                              old._custom_getter, ns + "/", old._dtype, old._use_resource,
                              old._constraint)
        store.current_scope = scope
        self._stack.append((state, old_name_stack, store, old, new_name))
        self._entered.append(scope)
        return scope

    def _enter(self, exits):
        if self._name_or_scope is not None:
            if not isinstance(self._name_or_scope, (VariableScope, str)):
                raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
            if self._auxiliary_name_scope:
                if isinstance(self._name_or_scope, str):
                    ns_name = self._name_or_scope
                else:
                    ns_name = self._name_or_scope.name.split("/")[-1]
                # The root scope ("") opens no name scope: ops keep the current one, as in TF.
                ns = _enter(exits, name_scope(ns_name)) if ns_name else \
                    _current_name_scope()
                old_name_scope = ns if isinstance(self._name_or_scope, str) else \
                    self._name_or_scope.original_name_scope
            else:
                if isinstance(self._name_or_scope, str):
                    old_name_scope = get_default_graph().get_name_scope()
                    old_name_scope = old_name_scope + "/" if old_name_scope else ""
                else:
                    # TF re-enters the current name scope, not the scope's own.
                    old_name_scope = self._name_or_scope.original_name_scope
            return _enter(exits, _pure_variable_scope(
                self._name_or_scope, reuse=self._reuse, old_name_scope=old_name_scope,
                **self._kwargs))
        if self._reuse:
            raise ValueError("reuse=True cannot be used without a name_or_scope")
        if self._auxiliary_name_scope:
            ns = _enter(exits, name_scope(self._default_name))
        else:
            ns = get_default_graph().get_name_scope()
            ns = ns + "/" if ns else ""
        unique = _get_unique_variable_scope(self._default_name)
        return _enter(exits, _pure_variable_scope(unique, old_name_scope=ns, **self._kwargs))

    def __exit__(self, *exc):
        if self._entered and get_variable_scope() is not self._entered[-1]:
            raise RuntimeError("Improper nesting of variable_scope.")
        if self._entered:
            self._entered.pop()
        exits = self._stack.pop()
        if exits.__class__ is tuple:  # entered by _enter_named: undone innermost first
            state, old_name_stack, store, old, new_name = exits
            store.close_variable_subscopes(new_name)
            store.current_scope = old
            state.name_stack = old_name_stack
            return False
        _exit_all(exits)
        return False


def _enter(exits, ctx):
    value = ctx.__enter__()
    exits.append(ctx)
    return value


def _exit_all(exits):
    """Exits `exits` innermost first, as contextlib.ExitStack.close does (all are exited even
    if one raises; the last error raised propagates)."""
    error = None
    while exits:
        try:
            exits.pop().__exit__(None, None, None)
        except BaseException as e:
            error = e
    if error is not None:
        raise error


def _current_name_scope():
    ns = get_default_graph().get_name_scope()
    return ns + "/" if ns else ""


def variable_op_scope(values, name_or_scope, default_name=None, **kwargs):
    return variable_scope(name_or_scope, default_name=default_name, values=values, **kwargs)


def no_regularizer(_):
    return None
