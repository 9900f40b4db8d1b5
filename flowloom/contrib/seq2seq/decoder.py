"""tf.contrib.seq2seq.Decoder and dynamic_decode: a TF1 while loop that steps a decoder until
every sequence is finished (or `maximum_iterations`), collecting its outputs in TensorArrays."""

from flowloom.framework import dtypes, nest, tensor_shape
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_util import constant_value
from flowloom.ops.array import array_ops
from flowloom.ops.control_flow.tensor_array_ops import TensorArray
from flowloom.ops.control_flow.while_loop import while_loop
from flowloom.ops.math import math_ops
from flowloom.ops.rnn.rnn import _transpose_batch_time
from flowloom.ops.rnn.rnn_cell_impl import _zero_state_tensors
from flowloom.variable_scope import variable_scope


class Decoder:
    """The interface `dynamic_decode` drives: batch_size, output_size, output_dtype,
    initialize() -> (finished, inputs, state), step(time, inputs, state) -> (outputs,
    next_state, next_inputs, finished), optional finalize(outputs, state, lengths) and
    tracks_own_finished."""

    @property
    def batch_size(self):
        raise NotImplementedError("Decoder.batch_size")

    @property
    def output_size(self):
        raise NotImplementedError("Decoder.output_size")

    @property
    def output_dtype(self):
        raise NotImplementedError("Decoder.output_dtype")

    def initialize(self, name=None):
        raise NotImplementedError("Decoder.initialize")

    def step(self, time, inputs, state, name=None):
        raise NotImplementedError("Decoder.step")

    def finalize(self, outputs, final_state, sequence_lengths):
        raise NotImplementedError("Decoder.finalize")

    @property
    def tracks_own_finished(self):
        return False


def _create_zero_outputs(size, dtype, batch_size):
    return nest.map_structure(lambda s, d: _zero_state_tensors(s, batch_size, d), size, dtype)


def dynamic_decode(decoder, output_time_major=False, impute_finished=False,
                   maximum_iterations=None, parallel_iterations=32, swap_memory=False,
                   scope=None, **kwargs):
    """Runs `decoder` step by step in a while loop (variable scope `decoder`).

    Args:
      decoder: a `Decoder` (e.g. BasicDecoder).
      output_time_major: outputs [time, batch, ...] instead of [batch, time, ...].
      impute_finished: finished sequences emit zeros and keep their state.
      maximum_iterations: an int32 scalar bound on the number of steps.
    Returns:
      (final_outputs, final_state, final_sequence_lengths).
    Raises:
      TypeError: `decoder` is not a Decoder.
      ValueError: maximum_iterations is not a scalar.
    """
    if not isinstance(decoder, Decoder):
        raise TypeError("Expected decoder to be type Decoder, but saw: %s" % type(decoder))
    with variable_scope(scope, "decoder") as varscope:
        if varscope.caching_device is None:
            varscope.set_caching_device(lambda op: op.device)
        if maximum_iterations is not None:
            maximum_iterations = convert_to_tensor(maximum_iterations, dtype=dtypes.int32,
                                                   name="maximum_iterations")
            if maximum_iterations.get_shape().ndims != 0:
                raise ValueError("maximum_iterations must be a scalar")
        initial_finished, initial_inputs, initial_state = decoder.initialize()
        zero_outputs = _create_zero_outputs(decoder.output_size, decoder.output_dtype,
                                            decoder.batch_size)
        if maximum_iterations is not None:
            initial_finished = math_ops.logical_or(initial_finished, 0 >= maximum_iterations)
        initial_sequence_lengths = array_ops.zeros_like(initial_finished, dtype=dtypes.int32)
        initial_time = array_ops.constant(0, dtype=dtypes.int32)

        def _shape(batch_size, from_shape):
            if not isinstance(from_shape, tensor_shape.TensorShape) or from_shape.ndims == 0:
                return None
            batch_size = constant_value(convert_to_tensor(batch_size, name="batch_size"))
            return tensor_shape.TensorShape([batch_size]).concatenate(from_shape)

        def _create_ta(s, d):
            return TensorArray(dtype=d, size=0, dynamic_size=True,
                               element_shape=_shape(decoder.batch_size, s))

        initial_outputs_ta = nest.map_structure(_create_ta, decoder.output_size,
                                                decoder.output_dtype)

        def condition(unused_time, unused_outputs_ta, unused_state, unused_inputs, finished,
                      unused_sequence_lengths):
            return math_ops.logical_not(math_ops.reduce_all(finished))

        def body(time, outputs_ta, state, inputs, finished, sequence_lengths):
            next_outputs, decoder_state, next_inputs, decoder_finished = decoder.step(
                time, inputs, state)
            if decoder.tracks_own_finished:
                next_finished = decoder_finished
            else:
                next_finished = math_ops.logical_or(decoder_finished, finished)
            next_sequence_lengths = array_ops.where(
                math_ops.logical_not(finished),
                array_ops.fill(array_ops.shape(sequence_lengths), time + 1),
                sequence_lengths)
            nest.assert_same_structure(state, decoder_state)
            nest.assert_same_structure(outputs_ta, next_outputs)
            nest.assert_same_structure(inputs, next_inputs)
            if impute_finished:
                emit = nest.map_structure(lambda out, zero: array_ops.where(finished, zero, out),
                                          next_outputs, zero_outputs)
            else:
                emit = next_outputs

            def _maybe_copy_state(new, cur):
                if isinstance(cur, TensorArray):
                    pass_through = True
                else:
                    new.set_shape(cur.shape)
                    pass_through = new.shape.ndims == 0
                return new if pass_through else array_ops.where(finished, cur, new)

            next_state = nest.map_structure(_maybe_copy_state, decoder_state, state) \
                if impute_finished else decoder_state
            outputs_ta = nest.map_structure(lambda ta, out: ta.write(time, out), outputs_ta,
                                            emit)
            return (time + 1, outputs_ta, next_state, next_inputs, next_finished,
                    next_sequence_lengths)

        res = while_loop(condition, body,
                         loop_vars=(initial_time, initial_outputs_ta, initial_state,
                                    initial_inputs, initial_finished,
                                    initial_sequence_lengths),
                         parallel_iterations=parallel_iterations,
                         maximum_iterations=maximum_iterations, swap_memory=swap_memory)
        final_outputs_ta, final_state, final_sequence_lengths = res[1], res[2], res[5]
        final_outputs = nest.map_structure(lambda ta: ta.stack(), final_outputs_ta)
        try:
            final_outputs, final_state = decoder.finalize(final_outputs, final_state,
                                                          final_sequence_lengths)
        except NotImplementedError:
            pass
        if not output_time_major:
            final_outputs = nest.map_structure(_transpose_batch_time, final_outputs)
    return final_outputs, final_state, final_sequence_lengths
