"""The TF1 `tf.layers.Layer`: variables through get_variable, ops under the layer's scope."""

from flowloom.framework.graph import GraphKeys, get_default_graph, name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_util import constant_value
from flowloom.variable_scope import get_variable, variable_scope


class Layer:
    """Base class of layers: `build(input_shape)` makes weights, `call(inputs)` makes ops.

    Variables are created with `tf.get_variable` inside the layer's variable scope (`dense`,
    `dense_1`, ...), so they are shared and named as in TF1; calling a layer object again
    reuses its variables.
    """

    _base_name = "layer"

    def __init__(self, trainable=True, name=None, dtype=None, _reuse=None, _scope=None,
                 **kwargs):
        self.trainable = trainable
        self._name = name
        self.dtype = dtype
        self._reuse = _reuse
        self._scope = None
        self._explicit_scope = _scope
        self.built = False
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._updates = []
        self._losses = []

    @property
    def name(self):
        return self._name if self._name else self._base_name

    @property
    def scope_name(self):
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
        return list(self._updates)

    @property
    def losses(self):
        return list(self._losses)

    def add_update(self, update):
        # TF's UPDATE_OPS collection holds the update Operations.
        update = update.op if isinstance(update, Tensor) else update
        self._updates.append(update)
        get_default_graph().add_to_collection(GraphKeys.UPDATE_OPS, update)

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None,
                   trainable=True, constraint=None, partitioner=None):
        """Creates (or reuses) a variable of this layer through `tf.get_variable` (a
        PartitionedVariable with a `partitioner`)."""
        dtype = dtype or self.dtype or "float32"
        trainable = trainable and self.trainable
        graph = get_default_graph()
        existing = set(graph.get_collection(GraphKeys.GLOBAL_VARIABLES))
        v = get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                         trainable=trainable, constraint=constraint, partitioner=partitioner)
        if regularizer is not None and v not in existing:
            # As TF's layers: the penalty of a new weight, named `<layer>/<weight>/Regularizer`
            # after the layer's own name for the weight (before any custom getter renames it).
            with name_scope(name + "/Regularizer"):
                loss = regularizer(v)
            if loss is not None:
                graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
                self._losses.append(loss)
        (self._trainable_weights if trainable else self._non_trainable_weights).append(v)
        return v

    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def _set_scope(self):
        # As TF's layers: a layer object's name is the default name of its scope, made
        # unique (two Dense(name="proj") objects own proj/ and proj_1/); an explicit scope
        # (the functional layers' `name`) or reuse uses the name as it is.
        if self._scope is None:
            if self._explicit_scope is not None:
                scope_args = (self._explicit_scope,), {}
            elif self._reuse:
                scope_args = (self._name or self._base_name,), {}
            else:
                scope_args = (None,), {"default_name": self._name or self._base_name}
            with variable_scope(*scope_args[0], **scope_args[1]) as scope:
                self._scope = scope

    def __call__(self, inputs, *args, **kwargs):
        self._set_scope()
        reuse = True if self.built else self._reuse
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False):
            with name_scope(self._scope.original_name_scope):
                if not self.built:
                    first = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
                    first = convert_to_tensor(first)
                    if not self.dtype:
                        # as TF 1.x: a layer without a dtype takes its first input's
                        self.dtype = first.dtype.base_dtype.name
                    self.input_spec_shape = first.shape
                    self.build(self.input_spec_shape)
                    self.built = True
                return self.call(inputs, *args, **kwargs)

    def apply(self, inputs, *args, **kwargs):
        return self.__call__(inputs, *args, **kwargs)


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
