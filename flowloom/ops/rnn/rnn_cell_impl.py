"""TF1 RNN cells (`tf.nn.rnn_cell`, `tf.contrib.rnn`): one step of a recurrent network.

A cell maps `(inputs, state)` to `(output, new_state)`. Cells are TF1 layers: their weights
are created on the first call with `tf.get_variable` under the cell's variable scope (named
after the class: `basic_lstm_cell`, `gru_cell`, ...), inside whatever scope the caller opened
(`rnn/`, `bidirectional_rnn/fw/`, `multi_rnn_cell/cell_0/`), and reused on later calls.
"""

import collections

from flowloom.framework import dtypes, nest, tensor_shape, tensor_util
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.layers.base import Layer
from flowloom.ops.array import array_ops
from flowloom.ops.math import clip_ops, math_ops
from flowloom.ops.state import init_ops
from flowloom.ops.nn import nn_ops
from flowloom.ops.rnn import rnn_cell_config
from flowloom.variable_scope import get_variable_scope, variable_scope
from flowloom.variables import PartitionedVariable, trainable_variables

_WEIGHTS_VARIABLE_NAME = "kernel"
_BIAS_VARIABLE_NAME = "bias"


def _snake_case(name):
    import re

    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def _concat(prefix, suffix, static=False):
    """`prefix + suffix` as an int32 vector tensor (or, `static`, a list with Nones).

    Args:
      prefix: an int, TensorShape or scalar/vector Tensor (usually the batch size).
      suffix: an int, TensorShape or scalar/vector Tensor (a state or output size).
      static: return a Python list (None for unknown dims) instead of a Tensor.

    Raises:
      ValueError: a tensor argument is not a scalar or vector, or a part is unknown when a
        tensor is asked for.
    """
    def part(x, what):
        if isinstance(x, Tensor):
            static_value = tensor_util.constant_value(x)
            if x.shape.ndims == 0:
                x = array_ops.expand_dims(x, 0)
            elif x.shape.ndims != 1:
                raise ValueError(f"{what} tensor must be either a scalar or vector, but "
                                 f"received tensor: {x}")
            if static_value is not None:
                static_value = [int(v) for v in static_value.reshape(-1)]
            return x, static_value
        shape = tensor_shape.as_shape(x)
        static_value = shape.as_list() if shape.ndims is not None else None
        t = array_ops.constant(shape.as_list(), dtype=dtypes.int32) \
            if shape.is_fully_defined() else None
        return t, static_value

    p, p_static = part(prefix, "Prefix")
    s, s_static = part(suffix, "suffix")
    if static:
        shape = tensor_shape.TensorShape(p_static).concatenate(s_static)
        return shape.as_list() if shape.ndims is not None else None
    if p is None or s is None:
        raise ValueError(f"Prefix or suffix can't be None. Received prefix = {prefix} and "
                         f"suffix = {suffix}")
    return array_ops.concat((p, s), 0)


def _zero_state_tensors(state_size, batch_size, dtype):
    """Zeros shaped `[batch_size] + s` for each `s` of the (nested) `state_size`."""
    def zeros_for(s):
        size = array_ops.zeros(_concat(batch_size, s), dtype=dtype)
        size.set_shape(_concat(batch_size, s, static=True))
        return size

    return nest.map_structure(zeros_for, state_size)


def _check_supported_dtypes(dtype):
    if dtype is None:
        return
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError("RNN cell only supports floating point inputs, but received dtype: "
                         f"{dtype}")


def _check_rnn_cell_input_dtypes(inputs):
    for t in nest.flatten(inputs):
        _check_supported_dtypes(t.dtype)


def assert_like_rnncell(cell_name, cell):
    """Raises TypeError unless `cell` has output_size, state_size, zero_state and is callable."""
    conditions = [hasattr(cell, "output_size"), hasattr(cell, "state_size"),
                  hasattr(cell, "zero_state") or hasattr(cell, "get_initial_state"),
                  callable(cell)]
    errors = ["'output_size' property is missing", "'state_size' property is missing",
              "either 'zero_state' or 'get_initial_state' method is required",
              "is not callable"]
    if not all(conditions):
        errors = [e for e, c in zip(errors, conditions) if not c]
        raise TypeError(f"The argument {cell_name!r} ({cell}) is not an RNNCell: "
                        f"{', '.join(errors)}.")


class RNNCell(Layer):
    """Abstract RNN cell: `(output, new_state) = cell(inputs, state)`.

    Subclasses define `state_size`, `output_size` and `call(inputs, state)`. A subclass may
    create variables in `call` with `tf.get_variable`; they are created in the variable scope
    that was current at the first call (or in `scope`) and collected as the cell's weights.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        rnn_cell_config.record_init_args(cls)  # for get_config

    def get_config(self):
        """The cell's constructor arguments, with `name`, `trainable` and `dtype`."""
        return rnn_cell_config.get_config(self)

    @classmethod
    def from_config(cls, config):
        """A cell made from `get_config()`'s dict."""
        return rnn_cell_config.from_config(cls, config)

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._base_name = name or _snake_case(type(self).__name__)
        self._rnncell_scope = None
        self._is_tf_rnn_cell = True

    def __call__(self, inputs, state, scope=None):
        """Runs the cell on `inputs` from `state`.

        Args:
          inputs: a `[batch_size, input_size]` tensor.
          state: a `[batch_size, state_size]` tensor, or a tuple of them when `state_size`
            is a tuple.
          scope: an optional VariableScope (or name) for the created variables.

        Returns:
          `(output, new_state)`.
        """
        if scope is not None:
            with variable_scope(scope, custom_getter=self._rnn_get_variable) as entered:
                return self._layer_call(inputs, state, entered)
        if self._rnncell_scope is None:
            self._rnncell_scope = variable_scope(get_variable_scope(),
                                                 custom_getter=self._rnn_get_variable)
        with self._rnncell_scope:
            return self._layer_call(inputs, state, None)

    def _layer_call(self, inputs, state, scope):
        """TF1 layer semantics: a variable scope per cell, entered with reuse once built."""
        if self._scope is None:
            with variable_scope(scope, default_name=self._base_name) as captured:
                self._scope = captured
        reuse = True if self.built else self._reuse
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False), \
                name_scope(self._scope.original_name_scope):
            if not self.built:
                first = convert_to_tensor(nest.flatten(inputs)[0])
                if self.dtype is None:  # as TF's layers: weights take the inputs' dtype
                    self.dtype = first.dtype.base_dtype
                self.build(first.shape)
                self.built = True
            return self.call(inputs, state)

    def _rnn_get_variable(self, getter, *args, **kwargs):
        variable = getter(*args, **kwargs)
        trainable = _is_trainable(variable)
        weights = self._trainable_weights if trainable else self._non_trainable_weights
        if all(variable is not v for v in weights):
            weights.append(variable)
        return variable

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None,
                   trainable=True, constraint=None, partitioner=None):
        if self._scope is None:
            # Built directly (not by a call): as TF's layers, the cell opens its own scope.
            with variable_scope(None, default_name=self._base_name) as captured:
                self._scope = captured
        if get_variable_scope().name != self._scope.name:
            with variable_scope(self._scope, auxiliary_name_scope=False), \
                    name_scope(self._scope.original_name_scope):
                return self.add_weight(name, shape, dtype, initializer, regularizer,
                                       trainable, constraint, partitioner)
        v = super().add_weight(name, shape, dtype=dtype or self.dtype or dtypes.float32,
                               initializer=initializer, regularizer=regularizer,
                               trainable=trainable, constraint=constraint,
                               partitioner=partitioner)
        # Where it goes is whether it is trainable (a custom getter may have said no).
        actually = trainable and self.trainable and _is_trainable(v)
        weights = self._trainable_weights if actually else self._non_trainable_weights
        other = self._non_trainable_weights if actually else self._trainable_weights
        other[:] = [w for w in other if w is not v]
        weights.append(v)
        # The custom getter has already recorded it; keep one entry.
        seen = []
        for w in weights:
            if all(w is not s for s in seen):
                seen.append(w)
        weights[:] = seen
        return v

    add_variable = add_weight

    @property
    def state_size(self):
        """The size(s) of the state: an int, a TensorShape, or a nested tuple of them."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        """The size of the output: an int or a TensorShape."""
        raise NotImplementedError("Abstract method")

    def build(self, input_shape):
        self.built = True

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """The zero state, sized from `inputs` or from `batch_size` and `dtype`."""
        if inputs is not None:
            inputs = convert_to_tensor(inputs, name="inputs")
            if batch_size is not None:
                from flowloom.framework import tensor_util

                static = tensor_util.constant_value(batch_size) \
                    if hasattr(batch_size, "op") else batch_size
                if inputs.shape[0].value != static:
                    raise ValueError("batch size from input tensor is different from the input "
                                     f"param. Input tensor batch: {inputs.shape[0].value}, "
                                     f"batch_size: {batch_size}")
            if dtype is not None and inputs.dtype != dtype:
                raise ValueError("dtype from input tensor is different from the input param. "
                                 f"Input tensor dtype: {inputs.dtype}, dtype: {dtype}")
            batch_size = inputs.shape[0].value
            if batch_size is None:
                batch_size = array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError("batch_size and dtype cannot be None while constructing initial "
                             f"state: batch_size={batch_size}, dtype={dtype}")
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size, dtype):
        """Zero-filled state tensor(s), in the scope `<ClassName>ZeroState`.

        Args:
          batch_size: an int or a scalar int Tensor.
          dtype: the state's dtype.

        Returns:
          A `[batch_size, state_size]` tensor, or a nested tuple of them matching
          `state_size`.
        """
        with name_scope(type(self).__name__ + "ZeroState"):
            return _zero_state_tensors(self.state_size, batch_size, dtype)


class LayerRNNCell(RNNCell):
    """An RNN cell that creates its weights in `build` (as TF's LayerRNNCell): called, it
    opens its layer scope right where it is called, without RNNCell's captured scope."""

    def __call__(self, inputs, state, scope=None):
        return self._layer_call(inputs, state, scope)


class BasicRNNCell(LayerRNNCell):
    """The most basic RNN cell: `output = new_state = act(W [input, state] + b)`.

    Args:
      num_units: the number of units.
      activation: the nonlinearity (default tanh).
      reuse: whether to reuse variables in an existing scope.
      name: the layer name (variables go under it).
      dtype: the default dtype of the layer.
    """

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None,
                 **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self._num_units = num_units
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, input_shape):
        depth = _input_depth(input_shape)
        self._kernel = self.add_weight(_WEIGHTS_VARIABLE_NAME,
                                       shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_weight(_BIAS_VARIABLE_NAME, shape=[self._num_units],
                                     initializer=init_ops.zeros_initializer(dtype=self.dtype or dtypes.float32))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        output = self._activation(gate_inputs)
        return output, output


def _input_depth(input_shape):
    input_shape = tensor_shape.as_shape(input_shape)
    if input_shape.ndims is None or input_shape[-1].value is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, received shape: "
                         f"{input_shape}")
    return input_shape[-1].value


class GRUCell(LayerRNNCell):
    """Gated Recurrent Unit cell (Cho et al. 2014), with TF's `gates/` and `candidate/`
    weights.

    Args:
      num_units: the number of units.
      activation: the candidate's nonlinearity (default tanh).
      reuse: whether to reuse variables in an existing scope.
      kernel_initializer: initializer of both kernels.
      bias_initializer: initializer of both biases (default: 1.0 for the gates, 0.0 for the
        candidate).
      name: the layer name.
      dtype: the default dtype of the layer.
    """

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self._num_units = num_units
        self._activation = activation or math_ops.tanh
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, input_shape):
        depth = _input_depth(input_shape)
        n = self._num_units
        self._gate_kernel = self.add_weight(
            "gates/" + _WEIGHTS_VARIABLE_NAME, shape=[depth + n, 2 * n],
            initializer=self._kernel_initializer)
        self._gate_bias = self.add_weight(
            "gates/" + _BIAS_VARIABLE_NAME, shape=[2 * n],
            initializer=self._bias_initializer if self._bias_initializer is not None
            else init_ops.constant_initializer(1.0, dtype=self.dtype or dtypes.float32))
        self._candidate_kernel = self.add_weight(
            "candidate/" + _WEIGHTS_VARIABLE_NAME, shape=[depth + n, n],
            initializer=self._kernel_initializer)
        self._candidate_bias = self.add_weight(
            "candidate/" + _BIAS_VARIABLE_NAME, shape=[n],
            initializer=self._bias_initializer if self._bias_initializer is not None
            else init_ops.zeros_initializer(dtype=self.dtype or dtypes.float32))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._gate_bias)
        value = math_ops.sigmoid(gate_inputs)
        r, u = array_ops.split(value=value, num_or_size_splits=2, axis=1)
        r_state = r * state
        candidate = math_ops.matmul(array_ops.concat([inputs, r_state], 1),
                                    self._candidate_kernel)
        candidate = nn_ops.bias_add(candidate, self._candidate_bias)
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """The `(c, h)` state of an LSTM cell: `c` the cell state, `h` the output."""

    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent dtypes for internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


class BasicLSTMCell(LayerRNNCell):
    """The basic LSTM cell (no peepholes, no projection, no clipping), gates ordered
    i, j, f, o in one `kernel` and `bias`; `forget_bias` is added to the forget gate.

    Args:
      num_units: the number of units.
      forget_bias: added to the forget gate's pre-activation (default 1.0).
      state_is_tuple: states are `LSTMStateTuple(c, h)` (else `[c, h]` concatenated).
      activation: the inner nonlinearity (default tanh).
      reuse, name, dtype: as for layers.
    """

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None,
                 reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    @property
    def output_size(self):
        return self._num_units

    def build(self, input_shape):
        depth = _input_depth(input_shape)
        n = self._num_units
        self._kernel = self.add_weight(_WEIGHTS_VARIABLE_NAME, shape=[depth + n, 4 * n])
        self._bias = self.add_weight(_BIAS_VARIABLE_NAME, shape=[4 * n],
                                     initializer=init_ops.zeros_initializer(dtype=self.dtype or dtypes.float32))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        one = array_ops.constant(1, dtype=dtypes.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        i, j, f, o = array_ops.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias_tensor = array_ops.constant(self._forget_bias, dtype=f.dtype)
        sigmoid, add, multiply = math_ops.sigmoid, math_ops.add, math_ops.multiply
        new_c = add(multiply(c, sigmoid(add(f, forget_bias_tensor))),
                    multiply(sigmoid(i), self._activation(j)))
        new_h = multiply(self._activation(new_c), sigmoid(o))
        if self._state_is_tuple:
            new_state = LSTMStateTuple(new_c, new_h)
        else:
            new_state = array_ops.concat([new_c, new_h], 1)
        return new_h, new_state


def _is_trainable(variable):
    """Whether `variable` (or a PartitionedVariable's first part) is in TRAINABLE_VARIABLES."""
    if isinstance(variable, PartitionedVariable):
        variable = list(variable)[0]
    return any(variable is v for v in trainable_variables())


def _shards(num_shards):
    """The partitioner of LSTMCell's deprecated `num_*_shards` arguments (None: none)."""
    if num_shards is None:
        return None
    from flowloom.partitioned_variables import fixed_size_partitioner

    return fixed_size_partitioner(num_shards)


class LSTMCell(LayerRNNCell):
    """The LSTM cell with optional peepholes (`w_f_diag`, `w_i_diag`, `w_o_diag`), cell
    clipping, and a projection of the output (`projection/kernel`, Sak et al. 2014).

    Args:
      num_units: the number of units.
      use_peepholes: add diagonal peephole connections.
      cell_clip: clip the cell state to [-cell_clip, cell_clip].
      initializer: initializer of the weights.
      num_proj: project the output to this size.
      proj_clip: clip the projected output to [-proj_clip, proj_clip].
      num_unit_shards, num_proj_shards: split the kernel (projection kernel) into this many
        partitioned variables along its first axis (deprecated in TF for a variable scope
        with a partitioner; `kernel/part_0`, ...).
      forget_bias: added to the forget gate's pre-activation (default 1.0).
      state_is_tuple: states are `LSTMStateTuple(c, m)`.
      activation: the inner nonlinearity (default tanh).
      reuse, name, dtype: as for layers.
    """

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_proj=None, proj_clip=None, num_unit_shards=None, num_proj_shards=None,
                 forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self._num_unit_shards = num_unit_shards
        self._num_proj_shards = num_proj_shards
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh
        h = num_proj if num_proj else num_units
        self._state_size = LSTMStateTuple(num_units, h) if state_is_tuple else num_units + h
        self._output_size = h

    @property
    def state_size(self):
        return self._state_size

    @property
    def output_size(self):
        return self._output_size

    def build(self, input_shape):
        depth = _input_depth(input_shape)
        n = self._num_units
        h_depth = n if self._num_proj is None else self._num_proj
        self._kernel = self.add_weight(_WEIGHTS_VARIABLE_NAME, shape=[depth + h_depth, 4 * n],
                                       initializer=self._initializer,
                                       partitioner=_shards(self._num_unit_shards))
        self._bias = self.add_weight(_BIAS_VARIABLE_NAME, shape=[4 * n],
                                     initializer=init_ops.zeros_initializer(dtype=self.dtype or dtypes.float32))
        if self._use_peepholes:
            self._w_f_diag = self.add_weight("w_f_diag", shape=[n], initializer=self._initializer)
            self._w_i_diag = self.add_weight("w_i_diag", shape=[n], initializer=self._initializer)
            self._w_o_diag = self.add_weight("w_o_diag", shape=[n], initializer=self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self.add_weight(
                "projection/" + _WEIGHTS_VARIABLE_NAME, shape=[n, self._num_proj],
                initializer=self._initializer, partitioner=_shards(self._num_proj_shards))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        num_proj = self._num_units if self._num_proj is None else self._num_proj
        sigmoid = math_ops.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = array_ops.slice(state, [0, 0], [-1, self._num_units])
            m_prev = array_ops.slice(state, [0, self._num_units], [-1, num_proj])
        if inputs.shape.with_rank(2)[1].value is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]."
                             f"Received input shape: {inputs.shape}")
        lstm_matrix = math_ops.matmul(array_ops.concat([inputs, m_prev], 1), self._kernel)
        lstm_matrix = nn_ops.bias_add(lstm_matrix, self._bias)
        i, j, f, o = array_ops.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev +
                 sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = clip_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = clip_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple \
            else array_ops.concat([c, m], 1)
        return m, new_state


class MultiRNNCell(RNNCell):
    """Cells stacked in order: cell k's output is cell k+1's input; variables under
    `multi_rnn_cell/cell_<k>/`.

    Args:
      cells: a list of RNNCells.
      state_is_tuple: states are n-tuples (else concatenated along the columns).

    Raises:
      ValueError: `cells` is empty, or a cell has a tuple state and `state_is_tuple` is
        False.
      TypeError: `cells` is not a list or tuple.
    """

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_nested(cells):
            raise TypeError(f"cells must be a list or tuple, but received: {cells}.")
        self._cells = cells
        self._state_is_tuple = state_is_tuple
        self._checkpoint_dependencies = [rnn_cell_config.TrackableReference(f"cell-{i}", c)
                                         for i, c in enumerate(cells)]
        if not state_is_tuple and any(nest.is_nested(c.state_size) for c in cells):
            raise ValueError("Some cells return tuples of states, but the flag state_is_tuple "
                             "is not set. State sizes are: "
                             f"{[c.state_size for c in cells]}")

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            # TF calls RNNCell.zero_state here: a second, nested scope.
            return RNNCell.zero_state(self, batch_size, dtype)

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return [w for cell in self._cells for w in getattr(cell, "trainable_weights", [])]

    trainable_variables = trainable_weights

    @property
    def non_trainable_weights(self):
        weights = [w for cell in self._cells for w in getattr(cell, "non_trainable_weights", [])]
        if not self.trainable:
            return [w for cell in self._cells
                    for w in getattr(cell, "trainable_weights", [])] + weights
        return weights

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    variables = weights

    def call(self, inputs, state):
        cur_state_pos = 0
        cur_inp = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not nest.is_nested(state):
                        raise ValueError(f"Expected state to be a tuple of length "
                                         f"{len(self.state_size)}, but received: {state}")
                    cur_state = state[i]
                else:
                    cur_state = array_ops.slice(state, [0, cur_state_pos],
                                                [-1, cell.state_size])
                    cur_state_pos += cell.state_size
                cur_inp, new_state = cell(cur_inp, cur_state)
                new_states.append(new_state)
        new_states = tuple(new_states) if self._state_is_tuple \
            else array_ops.concat(new_states, 1)
        return cur_inp, new_states


# The wrappers live in their own module; they are part of this namespace, as in TF.
from flowloom.ops.rnn.rnn_cell_wrappers import DeviceWrapper, DropoutWrapper, ResidualWrapper  # noqa: F401
