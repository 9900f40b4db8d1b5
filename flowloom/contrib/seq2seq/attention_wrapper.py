"""tf.contrib.seq2seq attention: BahdanauAttention, LuongAttention, AttentionWrapper (the TF1,
non-Keras classes of TF 1.15) and hardmax."""

import collections
import math

import numpy as np

from flowloom.framework import dtypes, nest, tensor_shape
from flowloom.framework.graph import control_dependencies, name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.layers.base import Layer
from flowloom.layers.core import Dense
from flowloom.ops.array import array_ops
from flowloom.ops.checks import check_ops
from flowloom.ops.control_flow.tensor_array_ops import TensorArray
from flowloom.ops.math import math_ops
from flowloom.ops.nn import activation_ops
from flowloom.ops.rnn.rnn_cell_impl import RNNCell, _zero_state_tensors, assert_like_rnncell
from flowloom.ops.state import init_ops
from flowloom.variable_scope import get_variable, variable_scope


class AttentionMechanism:
    """Base class of attention mechanisms (alignments over a memory for a query)."""

    @property
    def alignments_size(self):
        raise NotImplementedError("alignments_size")

    @property
    def state_size(self):
        raise NotImplementedError("state_size")


def _prepare_memory(memory, memory_sequence_length=None, check_inner_dims_defined=True):
    memory = nest.map_structure(lambda m: convert_to_tensor(m, name="memory"), memory)
    if memory_sequence_length is not None:
        memory_sequence_length = convert_to_tensor(memory_sequence_length,
                                                   name="memory_sequence_length")
    if check_inner_dims_defined:
        def _check_dims(m):
            if not m.get_shape()[2:].is_fully_defined():
                raise ValueError("Expected memory %s to have fully defined inner dims, but saw "
                                 "shape: %s" % (m.name, m.get_shape()))
        nest.map_structure(_check_dims, memory)
    if memory_sequence_length is None:
        return memory
    first = nest.flatten(memory)[0]
    seq_len_mask = array_ops.sequence_mask(memory_sequence_length,
                                           maxlen=array_ops.shape(first)[1], dtype=first.dtype)

    def _maybe_mask(m):
        rank = m.get_shape().ndims
        extra_ones = array_ops.ones(rank - 2, dtype=dtypes.int32)
        mask = array_ops.reshape(seq_len_mask,
                                 array_ops.concat((array_ops.shape(seq_len_mask), extra_ones),
                                                  0))
        return m * mask
    return nest.map_structure(_maybe_mask, memory)


def _maybe_mask_score(score, memory_sequence_length=None, score_mask_value=None):
    if memory_sequence_length is None:
        return score
    message = "All values in memory_sequence_length must be greater than zero."
    with control_dependencies([check_ops.assert_positive(memory_sequence_length,
                                                         message=message)]):
        memory_mask = array_ops.sequence_mask(memory_sequence_length,
                                              maxlen=array_ops.shape(score)[1])
    score_mask_values = score_mask_value * array_ops.ones_like(score)
    return array_ops.where(memory_mask, score, score_mask_values)


class _BaseAttentionMechanism(AttentionMechanism):
    """Keys (memory through `memory_layer`) and values (the masked memory) of a memory."""

    def __init__(self, query_layer, memory, probability_fn, memory_sequence_length=None,
                 memory_layer=None, check_inner_dims_defined=True, score_mask_value=None,
                 custom_key_value_fn=None, name=None):
        if query_layer is not None and not isinstance(query_layer, Layer):
            raise TypeError("query_layer is not a Layer: %s" % type(query_layer).__name__)
        if memory_layer is not None and not isinstance(memory_layer, Layer):
            raise TypeError("memory_layer is not a Layer: %s" % type(memory_layer).__name__)
        self._query_layer = query_layer
        self._memory_layer = memory_layer
        self.dtype = memory_layer.dtype
        if not callable(probability_fn):
            raise TypeError("probability_fn must be callable, saw type: %s"
                            % type(probability_fn).__name__)
        if score_mask_value is None:
            score_mask_value = dtypes.as_dtype(self._memory_layer.dtype).as_numpy_dtype(-np.inf)
        self._probability_fn = lambda score, prev: probability_fn(
            _maybe_mask_score(score, memory_sequence_length=memory_sequence_length,
                              score_mask_value=score_mask_value), prev)
        with name_scope(name, "BaseAttentionMechanismInit", nest.flatten(memory)):
            self._values = _prepare_memory(memory, memory_sequence_length=memory_sequence_length,
                                           check_inner_dims_defined=check_inner_dims_defined)
            self._keys = self.memory_layer(self._values) if self.memory_layer else self._values
            if custom_key_value_fn is not None:
                self._keys, self._values = custom_key_value_fn(self._keys, self._values)
            self._batch_size = tensor_shape.dimension_value(self._keys.shape[0]) or \
                array_ops.shape(self._keys)[0]
            self._alignments_size = tensor_shape.dimension_value(self._keys.shape[1]) or \
                array_ops.shape(self._keys)[1]

    @property
    def memory_layer(self):
        return self._memory_layer

    @property
    def query_layer(self):
        return self._query_layer

    @property
    def values(self):
        return self._values

    @property
    def keys(self):
        return self._keys

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def alignments_size(self):
        return self._alignments_size

    @property
    def state_size(self):
        return self._alignments_size

    def initial_alignments(self, batch_size, dtype):
        return _zero_state_tensors(self._alignments_size, batch_size, dtype)

    def initial_state(self, batch_size, dtype):
        return self.initial_alignments(batch_size, dtype)


def _luong_score(query, keys, scale):
    depth = query.get_shape()[-1]
    key_units = keys.get_shape()[-1]
    if depth != key_units:
        raise ValueError("Incompatible or unknown inner dimensions between query and keys.  "
                         "Query (%s) has units: %s.  Keys (%s) have units: %s.  Perhaps you "
                         "need to set num_units to the keys' dimension (%s)?"
                         % (query, depth, keys, key_units, key_units))
    query = array_ops.expand_dims(query, 1)
    score = array_ops.squeeze(math_ops.matmul(query, keys, transpose_b=True), [1])
    if scale is not None:
        score = scale * score
    return score


class LuongAttention(_BaseAttentionMechanism):
    """Multiplicative attention: score = query . (W memory), optionally scaled by a learned g.

    Args:
      num_units: the depth of the keys (the memory layer's units); must equal the query's.
      memory: [batch, max_time, ...] memory (encoder outputs).
      memory_sequence_length: masks memory steps past each length.
      scale: learn a scalar `attention_g` multiplying the score.
      probability_fn: scores -> alignments (default softmax).
    """

    def __init__(self, num_units, memory, memory_sequence_length=None, scale=False,
                 probability_fn=None, score_mask_value=None, dtype=None,
                 custom_key_value_fn=None, name="LuongAttention"):
        probability_fn = probability_fn or activation_ops.softmax
        dtype = dtype or dtypes.float32
        super().__init__(
            query_layer=None,
            memory_layer=Dense(num_units, name="memory_layer", use_bias=False, dtype=dtype),
            memory=memory, probability_fn=lambda score, _: probability_fn(score),
            memory_sequence_length=memory_sequence_length, score_mask_value=score_mask_value,
            custom_key_value_fn=custom_key_value_fn, name=name)
        self._num_units = num_units
        self._scale = scale
        self._name = name

    def __call__(self, query, state):
        with variable_scope(None, "luong_attention", [query]):
            attention_g = None
            if self._scale:
                attention_g = get_variable("attention_g", dtype=query.dtype,
                                           initializer=init_ops.ones_initializer, shape=())
            score = _luong_score(query, self._keys, attention_g)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


def _bahdanau_score(processed_query, keys, attention_v, attention_g=None, attention_b=None):
    processed_query = array_ops.expand_dims(processed_query, 1)
    if attention_g is not None and attention_b is not None:
        normed_v = attention_g * attention_v * math_ops.rsqrt(
            math_ops.reduce_sum(math_ops.square(attention_v)))
        return math_ops.reduce_sum(normed_v * math_ops.tanh(keys + processed_query +
                                                            attention_b), [2])
    return math_ops.reduce_sum(attention_v * math_ops.tanh(keys + processed_query), [2])


class BahdanauAttention(_BaseAttentionMechanism):
    """Additive attention: score = v . tanh(W1 memory + W2 query) (weight-normalized with
    `normalize`).

    Args:
      num_units: the depth of the query and memory layers.
      memory, memory_sequence_length, probability_fn: as LuongAttention.
      normalize: weight-normalize v (variables attention_g, attention_b).
    """

    def __init__(self, num_units, memory, memory_sequence_length=None, normalize=False,
                 probability_fn=None, score_mask_value=None, dtype=None,
                 custom_key_value_fn=None, name="BahdanauAttention"):
        probability_fn = probability_fn or activation_ops.softmax
        dtype = dtype or dtypes.float32
        super().__init__(
            query_layer=Dense(num_units, name="query_layer", use_bias=False, dtype=dtype),
            memory_layer=Dense(num_units, name="memory_layer", use_bias=False, dtype=dtype),
            memory=memory, probability_fn=lambda score, _: probability_fn(score),
            custom_key_value_fn=custom_key_value_fn,
            memory_sequence_length=memory_sequence_length, score_mask_value=score_mask_value,
            name=name)
        self._num_units = num_units
        self._normalize = normalize
        self._name = name

    def __call__(self, query, state):
        with variable_scope(None, "bahdanau_attention", [query]):
            processed_query = self.query_layer(query) if self.query_layer else query
            attention_v = get_variable("attention_v", [self._num_units], dtype=query.dtype)
            attention_g = attention_b = None
            if self._normalize:
                attention_g = get_variable(
                    "attention_g", dtype=query.dtype, shape=(),
                    initializer=init_ops.constant_initializer(math.sqrt(1.0 / self._num_units)))
                attention_b = get_variable("attention_b", [self._num_units], dtype=query.dtype,
                                           initializer=init_ops.zeros_initializer())
            score = _bahdanau_score(processed_query, self._keys, attention_v,
                                    attention_g=attention_g, attention_b=attention_b)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


class AttentionWrapperState(collections.namedtuple(
        "AttentionWrapperState", ("cell_state", "attention", "time", "alignments",
                                  "alignment_history", "attention_state"))):
    """The state of an AttentionWrapper."""

    def clone(self, **kwargs):
        """A copy with fields replaced (tensors keep the shapes of the fields they replace)."""
        def with_same_shape(old, new):
            if isinstance(old, Tensor) and isinstance(new, Tensor):
                new.set_shape(old.shape)
            return new
        return nest.map_structure(with_same_shape, self, super()._replace(**kwargs))


def hardmax(logits, name=None):
    """One-hot of the argmax along the last axis."""
    with name_scope(name, "Hardmax", [logits]):
        logits = convert_to_tensor(logits, name="logits")
        depth = tensor_shape.dimension_value(logits.get_shape()[-1])
        if depth is None:
            depth = array_ops.shape(logits)[-1]
        return array_ops.one_hot(math_ops.argmax(logits, -1), depth, dtype=logits.dtype)


def _compute_attention(attention_mechanism, cell_output, attention_state, attention_layer):
    alignments, next_attention_state = attention_mechanism(cell_output, state=attention_state)
    expanded = array_ops.expand_dims(alignments, 1)
    context = array_ops.squeeze(math_ops.matmul(expanded, attention_mechanism.values), [1])
    if attention_layer is not None:
        attention = attention_layer(array_ops.concat([cell_output, context], 1))
    else:
        attention = context
    return attention, alignments, next_attention_state


def _concat_inputs(inputs, attention):
    return array_ops.concat([inputs, attention], -1)


class AttentionWrapper(RNNCell):
    """Wraps `cell` with attention over one or more mechanisms' memories.

    Each step feeds `cell_input_fn(inputs, previous attention)` (default: concat) to the
    cell, scores its output against the memory, and makes the attention (the context, or
    `attention_layer(concat(cell_output, context))` with `attention_layer_size`).

    Args:
      cell: an RNNCell.
      attention_mechanism: an AttentionMechanism or a list of them.
      attention_layer_size: the depth of a Dense attention layer (one per mechanism).
      alignment_history: keep each step's alignments in a TensorArray of the state.
      output_attention: output the attention (else the cell output).
      initial_cell_state: the cell state of zero_state (default: the cell's zero state).
      attention_layer: layers to use instead of attention_layer_size's.
    Raises:
      TypeError, ValueError: as TF for bad mechanisms, layers and sizes.
    """

    def __init__(self, cell, attention_mechanism, attention_layer_size=None,
                 alignment_history=False, cell_input_fn=None, output_attention=True,
                 initial_cell_state=None, name=None, attention_layer=None, attention_fn=None,
                 dtype=None):
        super().__init__(name=name, dtype=dtype)
        assert_like_rnncell("cell", cell)
        if isinstance(attention_mechanism, (list, tuple)):
            self._is_multi = True
            mechanisms = tuple(attention_mechanism)
            for m in mechanisms:
                if not isinstance(m, AttentionMechanism):
                    raise TypeError("attention_mechanism must contain only instances of "
                                    "AttentionMechanism, saw type: %s" % type(m).__name__)
        else:
            self._is_multi = False
            if not isinstance(attention_mechanism, AttentionMechanism):
                raise TypeError("attention_mechanism must be an AttentionMechanism or list of "
                                "multiple AttentionMechanism instances, saw type: %s"
                                % type(attention_mechanism).__name__)
            mechanisms = (attention_mechanism,)
        if cell_input_fn is None:
            cell_input_fn = _concat_inputs
        elif not callable(cell_input_fn):
            raise TypeError("cell_input_fn must be callable, saw type: %s"
                            % type(cell_input_fn).__name__)
        if attention_layer_size is not None and attention_layer is not None:
            raise ValueError("Only one of attention_layer_size and attention_layer should be set")
        if attention_layer_size is not None:
            sizes = tuple(attention_layer_size if isinstance(attention_layer_size, (list, tuple))
                          else (attention_layer_size,))
            if len(sizes) != len(mechanisms):
                raise ValueError("If provided, attention_layer_size must contain exactly one "
                                 "integer per attention_mechanism, saw: %d vs %d"
                                 % (len(sizes), len(mechanisms)))
            self._attention_layers = tuple(
                Dense(size, name="attention_layer", use_bias=False, dtype=mechanisms[i].dtype)
                for i, size in enumerate(sizes))
            self._attention_layer_size = sum(sizes)
        elif attention_layer is not None:
            self._attention_layers = tuple(attention_layer if isinstance(
                attention_layer, (list, tuple)) else (attention_layer,))
            if len(self._attention_layers) != len(mechanisms):
                raise ValueError("If provided, attention_layer must contain exactly one layer "
                                 "per attention_mechanism, saw: %d vs %d"
                                 % (len(self._attention_layers), len(mechanisms)))
            self._attention_layer_size = sum(layer.units for layer in self._attention_layers)
        else:
            self._attention_layers = None
            self._attention_layer_size = sum(
                tensor_shape.dimension_value(m.values.shape[-1]) for m in mechanisms)
        self._attention_fn = attention_fn or _compute_attention
        self._cell = cell
        self._attention_mechanisms = mechanisms
        self._cell_input_fn = cell_input_fn
        self._output_attention = output_attention
        self._alignment_history = alignment_history
        with name_scope(name, "AttentionWrapperInit"):
            if initial_cell_state is None:
                self._initial_cell_state = None
            else:
                final = nest.flatten(initial_cell_state)[-1]
                batch = tensor_shape.dimension_value(final.shape[0]) or \
                    array_ops.shape(final)[0]
                message = ("When constructing AttentionWrapper %s: Non-matching batch sizes "
                           "between the memory (encoder output) and initial_cell_state.  Are "
                           "you using the BeamSearchDecoder?  You may need to tile your "
                           "initial state via the tf.contrib.seq2seq.tile_batch function with "
                           "argument multiple=beam_width." % self._base_name)
                with control_dependencies(self._batch_size_checks(batch, message)):
                    self._initial_cell_state = nest.map_structure(
                        lambda s: array_ops.identity(s, name="check_initial_cell_state"),
                        initial_cell_state)

    def _batch_size_checks(self, batch_size, error_message):
        return [check_ops.assert_equal(batch_size, m.batch_size, message=error_message)
                for m in self._attention_mechanisms]

    def _item_or_tuple(self, seq):
        t = tuple(seq)
        return t if self._is_multi else t[0]

    @property
    def output_size(self):
        return self._attention_layer_size if self._output_attention else self._cell.output_size

    @property
    def state_size(self):
        return AttentionWrapperState(
            cell_state=self._cell.state_size, time=tensor_shape.TensorShape([]),
            attention=self._attention_layer_size,
            alignments=self._item_or_tuple(a.alignments_size
                                           for a in self._attention_mechanisms),
            attention_state=self._item_or_tuple(a.state_size
                                                for a in self._attention_mechanisms),
            alignment_history=self._item_or_tuple(
                a.alignments_size if self._alignment_history else ()
                for a in self._attention_mechanisms))

    def zero_state(self, batch_size, dtype):
        """The initial AttentionWrapperState (zero attention and alignments).

        Raises (at run time) InvalidArgumentError when `batch_size` differs from the memory's.
        """
        with name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            if self._initial_cell_state is not None:
                cell_state = self._initial_cell_state
            else:
                cell_state = self._cell.zero_state(batch_size, dtype)
            message = ("When calling zero_state of AttentionWrapper %s: Non-matching batch "
                       "sizes between the memory (encoder output) and the requested batch "
                       "size.  Are you using the BeamSearchDecoder?  If so, make sure your "
                       "encoder output has been tiled to beam_width via "
                       "tf.contrib.seq2seq.tile_batch, and the batch_size= argument passed "
                       "to zero_state is batch_size * beam_width." % self._base_name)
            with control_dependencies(self._batch_size_checks(batch_size, message)):
                cell_state = nest.map_structure(
                    lambda s: array_ops.identity(s, name="checked_cell_state"), cell_state)
            initial_alignments = [m.initial_alignments(batch_size, dtype)
                                  for m in self._attention_mechanisms]
            return AttentionWrapperState(
                cell_state=cell_state, time=array_ops.zeros([], dtype=dtypes.int32),
                attention=_zero_state_tensors(self._attention_layer_size, batch_size, dtype),
                alignments=self._item_or_tuple(initial_alignments),
                attention_state=self._item_or_tuple(m.initial_state(batch_size, dtype)
                                                    for m in self._attention_mechanisms),
                alignment_history=self._item_or_tuple(
                    TensorArray(dtype, size=0, dynamic_size=True,
                                element_shape=alignment.shape)
                    if self._alignment_history else () for alignment in initial_alignments))

    def call(self, inputs, state):
        if not isinstance(state, AttentionWrapperState):
            raise TypeError("Expected state to be instance of AttentionWrapperState. Received "
                            "type %s instead." % type(state))
        cell_inputs = self._cell_input_fn(inputs, state.attention)
        cell_output, next_cell_state = self._cell(cell_inputs, state.cell_state)
        batch = tensor_shape.dimension_value(cell_output.shape[0]) or \
            array_ops.shape(cell_output)[0]
        message = ("When applying AttentionWrapper %s: Non-matching batch sizes between the "
                   "memory (encoder output) and the query (decoder output).  Are you using the "
                   "BeamSearchDecoder?  You may need to tile your memory input via the "
                   "tf.contrib.seq2seq.tile_batch function with argument multiple=beam_width."
                   % self.name)
        with control_dependencies(self._batch_size_checks(batch, message)):
            cell_output = array_ops.identity(cell_output, name="checked_cell_output")
        if self._is_multi:
            previous_states, previous_histories = state.attention_state, state.alignment_history
        else:
            previous_states, previous_histories = [state.attention_state], \
                [state.alignment_history]
        alignments_all, attentions, states, histories = [], [], [], []
        for i, mechanism in enumerate(self._attention_mechanisms):
            attention, alignments, next_attention_state = self._attention_fn(
                mechanism, cell_output, previous_states[i],
                self._attention_layers[i] if self._attention_layers else None)
            history = previous_histories[i].write(state.time, alignments) \
                if self._alignment_history else ()
            states.append(next_attention_state)
            alignments_all.append(alignments)
            attentions.append(attention)
            histories.append(history)
        attention = array_ops.concat(attentions, 1)
        next_state = AttentionWrapperState(
            time=state.time + 1, cell_state=next_cell_state, attention=attention,
            attention_state=self._item_or_tuple(states),
            alignments=self._item_or_tuple(alignments_all),
            alignment_history=self._item_or_tuple(histories))
        return (attention if self._output_attention else cell_output), next_state
