"""tf.contrib.seq2seq beam search: tile_batch, BeamSearchDecoder (TF 1.15's TF1 class, with
length and coverage penalties) and gather_tree."""

import collections
import logging

import numpy as np

from flowloom.contrib.seq2seq import attention_wrapper
from flowloom.contrib.seq2seq.decoder import Decoder
from flowloom.framework import dtypes, nest, tensor_shape
from flowloom.framework.graph import control_dependencies, name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_util import constant_value
from flowloom.layers.base import Layer
from flowloom.ops.array import array_ops
from flowloom.ops.checks import logging_ops
from flowloom.ops.control_flow import cond as cond_lib
from flowloom.ops.control_flow.tensor_array_ops import TensorArray
from flowloom.ops.math import math_ops
from flowloom.ops.nn import activation_ops, embedding_ops
from flowloom.ops.rnn.beam_search_ops import gather_tree
from flowloom.ops.rnn.rnn_cell_impl import assert_like_rnncell


class BeamSearchDecoderState(collections.namedtuple(
        "BeamSearchDecoderState", ("cell_state", "log_probs", "finished", "lengths",
                                   "accumulated_attention_probs"))):
    pass


class BeamSearchDecoderOutput(collections.namedtuple(
        "BeamSearchDecoderOutput", ("scores", "predicted_ids", "parent_ids"))):
    pass


class FinalBeamSearchDecoderOutput(collections.namedtuple(
        "FinalBeamDecoderOutput", ["predicted_ids", "beam_search_decoder_output"])):
    pass


def _tile_batch(t, multiplier):
    t = convert_to_tensor(t, name="t")
    shape_t = array_ops.shape(t)
    if t.shape.ndims is None or t.shape.ndims < 1:
        raise ValueError("t must have statically known rank")
    tiling = [1] * (t.shape.ndims + 1)
    tiling[1] = multiplier
    static_batch = t.shape.dims[0].value * multiplier if t.shape.dims[0].value is not None \
        else None
    tiled = array_ops.tile(array_ops.expand_dims(t, 1), tiling)
    tiled = array_ops.reshape(tiled, array_ops.concat(([shape_t[0] * multiplier],
                                                       shape_t[1:]), 0))
    tiled.set_shape(tensor_shape.TensorShape([static_batch]).concatenate(t.shape[1:]))
    return tiled


def tile_batch(t, multiplier, name=None):
    """Repeats each batch entry of (each tensor of) `t` `multiplier` times:
    [batch, ...] -> [batch * multiplier, ...], entries b*multiplier .. stay together.

    Raises:
      ValueError: a tensor of unknown rank or rank 0.
    """
    flat_t = nest.flatten(t)
    with name_scope(name, "tile_batch", flat_t + [multiplier]):
        return nest.map_structure(lambda t_: _tile_batch(t_, multiplier), t)


def gather_tree_from_array(t, parent_ids, sequence_length):
    """Reorders the stacked TensorArray `t` [time, batch*beam, ...] along the beams' paths."""
    max_time = parent_ids.shape.dims[0].value or array_ops.shape(parent_ids)[0]
    batch_size = parent_ids.shape.dims[1].value or array_ops.shape(parent_ids)[1]
    beam_width = parent_ids.shape.dims[2].value or array_ops.shape(parent_ids)[2]
    beam_ids = array_ops.expand_dims(array_ops.expand_dims(math_ops.range_(beam_width), 0), 0)
    beam_ids = array_ops.tile(beam_ids, [max_time, batch_size, 1])
    max_sequence_lengths = math_ops.cast(math_ops.reduce_max(sequence_length, axis=1),
                                         dtypes.int32)
    sorted_beam_ids = gather_tree(step_ids=beam_ids, parent_ids=parent_ids,
                                  max_sequence_lengths=max_sequence_lengths,
                                  end_token=beam_width + 1)
    in_bound_steps = array_ops.transpose(array_ops.sequence_mask(sequence_length,
                                                                 maxlen=max_time), [2, 0, 1])
    sorted_beam_ids = array_ops.where(in_bound_steps, sorted_beam_ids, beam_ids)
    time_ind = array_ops.tile(array_ops.reshape(math_ops.range_(max_time), [-1, 1, 1]),
                              [1, batch_size, beam_width])
    batch_ind = array_ops.tile(array_ops.reshape(math_ops.range_(batch_size), [-1, 1, 1]),
                               [1, max_time, beam_width])
    batch_ind = array_ops.transpose(batch_ind, [1, 0, 2])
    indices = array_ops.stack([time_ind, batch_ind, sorted_beam_ids], -1)
    final_shape = array_ops.shape(t)
    gather_from = array_ops.reshape(t, [max_time, batch_size, beam_width, -1])
    ordered = array_ops.gather_nd(gather_from, indices)
    return array_ops.reshape(ordered, final_shape)


def _check_ndims(t):
    if t.shape.ndims is None:
        raise ValueError("Expected tensor (%s) to have known rank, but ndims == None." % t)


def _check_static_batch_beam_maybe(shape, batch_size, beam_width):
    """TF's static check before reordering a TensorArray (False: leave it as it is). As in
    TF, an element [batch * beam, d] with d known does not pass."""
    reshaped = tensor_shape.TensorShape([batch_size, beam_width, None])
    if batch_size is not None and shape.dims[0].value is not None and (
            shape[0] != batch_size * beam_width or (
                shape.ndims >= 2 and shape.dims[1].value is not None and
                (shape[0] != batch_size or shape[1] != beam_width))):
        logging.warning("TensorArray reordering expects elements to be reshapable to %s which "
                        "is incompatible with the current shape %s. Consider setting "
                        "reorder_tensor_arrays to False to disable TensorArray reordering "
                        "during the beam search.", reshaped, shape)
        return False
    return True


def _tensor_gather_helper(gather_indices, gather_from, batch_size, range_size, gather_shape,
                          name=None):
    with name_scope(name, "tensor_gather_helper"):
        range_ = array_ops.expand_dims(math_ops.range_(batch_size) * range_size, 1)
        gather_indices = array_ops.reshape(gather_indices + range_, [-1])
        output = array_ops.gather(array_ops.reshape(gather_from, gather_shape), gather_indices)
        final_shape = array_ops.shape(gather_from)[:1 + len(gather_shape)]
        static_batch = constant_value(batch_size) if isinstance(batch_size, Tensor) \
            else batch_size
        final_static_shape = tensor_shape.TensorShape([static_batch]).concatenate(
            gather_from.shape[1:1 + len(gather_shape)])
        output = array_ops.reshape(output, final_shape, name="output")
        output.set_shape(final_static_shape)
        return output


def _maybe_tensor_gather_helper(gather_indices, gather_from, batch_size, range_size,
                                gather_shape):
    if isinstance(gather_from, TensorArray):
        return gather_from
    _check_ndims(gather_from)
    if gather_from.shape.ndims >= len(gather_shape):
        return _tensor_gather_helper(gather_indices, gather_from, batch_size, range_size,
                                     gather_shape)
    return gather_from


def _attention_probs_from_attn_state(attention_state):
    probs = attention_state.alignments
    if isinstance(probs, tuple):
        probs = math_ops.reduce_mean(array_ops.concat(
            [array_ops.expand_dims(p, -1) for p in probs], -1), -1)
    return probs


def get_attention_probs(next_cell_state, coverage_penalty_weight):
    """The alignments of the attention states in `next_cell_state` (None without coverage
    penalty)."""
    if coverage_penalty_weight == 0.0:
        return None
    per_layer = []
    if isinstance(next_cell_state, attention_wrapper.AttentionWrapperState):
        per_layer = [_attention_probs_from_attn_state(next_cell_state)]
    elif isinstance(next_cell_state, tuple):
        per_layer = [_attention_probs_from_attn_state(s) for s in next_cell_state
                     if isinstance(s, attention_wrapper.AttentionWrapperState)]
    if not per_layer:
        raise ValueError("coverage_penalty_weight must be 0.0 if no cell is attentional.")
    if len(per_layer) == 1:
        return per_layer[0]
    return math_ops.reduce_mean(array_ops.concat(
        [array_ops.expand_dims(p, -1) for p in per_layer], -1), -1)


def _length_penalty(sequence_lengths, penalty_factor):
    penalty_factor = convert_to_tensor(penalty_factor, name="penalty_factor")
    penalty_factor.set_shape(())
    static = constant_value(penalty_factor)
    if static is not None and static == 0:
        return 1.0
    return math_ops.div((5.0 + math_ops.cast(sequence_lengths, dtypes.float32)) **
                        penalty_factor, (5.0 + 1.0) ** penalty_factor)


def _get_scores(log_probs, sequence_lengths, length_penalty_weight, coverage_penalty_weight,
                finished, accumulated_attention_probs):
    penalty = math_ops.cast(_length_penalty(sequence_lengths, length_penalty_weight),
                            dtype=log_probs.dtype)
    scores = log_probs / penalty
    coverage_penalty_weight = convert_to_tensor(coverage_penalty_weight,
                                                name="coverage_penalty_weight")
    if coverage_penalty_weight.shape.ndims != 0:
        raise ValueError("coverage_penalty_weight should be a scalar, but saw shape: %s"
                         % coverage_penalty_weight.shape)
    if constant_value(coverage_penalty_weight) == 0.0:
        return scores
    if accumulated_attention_probs is None:
        raise ValueError("accumulated_attention_probs can be None only if coverage penalty is "
                         "disabled.")
    probs = array_ops.where(math_ops.equal(accumulated_attention_probs, 0.0),
                            array_ops.ones_like(accumulated_attention_probs),
                            accumulated_attention_probs)
    coverage = math_ops.reduce_sum(math_ops.log(math_ops.minimum(probs, 1.0)), 2)
    coverage *= math_ops.cast(finished, dtypes.float32)
    return scores + array_ops.expand_dims(coverage * coverage_penalty_weight, 2)


def _mask_probs(probs, eos_token, finished):
    vocab_size = array_ops.shape(probs)[2]
    finished_row = array_ops.one_hot(eos_token, vocab_size, dtype=probs.dtype,
                                     on_value=convert_to_tensor(0.0, dtype=probs.dtype),
                                     off_value=probs.dtype.min)
    finished_probs = array_ops.tile(array_ops.reshape(finished_row, [1, 1, -1]),
                                    array_ops.concat([array_ops.shape(finished), [1]], 0))
    finished_mask = array_ops.tile(array_ops.expand_dims(finished, 2), [1, 1, vocab_size])
    return array_ops.where(finished_mask, finished_probs, probs)


def _beam_search_step(time, logits, next_cell_state, beam_state, batch_size, beam_width,
                      end_token, length_penalty_weight, coverage_penalty_weight):
    static_batch_size = constant_value(batch_size)
    prediction_lengths = beam_state.lengths
    previously_finished = beam_state.finished
    not_finished = math_ops.logical_not(previously_finished)
    step_log_probs = _mask_probs(activation_ops.log_softmax(logits), end_token,
                                 previously_finished)
    total_probs = array_ops.expand_dims(beam_state.log_probs, 2) + step_log_probs
    vocab_size = logits.shape.dims[-1].value or array_ops.shape(logits)[-1]
    lengths_to_add = array_ops.one_hot(
        indices=array_ops.fill([batch_size, beam_width], end_token), depth=vocab_size,
        on_value=math_ops.to_int64(0), off_value=math_ops.to_int64(1), dtype=dtypes.int64)
    add_mask = math_ops.cast(not_finished, dtypes.int64)
    lengths_to_add *= array_ops.expand_dims(add_mask, 2)
    new_prediction_lengths = lengths_to_add + array_ops.expand_dims(prediction_lengths, 2)
    accumulated_attention_probs = None
    attention_probs = get_attention_probs(next_cell_state, coverage_penalty_weight)
    if attention_probs is not None:
        attention_probs *= array_ops.expand_dims(math_ops.cast(not_finished, dtypes.float32), 2)
        accumulated_attention_probs = beam_state.accumulated_attention_probs + attention_probs
    scores = _get_scores(total_probs, new_prediction_lengths, length_penalty_weight,
                         coverage_penalty_weight, previously_finished,
                         accumulated_attention_probs)
    time = convert_to_tensor(time, name="time")
    scores_flat = array_ops.reshape(scores, [batch_size, -1])
    next_beam_size = convert_to_tensor(beam_width, dtype=dtypes.int32, name="beam_width")
    next_beam_scores, word_indices = math_ops.top_k(scores_flat, k=next_beam_size)
    next_beam_scores.set_shape([static_batch_size, beam_width])
    word_indices.set_shape([static_batch_size, beam_width])
    next_beam_probs = _tensor_gather_helper(word_indices, total_probs, batch_size,
                                            beam_width * vocab_size, [-1],
                                            name="next_beam_probs")
    raw_next_word_ids = math_ops.mod(word_indices, vocab_size, name="next_beam_word_ids")
    next_word_ids = math_ops.cast(raw_next_word_ids, dtypes.int32)
    next_beam_ids = math_ops.cast(word_indices / vocab_size, dtypes.int32,
                                  name="next_beam_parent_ids")
    previously_finished = _tensor_gather_helper(next_beam_ids, previously_finished,
                                                batch_size, beam_width, [-1])
    next_finished = math_ops.logical_or(previously_finished,
                                        math_ops.equal(next_word_ids, end_token),
                                        name="next_beam_finished")
    lengths_to_add = math_ops.cast(math_ops.logical_not(previously_finished), dtypes.int64)
    next_prediction_len = _tensor_gather_helper(next_beam_ids, beam_state.lengths, batch_size,
                                                beam_width, [-1])
    next_prediction_len += lengths_to_add
    next_accumulated = ()
    if accumulated_attention_probs is not None:
        next_accumulated = _tensor_gather_helper(
            next_beam_ids, accumulated_attention_probs, batch_size, beam_width,
            [batch_size * beam_width, -1], name="next_accumulated_attention_probs")
    next_cell_state = nest.map_structure(
        lambda gather_from: _maybe_tensor_gather_helper(
            next_beam_ids, gather_from, batch_size, beam_width,
            [batch_size * beam_width, -1]), next_cell_state)
    next_state = BeamSearchDecoderState(cell_state=next_cell_state, log_probs=next_beam_probs,
                                        lengths=next_prediction_len, finished=next_finished,
                                        accumulated_attention_probs=next_accumulated)
    output = BeamSearchDecoderOutput(scores=next_beam_scores, predicted_ids=next_word_ids,
                                     parent_ids=next_beam_ids)
    return output, next_state


class BeamSearchDecoder(Decoder):
    """Beam search over `cell` (TF1's class): each step keeps the `beam_width` best
    continuations of every batch entry.

    Args:
      cell: an RNNCell whose state is tiled to batch_size * beam_width (tile_batch).
      embedding: an embedding matrix or a callable `ids -> inputs`.
      start_tokens: int32 vector [batch_size]; end_token: int32 scalar.
      initial_state: the cell's initial state, [batch_size * beam_width, ...].
      beam_width: the number of beams.
      output_layer: optional Layer applied to the cell outputs (e.g. the vocabulary Dense).
      length_penalty_weight, coverage_penalty_weight: GNMT's penalties.
      reorder_tensor_arrays: reorder TensorArrays of the final cell state along the beams.
    Raises:
      TypeError, ValueError: bad cell/output_layer, start_tokens not a vector, end_token not
        a scalar.
    """

    def __init__(self, cell, embedding, start_tokens, end_token, initial_state, beam_width,
                 output_layer=None, length_penalty_weight=0.0, coverage_penalty_weight=0.0,
                 reorder_tensor_arrays=True):
        assert_like_rnncell("cell", cell)
        if output_layer is not None and not isinstance(output_layer, Layer):
            raise TypeError("output_layer must be a Layer, received: %s" % type(output_layer))
        self._cell = cell
        self._output_layer = output_layer
        self._reorder_tensor_arrays = reorder_tensor_arrays
        self._beam_width = beam_width
        self._length_penalty_weight = length_penalty_weight
        self._coverage_penalty_weight = coverage_penalty_weight
        if callable(embedding):
            self._embedding_fn = embedding
        else:
            self._embedding_fn = lambda ids: embedding_ops.embedding_lookup(embedding, ids)
        self._start_tokens = convert_to_tensor(start_tokens, dtype=dtypes.int32,
                                               name="start_tokens")
        if self._start_tokens.get_shape().ndims != 1:
            raise ValueError("start_tokens must be a vector")
        self._end_token = convert_to_tensor(end_token, dtype=dtypes.int32, name="end_token")
        if self._end_token.get_shape().ndims != 0:
            raise ValueError("end_token must be a scalar")
        self._batch_size = array_ops.size(start_tokens)
        self._initial_cell_state = nest.map_structure(self._maybe_split_batch_beams,
                                                      initial_state, self._cell.state_size)
        self._start_tokens = array_ops.tile(array_ops.expand_dims(self._start_tokens, 1),
                                            [1, self._beam_width])
        self._start_inputs = self._embedding_fn(self._start_tokens)
        self._finished = array_ops.one_hot(array_ops.zeros([self._batch_size],
                                                           dtype=dtypes.int32),
                                           depth=self._beam_width, on_value=False,
                                           off_value=True, dtype=dtypes.bool_)

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def tracks_own_finished(self):
        return True

    def _rnn_output_size(self):
        size = self._cell.output_size
        if self._output_layer is None:
            return size
        units = getattr(self._output_layer, "units", None)
        if units is None:
            raise NotImplementedError("BeamSearchDecoder with an output layer other than Dense")
        return nest.map_structure(lambda _: tensor_shape.TensorShape([units]), size)

    @property
    def output_size(self):
        return BeamSearchDecoderOutput(scores=tensor_shape.TensorShape([self._beam_width]),
                                       predicted_ids=tensor_shape.TensorShape([self._beam_width]),
                                       parent_ids=tensor_shape.TensorShape([self._beam_width]))

    @property
    def output_dtype(self):
        dtype = nest.flatten(self._initial_cell_state)[0].dtype
        return BeamSearchDecoderOutput(
            scores=nest.map_structure(lambda _: dtype, self._rnn_output_size()),
            predicted_ids=dtypes.int32, parent_ids=dtypes.int32)

    def initialize(self, name=None):
        dtype = nest.flatten(self._initial_cell_state)[0].dtype
        log_probs = array_ops.one_hot(
            array_ops.zeros([self._batch_size], dtype=dtypes.int32), depth=self._beam_width,
            on_value=convert_to_tensor(0.0, dtype=dtype),
            off_value=convert_to_tensor(-np.inf, dtype=dtype), dtype=dtype)
        init_attention_probs = get_attention_probs(self._initial_cell_state,
                                                   self._coverage_penalty_weight)
        if init_attention_probs is None:
            init_attention_probs = ()
        initial_state = BeamSearchDecoderState(
            cell_state=self._initial_cell_state, log_probs=log_probs, finished=self._finished,
            lengths=array_ops.zeros([self._batch_size, self._beam_width], dtype=dtypes.int64),
            accumulated_attention_probs=init_attention_probs)
        return self._finished, self._start_inputs, initial_state

    def finalize(self, outputs, final_state, sequence_lengths):
        max_sequence_lengths = math_ops.cast(math_ops.reduce_max(final_state.lengths, axis=1),
                                             dtypes.int32)
        predicted_ids = gather_tree(outputs.predicted_ids, outputs.parent_ids,
                                    max_sequence_lengths=max_sequence_lengths,
                                    end_token=self._end_token)
        if self._reorder_tensor_arrays:
            final_state = final_state._replace(cell_state=nest.map_structure(
                lambda t: self._maybe_sort_array_beams(t, outputs.parent_ids,
                                                       final_state.lengths),
                final_state.cell_state))
        return FinalBeamSearchDecoderOutput(beam_search_decoder_output=outputs,
                                            predicted_ids=predicted_ids), final_state

    def _merge_batch_beams(self, t, s=None):
        s = tensor_shape.as_shape(constant_value(s)) if isinstance(s, Tensor) else \
            tensor_shape.TensorShape(s)
        t_shape = array_ops.shape(t)
        static_batch_size = constant_value(self._batch_size)
        merged = None if static_batch_size is None else static_batch_size * self._beam_width
        reshaped = array_ops.reshape(t, array_ops.concat(
            ([self._batch_size * self._beam_width], t_shape[2:]), 0))
        reshaped.set_shape(tensor_shape.TensorShape([merged]).concatenate(s))
        return reshaped

    def _split_batch_beams(self, t, s=None):
        s = tensor_shape.TensorShape(constant_value(s)) if isinstance(s, Tensor) else \
            tensor_shape.TensorShape(s)
        t_shape = array_ops.shape(t)
        reshaped = array_ops.reshape(t, array_ops.concat(
            ([self._batch_size, self._beam_width], t_shape[1:]), 0))
        static_batch_size = constant_value(self._batch_size)
        expected = tensor_shape.TensorShape([static_batch_size,
                                             self._beam_width]).concatenate(s)
        if not reshaped.shape.is_compatible_with(expected):
            raise ValueError("Unexpected behavior when reshaping between beam width and batch "
                             "size.  The reshaped tensor has shape: %s.  We expected it to "
                             "have shape (batch_size, beam_width, depth) == %s.  Perhaps you "
                             "forgot to create a zero_state with "
                             "batch_size=encoder_batch_size * beam_width?"
                             % (reshaped.shape, expected))
        reshaped.set_shape(expected)
        return reshaped

    def _maybe_split_batch_beams(self, t, s):
        if isinstance(t, TensorArray):
            return t
        _check_ndims(t)
        return self._split_batch_beams(t, s) if t.shape.ndims >= 1 else t

    def _maybe_merge_batch_beams(self, t, s):
        if isinstance(t, TensorArray):
            return t
        _check_ndims(t)
        return self._merge_batch_beams(t, s) if t.shape.ndims >= 2 else t

    def _maybe_sort_array_beams(self, t, parent_ids, sequence_length):
        if not isinstance(t, TensorArray):
            return t
        shape = t.element_shape
        if shape.ndims is None or shape.ndims < 1:
            logging.warning("The TensorArray in the cell state is not amenable to sorting "
                            "based on the beam search result.")
            return t
        if not _check_static_batch_beam_maybe(shape, constant_value(self._batch_size),
                                              self._beam_width):
            return t
        t = t.stack()
        check = logging_ops.Assert_(math_ops.logical_or(
            math_ops.equal(array_ops.shape(t)[1], self._batch_size * self._beam_width),
            math_ops.equal(array_ops.shape(t)[1], self._batch_size)),
            ["TensorArray reordering expects elements to be reshapable to [batch_size, "
             "beam_size, -1]"])
        with control_dependencies([check]):
            return gather_tree_from_array(t, parent_ids, sequence_length)

    def step(self, time, inputs, state, name=None):
        with name_scope(name, "BeamSearchDecoderStep", (time, inputs, state)):
            inputs = nest.map_structure(lambda inp: self._merge_batch_beams(inp, inp.shape[2:]),
                                        inputs)
            cell_state = nest.map_structure(self._maybe_merge_batch_beams, state.cell_state,
                                            self._cell.state_size)
            cell_outputs, next_cell_state = self._cell(inputs, cell_state)
            cell_outputs = nest.map_structure(
                lambda out: self._split_batch_beams(out, out.shape[1:]), cell_outputs)
            next_cell_state = nest.map_structure(self._maybe_split_batch_beams, next_cell_state,
                                                 self._cell.state_size)
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            output, beam_state = _beam_search_step(
                time=time, logits=cell_outputs, next_cell_state=next_cell_state,
                beam_state=state, batch_size=self._batch_size, beam_width=self._beam_width,
                end_token=self._end_token, length_penalty_weight=self._length_penalty_weight,
                coverage_penalty_weight=self._coverage_penalty_weight)
            finished = beam_state.finished
            sample_ids = output.predicted_ids
            next_inputs = cond_lib.cond(math_ops.reduce_all(finished),
                                        lambda: self._start_inputs,
                                        lambda: self._embedding_fn(sample_ids))
        return output, beam_state, next_inputs, finished
