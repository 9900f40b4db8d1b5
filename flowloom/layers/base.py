"""The TF1 `tf.layers.Layer`: variables through get_variable, ops under the layer's scope.

As TF 1.15's (a Keras layer in a TF1 variable scope): a layer's weights are made with
`tf.get_variable` in its variable scope (`dense`, `dense_1`, ...), so they are shared and named
as in TF1, and calling a layer object again reuses them; updates (`add_update`) and losses
(`add_loss`, weight and activity regularizers) are kept per layer, each either unconditional or
conditional on the inputs it depends on (`get_updates_for`, `get_losses_for`), and go to the
UPDATE_OPS / REGULARIZATION_LOSSES collections.
"""

import copy
import re
import weakref

import numpy as np

from flowloom.framework import dtypes, nest
from flowloom.framework.graph import GraphKeys, get_default_graph, init_scope, name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_util import constant_value
from flowloom.variable_enums import VariableSynchronization
from flowloom.variable_scope import get_variable, variable_scope

# Graph -> {base name: count}: unnamed layers are named dense, dense_1, ... per graph (TF's
# backend.unique_object_name).
_NAME_UIDS = weakref.WeakKeyDictionary()
_KERAS_STYLE = [False]


def to_snake_case(name):
    """`MyLayer` -> `my_layer` (a leading underscore becomes `private_`)."""
    intermediate = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    snake = re.sub(r"([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return snake if snake[0] != "_" else "private" + snake


def _unique_name(base):
    # As TF's layers (unique_object_name, not zero based): dense_1, dense_2, ...
    uids = _NAME_UIDS.setdefault(get_default_graph(), {})
    uids[base] = uids.get(base, 0) + 1
    return f"{base}_{uids[base]}"


def _reachable(inputs, targets):
    """The ops and tensors reachable from `inputs` through their consumers, stopping once
    every target is found (TF's tf_utils.get_reachable_from_inputs)."""
    found, stack = set(), [x for x in nest.flatten(inputs) if x is not None]
    while stack:
        x = stack.pop()
        if id(x) in found:
            continue
        found.add(id(x))
        if isinstance(x, Tensor):
            stack.extend(x.consumers())
        elif hasattr(x, "outputs"):
            stack.extend(x.outputs)
        elif hasattr(x, "op"):  # a variable: its value's consumers
            stack.append(x.op)
    return {id(t) for t in targets if id(t) in found}


class keras_style_scope:  # noqa: N801 - TF's name
    """Within it, new layers are Keras style: no variable scope, no reuse (TF's
    `keras_style_scope`)."""

    def __enter__(self):
        self._previous = _KERAS_STYLE[0]
        _KERAS_STYLE[0] = True

    def __exit__(self, *exc):
        _KERAS_STYLE[0] = self._previous


def set_keras_style():
    """Makes every later layer Keras style (TF's `set_keras_style`)."""
    _KERAS_STYLE[0] = True


class Layer:
    """Base class of layers: `build(input_shape)` makes weights, `call(inputs)` makes ops.

    Args:
      trainable: whether the layer's variables are trainable.
      name: the layer's name (also its variable scope's default name).
      dtype: the weights' dtype (default: the first input's).
      activity_regularizer: a function of each output whose value, over the batch size, is
        added as a loss conditional on the inputs.
    """

    _base_name = None  # a subclass's default scope name (else its class name in snake case)

    def __init__(self, trainable=True, name=None, dtype=None, _reuse=None, _scope=None,
                 activity_regularizer=None, **kwargs):
        for key in kwargs:
            if key not in ("input_shape", "batch_input_shape", "batch_size", "weights",
                           "autocast"):
                raise TypeError(f"Keyword argument not understood: {key}")
        self._trainable = trainable
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype.name
        self._reuse = _reuse
        self.built = False
        self.input_spec = None
        self.activity_regularizer = activity_regularizer
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._updates = []  # (update, unconditional)
        self._losses = []  # (loss, unconditional)
        self._call_inputs = None  # the inputs of the call under way
        self._keras_style = _KERAS_STYLE[0]
        if self._keras_style and (_scope is not None or _reuse is not None):
            raise ValueError("scope argument not allowed when keras style layers are enabled"
                             if _scope is not None else
                             "reuse argument not allowed when keras style layers are enabled")
        default = type(self).__dict__.get("_base_name") or getattr(self, "_base_name", None) \
            or to_snake_case(type(self).__name__)
        if name:
            self._name, self._base_name = name, name
        else:
            self._name, self._base_name = _unique_name(default), default
        self._scope = None
        self._current_scope = None
        if _scope:
            with variable_scope(_scope) as captured:
                self._scope = captured

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @dtype.setter
    def dtype(self, value):
        self._dtype = None if value is None else dtypes.as_dtype(value).base_dtype.name

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = value

    @property
    def scope_name(self):
        if not self._scope:
            raise ValueError(f'No name available for layer scope because the layer "'
                             f'{self._name}" has not been used yet. The scope name  is '
                             "determined the first time the layer instance is called. You "
                             "must therefore call the layer before querying `scope_name`.")
        return self._scope.name

    @property
    def trainable_weights(self):
        return list(self._trainable_weights) if self.trainable else []

    trainable_variables = trainable_weights

    @property
    def non_trainable_weights(self):
        extra = [] if self.trainable else list(self._trainable_weights)
        return extra + list(self._non_trainable_weights)

    non_trainable_variables = non_trainable_weights

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    variables = weights

    @property
    def updates(self):
        return [u for u, _ in self._updates] if self.trainable else []

    @property
    def losses(self):
        return [loss for loss, _ in self._losses]

    # -- Updates and losses -------------------------------------------------------------------
    def _unconditional(self, value, inputs):
        relevant = self._call_inputs if inputs is None or inputs is True else inputs
        if relevant is None:
            return True
        return not _reachable(relevant, [value])

    def add_update(self, updates, inputs=None):
        """Adds update ops (or callables returning them) to the layer; one that depends on the
        call's inputs is conditional on them (see `get_updates_for`)."""
        for update in nest.flatten(updates if isinstance(updates, (list, tuple)) else
                                   [updates]):
            if callable(update) and not isinstance(update, Tensor):
                update = update()
            update = update.op if hasattr(update, "op") and not hasattr(update, "outputs") \
                else update
            self._updates.append((update, self._unconditional(update, inputs)))

    def get_updates_for(self, inputs):
        """The updates that depend on `inputs` (None: the unconditional ones)."""
        if inputs is None:
            return [u for u, unconditional in self._updates if unconditional]
        conditional = [u for u, unconditional in self._updates if not unconditional]
        reached = _reachable(inputs, conditional)
        return [u for u in conditional if id(u) in reached]

    def add_loss(self, losses, inputs=None):
        """Adds loss tensors (or callables returning them) to the layer and to the
        REGULARIZATION_LOSSES collection; `inputs` given (or True): conditional on them."""
        for loss in losses if isinstance(losses, (list, tuple)) else [losses]:
            if callable(loss) and not isinstance(loss, Tensor):
                loss = loss()
            if loss is None:
                continue
            if not hasattr(loss, "dtype"):
                loss = convert_to_tensor(loss, dtype=dtypes.float32)
            self._losses.append((loss, inputs is None))
            collection = get_default_graph().get_collection_ref(
                GraphKeys.REGULARIZATION_LOSSES)
            if not any(loss is c for c in collection):
                collection.append(loss)

    def get_losses_for(self, inputs):
        """The losses that depend on `inputs` (None: the unconditional ones)."""
        if inputs is None:
            return [loss for loss, unconditional in self._losses if unconditional]
        conditional = [loss for loss, unconditional in self._losses if not unconditional]
        reached = _reachable(inputs, conditional)
        return [loss for loss in conditional if id(loss) in reached]

    # -- Weights ----------------------------------------------------------------------------
    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None,
                   trainable=None, constraint=None, use_resource=None,
                   synchronization=VariableSynchronization.AUTO, aggregation=None,
                   partitioner=None, **kwargs):
        """Creates (or reuses) a variable of this layer through `tf.get_variable`.

        Raises:
          ValueError: trainable=True with synchronization ON_READ.
          TypeError: an unknown keyword argument.
        """
        for key in kwargs:
            if key != "experimental_autocast":
                raise TypeError("Unknown keyword argument:", key)
        if synchronization == VariableSynchronization.ON_READ:
            if trainable:
                raise ValueError(
                    "Synchronization value can be set to VariableSynchronization.ON_READ only "
                    "for non-trainable variables. You have specified trainable=True and "
                    "synchronization=VariableSynchronization.ON_READ.")
            trainable = False
        elif trainable is None:
            trainable = True
        graph = get_default_graph()
        init_graph = graph
        if graph.building_function:
            with init_scope():
                init_graph = get_default_graph()
        existing = set(init_graph.get_collection(GraphKeys.GLOBAL_VARIABLES))
        dtype = dtypes.as_dtype(dtype or self.dtype or dtypes.float32)
        self._set_scope(None)
        reuse = self.built or self._reuse
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with name_scope(self._name_scope()):
                if graph.building_function:
                    with init_scope():
                        v = self._get_variable(name, shape, dtype, initializer, trainable,
                                               constraint, partitioner, use_resource,
                                               synchronization, aggregation)
                else:
                    v = self._get_variable(name, shape, dtype, initializer, trainable,
                                           constraint, partitioner, use_resource,
                                           synchronization, aggregation)
                parts = list(v) if hasattr(v, "_get_variable_list") else [v]
                if regularizer is not None and not any(p in existing for p in parts):
                    # As TF's layers: each new weight's (or partition's) penalty, named
                    # `<layer>/<weight>/Regularizer` after the layer's own weight name.
                    for part in parts:
                        with name_scope(name + "/Regularizer"):
                            self.add_loss(regularizer(part))
        in_trainable = any(p is t for p in parts
                           for t in init_graph.get_collection(GraphKeys.TRAINABLE_VARIABLES))
        if trainable and self.trainable and in_trainable:
            self._trainable_weights.append(v)
        else:
            self._non_trainable_weights.append(v)
        return v

    def _get_variable(self, name, shape, dtype, initializer, trainable, constraint,
                      partitioner, use_resource, synchronization, aggregation):
        return get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                            trainable=trainable and self.trainable, constraint=constraint,
                            partitioner=partitioner, use_resource=use_resource,
                            synchronization=synchronization, aggregation=aggregation)

    add_variable = add_weight

    def count_params(self):
        """The number of scalars in the layer's weights.

        Raises:
          ValueError: the layer is not built.
        """
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on {self.name}, but the layer "
                             "isn't built. You can build it manually via: "
                             f"`{self.name}.build(batch_input_shape)`.")
        return int(sum(np.prod(w.shape.as_list()) for w in self.weights))

    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def compute_output_shape(self, input_shape):
        """The output shape for `input_shape` (a shape or a list of shapes), found by calling
        a copy of the layer on placeholders in a scratch graph."""
        from flowloom.framework.graph import Graph
        from flowloom.framework.tensor_shape import TensorShape
        from flowloom.ops.array import array_ops

        def placeholder(shape):
            return array_ops.placeholder(self.dtype or dtypes.float32, TensorShape(shape))

        many = isinstance(input_shape, (list, tuple)) and input_shape and all(
            isinstance(s, (list, tuple, TensorShape)) for s in input_shape)
        with Graph().as_default():
            inputs = [placeholder(s) for s in input_shape] if many else placeholder(input_shape)
            scratch = copy.copy(self)
            scratch._scope, scratch._current_scope, scratch.built = None, None, False
            scratch._trainable_weights, scratch._non_trainable_weights = [], []
            scratch._updates, scratch._losses = [], []
            outputs = scratch(inputs)
        return nest.map_structure(lambda t: t.shape, outputs)

    # -- Calling ----------------------------------------------------------------------------
    def _name_scope(self):
        return self._current_scope.original_name_scope

    def _set_scope(self, scope=None):
        # As TF's layers: a layer object's name is the default name of its scope, made
        # unique (two Dense(name="proj") objects own proj/ and proj_1/); an explicit scope
        # (the functional layers' `name`) or reuse uses the name as it is.
        if self._scope is None:
            if self._reuse:
                with variable_scope(scope if scope is not None else self._base_name) as s:
                    self._scope = s
            else:
                with variable_scope(scope, default_name=self._base_name) as s:
                    self._scope = s

    def __call__(self, inputs, *args, **kwargs):
        scope = kwargs.pop("scope", None)
        self._set_scope(scope)
        reuse = True if self.built else self._reuse
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as current:
            self._current_scope = current
            inputs = nest.map_structure(
                lambda x: x if isinstance(x, Tensor) or hasattr(x, "_as_graph_element")
                or x is None else convert_to_tensor(x), inputs)
            outer_call_inputs, self._call_inputs = self._call_inputs, inputs
            try:
                with name_scope(self._name_scope()):
                    if not self.built:
                        self._maybe_build(inputs)
                    outputs = self.call(inputs, *args, **kwargs)
                    if outputs is None:
                        raise ValueError("A layer's `call` method should return a Tensor or "
                                         "a list of Tensors, not None (layer: "
                                         f"{self.name}).")
                    self._activity_losses(inputs, outputs)
            finally:
                self._call_inputs = outer_call_inputs
        collection = get_default_graph().get_collection_ref(GraphKeys.UPDATE_OPS)
        for update in self.updates:
            if not any(update is c for c in collection):
                collection.append(update)
        return outputs

    def _maybe_build(self, inputs):
        flat = nest.flatten(inputs)
        if not self.dtype and flat and hasattr(flat[0], "dtype"):
            # As TF 1.x: a layer without a dtype takes its first input's.
            self.dtype = flat[0].dtype.base_dtype.name
        shapes = nest.map_structure(lambda x: x.shape, inputs) if isinstance(
            inputs, (list, tuple, dict)) else inputs.shape
        if isinstance(inputs, (list, tuple)) and len(inputs) and not isinstance(
                inputs, dict):
            # flowloom's layers build from their first input's shape.
            shapes = flat[0].shape
        self.input_spec_shape = flat[0].shape if flat else None
        self.build(shapes)
        self.built = True

    def _activity_losses(self, inputs, outputs):
        if self.activity_regularizer is None:
            return
        from flowloom.ops.array import array_ops
        from flowloom.ops.math import math_ops

        with name_scope("ActivityRegularizer"):
            for output in nest.flatten(outputs):
                loss = self.activity_regularizer(output)
                batch = math_ops.cast(array_ops.shape(output)[0], loss.dtype)
                self.add_loss(math_ops.truediv(loss, batch), inputs=inputs)

    def apply(self, inputs, *args, **kwargs):
        return self.__call__(inputs, *args, **kwargs)

    def __deepcopy__(self, memo):
        # As TF: scopes are copied shallowly, tensors shared, everything else deep-copied.
        cls = self.__class__
        result = cls.__new__(cls)
        memo[id(self)] = result
        for key, value in self.__dict__.items():
            if key in ("_scope", "_current_scope"):
                setattr(result, key, copy.copy(value))
            elif isinstance(value, Tensor) or (
                    isinstance(value, (list, tuple)) and value and
                    all(isinstance(v, Tensor) for v in value)):
                setattr(result, key, value)
            else:
                setattr(result, key, copy.deepcopy(value, memo))
        return result


def smart_cond(pred, true_fn, false_fn, name=None):
    """Picks a branch at graph-construction time when `pred` is known, else builds tf.cond."""
    if isinstance(pred, bool):
        return true_fn() if pred else false_fn()
    if isinstance(pred, Tensor):
        v = constant_value(pred)
        if v is not None:
            return true_fn() if bool(v) else false_fn()
    from flowloom.ops.control_flow import control_flow_ops

    if not hasattr(control_flow_ops, "cond"):
        raise NotImplementedError("a layer with a tensor `training` argument needs tf.cond")
    return control_flow_ops.cond(pred, true_fn, false_fn, name=name)
